"""Issue 42: the authorization server's decisions, without HTTP: tokens that rotate and end, codes used
once, the audience, bounded registration, the passphrase's hash and its attempt budget, the page's
escaping, and the two commands."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from mcp.server.auth.provider import AuthorizeError, RegistrationError, TokenError
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl

from tests.oauth_steps import approve_client, approved_code, consent_request, register
from zwave_mcp.commands import clients as clients_command
from zwave_mcp.commands import passphrase as passphrase_command
from zwave_mcp.service import scopes
from zwave_mcp.service.auth import HomeAuth, build_home_auth, open_store
from zwave_mcp.service.auth.attempts import AttemptLimit, FailedAttempts
from zwave_mcp.service.auth.page import HOST_MAX, consent_page, redirect_host
from zwave_mcp.service.auth.passphrase import META_KEY, Cost, hash_passphrase, verify_passphrase
from zwave_mcp.service.auth.provider import (
    ACCESS_TTL_S,
    CLIENT_NAME_MAX,
    MAX_REDIRECT_URIS,
    MAX_UNAPPROVED,
    client_name,
)
from zwave_mcp.service.auth.store import FILE_NAME, MAX_PENDING, REUSE_KEPT_S

CHEAP = Cost(n=2**10)
ISSUER = "http://127.0.0.1:8765"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def auth(tmp_path: Path, clock: Clock) -> HomeAuth:
    built = build_home_auth(tmp_path, ISSUER, clock=clock)
    yield built
    built.close()


def test_the_settings_are_the_spec_s(tmp_path: Path) -> None:
    auth = build_home_auth(tmp_path, ISSUER + "/")
    try:
        settings = auth.settings
        assert str(settings.issuer_url) == ISSUER and str(settings.resource_server_url) == ISSUER + "/mcp"
        assert settings.validate_token_resource is True and settings.required_scopes is None
        registration = settings.client_registration_options
        assert registration is not None and registration.enabled
        assert registration.valid_scopes == list(scopes.ALL_SCOPES)
        assert settings.revocation_options is not None and settings.revocation_options.enabled
        assert [route.path for route in auth.routes] == ["/consent"]
        assert not auth.passphrase_set()
        auth.provider.store.set_meta(META_KEY, hash_passphrase("correct horse battery", CHEAP))
        assert auth.passphrase_set()
    finally:
        auth.close()


async def test_access_tokens_are_short_lived_and_carry_their_audience(auth: HomeAuth, clock: Clock) -> None:
    _, tokens = await approve_client(auth, [scopes.READ, scopes.CONTROL])
    loaded = await auth.provider.load_access_token(tokens.access_token)
    assert loaded is not None and loaded.resource == ISSUER + "/mcp"
    assert loaded.scopes == [scopes.READ, scopes.CONTROL] and tokens.expires_in == ACCESS_TTL_S
    clock.now += ACCESS_TTL_S + 1
    assert await auth.provider.load_access_token(tokens.access_token) is None


async def test_a_refresh_token_rotates_and_used_twice_ends_the_grant(auth: HomeAuth) -> None:
    client, first = await approve_client(auth, [scopes.READ])
    assert first.refresh_token is not None
    old = await auth.provider.load_refresh_token(client, first.refresh_token)
    assert old is not None
    second = await auth.provider.exchange_refresh_token(client, old, old.scopes)
    assert second.refresh_token not in (None, first.refresh_token)
    assert await auth.provider.load_access_token(first.access_token) is None  # replaced
    assert await auth.provider.load_access_token(second.access_token) is not None
    # The old refresh token again (a thief, or the client after the thief): the whole grant ends.
    assert await auth.provider.load_refresh_token(client, first.refresh_token) is None
    assert await auth.provider.load_access_token(second.access_token) is None
    assert second.refresh_token is not None
    assert await auth.provider.load_refresh_token(client, second.refresh_token) is None


async def test_two_refreshes_racing_with_one_token_end_the_grant(auth: HomeAuth) -> None:
    client, first = await approve_client(auth, [scopes.READ])
    assert first.refresh_token is not None
    loaded = await auth.provider.load_refresh_token(client, first.refresh_token)
    assert loaded is not None
    won = await auth.provider.exchange_refresh_token(client, loaded, loaded.scopes)
    with pytest.raises(TokenError) as lost:
        await auth.provider.exchange_refresh_token(client, loaded, loaded.scopes)
    assert lost.value.error == "invalid_grant"
    assert await auth.provider.load_access_token(won.access_token) is None


async def test_a_code_is_used_once_and_a_second_use_ends_its_grant(auth: HomeAuth) -> None:
    client = await register(auth, "tablet", "Kitchen Tablet")
    code = await approved_code(auth, client, [scopes.READ])
    loaded = await auth.provider.load_authorization_code(client, code)
    assert loaded is not None
    tokens = await auth.provider.exchange_authorization_code(client, loaded)
    with pytest.raises(TokenError):
        await auth.provider.exchange_authorization_code(client, loaded)
    assert await auth.provider.load_access_token(tokens.access_token) is None


async def test_a_code_belongs_to_its_client(auth: HomeAuth) -> None:
    client = await register(auth, "tablet", "Kitchen Tablet")
    other = await register(auth, "phone", "Phone")
    code = await approved_code(auth, client, [scopes.READ])
    assert await auth.provider.load_authorization_code(other, code) is None


async def test_revocation_ends_the_grant_whichever_token_is_given(auth: HomeAuth) -> None:
    client, tokens = await approve_client(auth, [scopes.READ])
    assert tokens.refresh_token is not None
    refresh = await auth.provider.load_refresh_token(client, tokens.refresh_token)
    assert refresh is not None
    await auth.provider.revoke_token(refresh)
    assert await auth.provider.load_access_token(tokens.access_token) is None


async def test_a_token_for_another_resource_is_not_issued(auth: HomeAuth) -> None:
    client = await register(auth, "tablet", "Kitchen Tablet")
    with pytest.raises(AuthorizeError) as refused:
        await consent_request(auth, client, resource="https://elsewhere.example/mcp")
    assert refused.value.error == "invalid_target"
    assert await consent_request(auth, client, resource=ISSUER + "/mcp/")  # the same URL, spelled otherwise


async def test_admin_is_offered_only_when_the_service_has_admin(tmp_path: Path, clock: Clock) -> None:
    for admin in (False, True):
        auth = build_home_auth(tmp_path / str(admin), ISSUER, clock=clock, admin=admin)
        try:
            client = await register(auth, "tablet", "Kitchen Tablet")
            found = auth.provider.store.pending(await consent_request(auth, client), clock())
            assert found is not None
            assert (scopes.ADMIN in found[2]["scopes"]) is admin and scopes.DOORS in found[2]["scopes"]
        finally:
            auth.close()


async def test_registration_is_bounded(auth: HomeAuth, clock: Clock) -> None:
    many = [AnyUrl(f"http://127.0.0.1:1/{n}") for n in range(MAX_REDIRECT_URIS + 1)]
    with pytest.raises(RegistrationError):
        await auth.provider.register_client(OAuthClientInformationFull(client_id="x", redirect_uris=many))
    for n in range(MAX_UNAPPROVED):
        await register(auth, f"c{n}", "Spam")
    with pytest.raises(RegistrationError):
        await register(auth, "one-too-many", "Spam")
    clock.now += 25 * 3600  # a day later the unapproved ones are forgotten
    await register(auth, "welcome", "Phone")
    assert await auth.provider.get_client("c0") is None


async def test_an_approved_client_is_listed_in_words_and_revoked_by_name(
    auth: HomeAuth, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, tokens = await approve_client(auth, [scopes.READ, scopes.DOORS])
    assert clients_command.main(["--state-dir", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("Kitchen Tablet may read the home and work the doors, garage doors, gates")
    assert "approved " in listed and "last used " in listed and "home:" not in listed
    assert clients_command.main(["--state-dir", str(tmp_path), "revoke", "kitchen  tablet"]) == 0
    assert capsys.readouterr().out == "Kitchen Tablet is no longer approved: its next call is refused.\n"
    assert await auth.provider.load_access_token(tokens.access_token) is None
    assert await auth.provider.get_client("tablet") is None
    assert clients_command.main(["revoke", "Kitchen Tablet", "--state-dir", str(tmp_path)]) == 1
    assert "no approved client is named" in capsys.readouterr().err
    assert clients_command.main(["--state-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("No client is approved yet")


def test_the_passphrase_is_kept_only_as_a_slow_hash() -> None:
    stored = hash_passphrase("correct horse battery", CHEAP)
    assert stored.startswith("scrypt$1024$8$1$") and "correct" not in stored
    assert verify_passphrase("correct horse battery", stored)
    assert not verify_passphrase("correct horse batter", stored)
    assert not verify_passphrase("x", "damaged") and not verify_passphrase("x" * 5000, stored)
    assert hash_passphrase("same", CHEAP) != hash_passphrase("same", CHEAP)  # salted


def test_passphrase_command_reads_stdin_and_writes_only_the_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert passphrase_command.main(["--state-dir", str(tmp_path)]) == 2
    assert "at least 8 characters" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("tulips in the hallway\n"))
    assert passphrase_command.main(["--state-dir", str(tmp_path)]) == 0
    said = capsys.readouterr()
    assert said.out == "The passphrase is set; the consent page asks for it from now on.\n"
    assert "tulips" not in said.out + said.err
    store = open_store(tmp_path)
    try:
        stored = store.get_meta(META_KEY)
    finally:
        store.close()
    assert stored is not None and verify_passphrase("tulips in the hallway", stored)
    kept = b"".join(path.read_bytes() for path in tmp_path.glob(FILE_NAME + "*"))
    assert b"tulips" not in kept
    assert (tmp_path / FILE_NAME).stat().st_mode & 0o077 == 0


def test_failed_attempts_are_limited_and_forgotten_after_the_window(clock: Clock) -> None:
    attempts = FailedAttempts(AttemptLimit(failures=3, window_s=60), clock)
    for _ in range(3):
        assert attempts.start() == 0
        attempts.finish(failed=True)
        clock.now += 1
    assert attempts.start() == pytest.approx(57)
    clock.now += 57
    assert attempts.start() == 0
    attempts.finish(failed=False)  # a right one costs nothing
    assert attempts.start() == 0


def test_guesses_sent_at_once_cannot_outrun_the_count(clock: Clock) -> None:
    """Twenty attempts arriving together (each still being checked): only the budget's worth is heard."""
    attempts = FailedAttempts(AttemptLimit(failures=5, window_s=60), clock)
    heard = [attempts.start() == 0 for _ in range(20)]
    assert heard.count(True) == 5
    for _ in range(5):
        attempts.finish(failed=True)
    assert attempts.start() > 0


