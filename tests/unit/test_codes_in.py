"""The tests' code finder: a PIN found as a number of its own, never inside a timestamp or a port."""

from __future__ import annotations

from tests.codes_in import shows_code

# An audit line from a CI run in which the old substring search "found" the PIN 4821 in the microseconds.
AUDIT = '{"time": "2026-11-27T17:11:41.148212+00:00", "tool": "manage_lock_users", "action": "rename_user"}'


def test_a_code_inside_a_longer_number_is_not_the_code() -> None:
    assert "4821" in AUDIT  # what the old check tripped on
    assert not shows_code(AUDIT, "4821")
    assert not shows_code("MQTT broker on 127.0.0.1:42580", "2580")


def test_a_code_of_its_own_is_found_wherever_it_stands() -> None:
    assert shows_code('{"pin": "4821"}', "4821")
    assert shows_code("code 4821.", "4821")
    assert shows_code("4821", "4821")
    assert shows_code("ＰＩＮ ４８２１", "４８２１")
