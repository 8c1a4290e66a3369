"""The consent page's HTML: plain, no JavaScript, every piece of outside text escaped and bounded.

What comes from outside is the client's name (it registered itself, with any name it liked) and its
redirect URI: both are cut to one plain line (`plain_text`) and HTML-escaped here, at the one place they
are written into a page.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from zwave_mcp.safetext import plain_text
from zwave_mcp.service import scopes

HOST_MAX = 100
STYLE = (
    "body{font:17px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f1;color:#1d1d1b}"
    "main{max-width:34em;margin:2em auto;padding:1.5em 2em;background:#fff;border-radius:10px}"
    "h1{font-size:1.35em;line-height:1.3}fieldset{border:0;padding:0;margin:1em 0}"
    "legend{font-weight:600;margin-bottom:.3em}label.scope{display:block;margin:.45em 0}"
    "input[type=password]{font:inherit;width:100%;box-sizing:border-box;padding:.4em;margin:.3em 0 1em}"
    "button{font:inherit;padding:.45em 1.3em;margin-right:.6em}.note{color:#555;font-size:.9em}"
)


def redirect_host(redirect_uri: str) -> str:
    """Where the browser goes back to, as a person reads it: the host, or the app's scheme."""
    parts = urlsplit(redirect_uri)
    host = parts.hostname or f"{parts.scheme}:"
    return plain_text(host, HOST_MAX)


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )


def consent_page(
    *,
    client: str,
    redirect_uri: str,
    offered: list[str],
    request_id: str,
    csrf: str,
    action: str,
) -> str:
    """The question: may this client use the home, with which scopes (doors and admin unticked)."""
    name = escape(client)
    host = escape(redirect_host(redirect_uri))
    boxes = "".join(
        f'<label class="scope"><input type="checkbox" name="scope" value="{escape(scope)}"'
        f"{' checked' if scope in scopes.DEFAULT_TICKED else ''}> {escape(scopes.SCOPE_WORDS[scope])}</label>"
        for scope in scopes.ALL_SCOPES
        if scope in offered
    )
    body = (
        f"<h1>Allow {name} to use your home?</h1>"
        f"<p>{name} asks to connect to zwave-mcp. When you approve, your browser goes back to "
        f"<strong>{host}</strong>.</p>"
        f'<form method="post" action="{escape(action)}">'
        f'<input type="hidden" name="request" value="{escape(request_id)}">'
        f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
        f"<fieldset><legend>It may:</legend>{boxes}</fieldset>"
        '<label for="passphrase">The home\'s passphrase</label>'
        '<input id="passphrase" type="password" name="passphrase" autocomplete="current-password" '
        'maxlength="1024" required>'
        '<button type="submit" name="answer" value="approve">Approve</button>'
        '<button type="submit" name="answer" value="deny" formnovalidate>Deny</button>'
        "</form>"
        '<p class="note">Approve only an app you are connecting yourself, right now. You can end it at any '
        "time with <code>zwave-mcp clients revoke</code>.</p>"
    )
    return _page(f"Allow {client} to use your home?", body)


def answer_page(title: str, sentence: str, again: str | None = None) -> str:
    """A plain page that says what happened, with a way back to the question when trying again helps."""
    link = f'<p><a href="{escape(again)}">Try again</a></p>' if again else ""
    return _page(title, f"<h1>{escape(title)}</h1><p>{escape(sentence)}</p>{link}")