def test_the_page_escapes_and_bounds_outside_text_and_leaves_doors_unticked() -> None:
    hostile = '<script>alert("x")</script>\u202e' + "A" * 500
    name = client_name(OAuthClientInformationFull(client_id="x", client_name=hostile, redirect_uris=None))
    assert len(name) <= CLIENT_NAME_MAX and "\u202e" not in name
    assert len(redirect_host("https://" + "h" * 300 + ".example/cb")) <= HOST_MAX
    page = consent_page(
        client=name,
        redirect_uri='https://evil.example"><img src=x>/cb',
        offered=list(scopes.ALL_SCOPES),
        request_id="r",
        csrf="c",
        action="consent",
    )
    assert "<script>" not in page and "&lt;script&gt;" in page and "<img" not in page
    assert "<script" not in page.lower().replace("&lt;script", "")
    for scope in scopes.ALL_SCOPES:
        ticked = f'value="{scope}" checked>' in page
        assert ticked == (scope in scopes.DEFAULT_TICKED), scope
    assert 'type="password"' in page and 'name="csrf" value="c"' in page


async def test_what_strangers_can_make_stays_bounded(auth: HomeAuth, clock: Clock) -> None:
    """Consent requests (anyone may open /authorize) and used refresh tokens (a grant refreshed for months)
    keep a bounded number of rows."""
    client = await register(auth, "tablet", "Kitchen Tablet")
    for _ in range(MAX_PENDING + 50):
        await consent_request(auth, client)
    assert auth.provider.store._read("SELECT count(*) FROM pending")[0][0] == MAX_PENDING
    client, tokens = await approve_client(auth, [scopes.READ], client_id="phone", name="Phone")
    for _ in range(200):
        assert tokens.refresh_token is not None
        loaded = await auth.provider.load_refresh_token(client, tokens.refresh_token)
        assert loaded is not None
        tokens = await auth.provider.exchange_refresh_token(client, loaded, loaded.scopes)
        clock.now += ACCESS_TTL_S
    kept = auth.provider.store._read("SELECT count(*) FROM tokens WHERE kind='refresh'")[0][0]
    assert kept <= REUSE_KEPT_S / ACCESS_TTL_S + 2
