"""Issue 42: the scope vocabulary is fixed in one module, and every scope has words for the consent page."""

from __future__ import annotations

from zwave_mcp.service import scopes


def test_the_names_are_the_issues() -> None:
    assert scopes.ALL_SCOPES == ("home:read", "home:control", "home:doors", "home:admin")
    assert (scopes.READ, scopes.CONTROL, scopes.DOORS, scopes.ADMIN) == scopes.ALL_SCOPES


def test_every_scope_is_said_in_words_and_the_doors_are_never_ticked_by_default() -> None:
    assert set(scopes.SCOPE_WORDS) == set(scopes.ALL_SCOPES) == set(scopes.SCOPE_ALLOWS)
    assert all(words.endswith(".") and ":" not in words for words in scopes.SCOPE_WORDS.values())
    assert scopes.DOORS not in scopes.DEFAULT_TICKED and scopes.ADMIN not in scopes.DEFAULT_TICKED


def test_known_keeps_only_this_services_scopes_in_order() -> None:
    assert scopes.known("home:doors openid home:read") == ["home:read", "home:doors"]
    assert scopes.known({"home:admin", "other"}) == ["home:admin"]
