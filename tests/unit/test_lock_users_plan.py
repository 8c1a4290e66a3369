"""The lock-user planner alone (issue 37): the lock's rules, who a request means, what the confirmation is
bound to (the PIN only as a keyed hash), and what the policy asks for. Pure: the captured access-control state
of the two keypad locks, no broker."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.lock_users import find_user, lock_user_change, plan
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.access import LockUser, LockUsers, parse_state
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.policy import Policy
from zwave_mcp.policy.settings import PolicyConfig
from zwave_mcp.simulator.access import state
from zwave_mcp.simulator.house import keypad_locks

KEY = b"k" * 32


def mac(data: bytes) -> bytes:
    return hmac.new(KEY, data, hashlib.sha256).digest()


def lock(node_id: int) -> tuple[Any, LockUsers]:
    raw = next(n for n in keypad_locks() if n["id"] == node_id)
    node = parse_node(raw)
    assert node is not None
    device = next(d for d in build_devices([node]) if d.key == str(node_id))
    return device, parse_state(node_id, state(raw))


def test_the_state_keeps_who_and_which_slot_and_never_a_code() -> None:
    _, side = lock(13)
    assert [u.label for u in side.users] == ["Alice (user 1)", "Bob (user 2)", "Carol (user 3)"]
    assert side.rules is not None and (side.rules.pin_min, side.rules.pin_max) == (4, 8)
    assert side.rules.max_name_length == 16 and not side.user_code
    _, back = lock(12)
    assert back.user_code and back.rules is not None and back.rules.max_users == 10
    assert [(u.user_id, u.active) for u in back.users] == [(1, True), (2, True), (3, True), (4, False)]
    for pin in ("8642", "97531", "3141", "4821", "7359", "2468", "1357"):
        assert pin not in repr(side) + repr(back)


def test_who_a_request_means() -> None:
    _, side = lock(13)
    assert isinstance(found := find_user(side, "the bob"), LockUser) and found.user_id == 2
    assert find_user(side, "user 3") == side.user(3)
    assert find_user(side, "#９") == 9  # a number that is no user (yet), in full-width digits too
    assert find_user(side, "Dave") == -1
    assert find_user(side, None) is None


@pytest.mark.parametrize(
    ("node", "kwargs", "said"),
    [
        (
            13,
            {"name": "Dog Walker", "pin": "12"},
            "Side Door Lock takes PINs of 4 to 8 digits; that one has 2.",
        ),
        (12, {"pin": "12345678901"}, "Back Door Lock takes PINs of 4 to 10 digits; that one has 11."),
        (
            13,
            {"name": "Dog Walker", "pin": "12ab"},
            "A PIN for Side Door Lock is 4 to 8 digits (0-9) and nothing else.",
        ),
        (
            13,
            {"name": "A Very Long Name Indeed", "pin": "5150"},
            "Side Door Lock takes names of at most 16 characters",
        ),
        (12, {"user": "11", "pin": "5150"}, "Back Door Lock has users 1 to 10; there is no user 11."),
        (13, {"user": "1", "pin": "5150"}, "User 1 of Side Door Lock is Alice (user 1) already"),
    ],
)
def test_the_locks_own_rules_are_said_when_a_request_breaks_one(
    node: int, kwargs: dict[str, Any], said: str
) -> None:
    device, users = lock(node)
    with pytest.raises(UserError) as refused:
        plan(device, users, "add", mac=mac, **kwargs)
    assert refused.value.message.startswith(said), refused.value.message
    assert "12345678901" not in refused.value.message and "12ab" not in refused.value.message


def test_the_yes_is_bound_to_the_pin_as_a_keyed_hash_only() -> None:
    device, users = lock(13)
    first = lock_user_change("t", device, plan(device, users, "add", name="Dave", pin="5150", mac=mac))
    same = lock_user_change("t", device, plan(device, users, "add", name="Dave", pin="５１５０", mac=mac))
    other = lock_user_change("t", device, plan(device, users, "add", name="Dave", pin="5151", mac=mac))
    assert first.binding() == same.binding() != other.binding()
    for change in (first, other):
        assert "5150" not in change.binding() + repr(change.argument) + change.summary
        assert "5151" not in change.binding() + repr(change.argument) + change.summary
    messages = repr(first.sender.preview(first, _Gateway()))  # type: ignore[arg-type]
    assert "5150" not in messages and "(the PIN, not shown)" in messages


def test_what_the_policy_asks_for() -> None:
    device, users = lock(13)
    policy = Policy(PolicyConfig())
    asks = {
        action: policy.judge(
            device, next(iter(lock_user_change("t", device, p).effects)).words, action_text="x"
        )
        for action, p in (
            ("add", plan(device, users, "add", name="Dave", pin="5150", mac=mac)),
            ("disable", plan(device, users, "disable", user="Alice", mac=mac)),
            ("remove", plan(device, users, "remove", user="Bob", mac=mac)),
            ("enable", plan(device, users, "enable", user="Carol", mac=mac)),
            ("change_pin", plan(device, users, "change_pin", user="Bob", pin="5150", mac=mac)),
            ("rename", plan(device, users, "rename", user="Bob", name="Rob", mac=mac)),
        )
    }
    for action in ("add", "enable", "change_pin"):
        assert asks[action].why == "a code on the lock lets someone into the house", action
    for action in ("disable", "remove"):
        assert asks[action].why == "it takes away someone's way into the house", action
    assert asks["rename"].allowed


def test_nothing_is_planned_for_a_user_that_does_not_exist() -> None:
    device, users = lock(12)
    with pytest.raises(UserError) as refused:
        plan(device, users, "remove", user="8", mac=mac)
    assert refused.value.message.startswith(
        "There is no user 8 on Back Door Lock, so there is nothing to remove"
    )


class _Gateway:
    class api:
        @staticmethod
        def build_request(api: str, args: list[Any]) -> tuple[str, dict[str, Any]]:
            return f"zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/{api}/set", {"args": args}


def test_a_user_code_lock_without_the_api_is_changed_through_its_values_pin_unseen() -> None:
    from zwave_mcp.gateway.access import users_from_values
    from zwave_mcp.gateway.nodes import parse_node as parse

    raw = next(n for n in keypad_locks() if n["id"] == 12)
    node = parse(raw)
    assert node is not None
    device = next(d for d in build_devices([node]) if d.key == "12")
    users = users_from_values(node)
    assert users.from_values and users.user_code and [u.user_id for u in users.users] == [1, 2, 3, 4]
    change = lock_user_change("t", device, plan(device, users, "add", pin="5150", mac=mac))
    [message] = change.sender.preview(change, _Gateway())  # type: ignore[arg-type]
    assert message["topic"].endswith("/api/writeValue/set")
    assert message["payload"]["args"] == [
        {"nodeId": 12, "commandClass": 99, "endpoint": 0, "property": "userCode", "propertyKey": 5},
        "(the PIN, not shown)",
    ]
    off = lock_user_change("t", device, plan(device, users, "disable", user="2", mac=mac))
    assert off.sender.preview(off, _Gateway())[0]["payload"]["args"][1] == 2  # type: ignore[arg-type]
