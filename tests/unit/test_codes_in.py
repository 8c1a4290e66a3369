"""The tests' code finder: a PIN found as a number of its own, never inside a timestamp or a port."""

from __future__ import annotations

from tests.codes_in import shows_code, without_chance_numbers

# An audit line from a CI run in which the old substring search "found" the PIN 4821 in the microseconds.
AUDIT = '{"time": "2026-11-27T17:11:41.148212+00:00", "tool": "manage_lock_users", "action": "rename_user"}'


def test_a_code_inside_a_longer_number_is_not_the_code() -> None:
    assert "4821" in AUDIT  # what the old check tripped on
    assert not shows_code(AUDIT, "4821")
    assert not shows_code("MQTT broker on 127.0.0.1:42580", "2580")


def test_a_client_id_or_the_brokers_port_holds_no_code() -> None:
    # A pid of 4821 (pid_max is 32768 on many machines), a random part with 4821 in it, a port of 34567.
    logged = "MQTT connected as zwave-mcp-4821-a4821f3c (lane zwave-mcp-9795-00b3363a-control)"
    assert shows_code(logged.replace("zwave-mcp-", "user-"), "4821")  # what the old check found
    assert not shows_code(logged, "4821")
    assert not shows_code("MQTT broker on 127.0.0.1:34567 refused", "34567")
    assert shows_code("zwave-mcp-9795-00b3363a says 4821", "4821")  # beside an id, a code is still found


def test_a_code_of_its_own_is_found_wherever_it_stands() -> None:
    assert shows_code('{"pin": "4821"}', "4821")
    assert shows_code("code 4821.", "4821")
    assert shows_code("4821", "4821")
    assert shows_code("ＰＩＮ ４８２１", "４８２１")


def test_a_correlation_id_holds_no_code() -> None:
    # The API client's zwaveMcpId, echoed in a reply's origin: random hex that held 3141 in a CI run.
    reply = '{"origin": {"zwaveMcpId": "ab3141cd02ef-7"}, "result": "ok"}'
    assert "3141" in reply and shows_code(reply.replace("-7", "x"), "3141")  # what the old checks found
    assert "3141" not in without_chance_numbers(reply)
    assert not shows_code(reply, "3141")
    assert shows_code('{"zwaveMcpId": "ab3141cd02ef-7", "pin": "3141"}', "3141")
