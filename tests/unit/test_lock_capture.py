"""The real gateway's keypad-lock captures replayed into the picture: codes never kept, lock events heard.

`capture_locks_a` (named topics, time-value) and `capture_locks_b` (ValueID topics, raw) hold what zwave-js-ui
11.22.2 published while codes were read, added, changed and deleted on a User Code lock (12) and a User
Credential lock (13), and while the locks were unlocked by keypad, by hand, remotely, locked themselves,
jammed and had their keypad disabled (captures' README, "Keypad locks").
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from tests.codes_in import without_chance_numbers
from tests.unit.test_replay_data import api_calls, capture, getnodes, locks_getnodes
from zwave_mcp.gateway.api import ApiClient
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics

# Every code of the lock captures (made-up test values), but the ones too short to be told from other
# numbers ("12", "61", "70").
PINS = (
    "4821", "7359", "2468", "1357", "90210", "8642", "97531", "3141", "80808",
    "6060", "7070", "5150", "6161", "2222", "4444", "5555", "1111", "2323", "7171", "12345678901",
)  # fmt: skip


def strings(obj: Any) -> list[str]:
    """Every string inside `obj` (dict keys too), however deep."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in strings(k) + strings(v)]
    if isinstance(obj, list | tuple | set):
        return [s for item in obj for s in strings(item)]
    if hasattr(obj, "__slots__") or hasattr(obj, "__dict__"):
        names = getattr(obj, "__slots__", None) or vars(obj)
        return [s for name in names for s in strings(getattr(obj, name, None))]
    return []


def leaks(obj: Any) -> list[str]:
    # By substring, as strict as can be, but not in a correlation id: its 12 random hex digits can hold one.
    return sorted({pin for s in strings(obj) for pin in PINS if pin in without_chance_numbers(s)})


def replay(key: str) -> tuple[Inventory, list[InventoryEvent], list[tuple[str, str, list[Any]]]]:
    inv = Inventory(GatewayTopics())
    inv.load_nodes(getnodes() + locks_getnodes())
    changes: list[InventoryEvent] = []
    events: list[tuple[str, str, list[Any]]] = []
    inv.add_listener(changes.append)
    inv.add_event_listener(lambda scope, name, data: events.append((scope, name, data)))
    for msg in capture(key):
        inv.apply(msg["topic"], msg["payload"].encode(), retain=msg["retain"])
    return inv, changes, events


def test_the_captures_hold_the_codes() -> None:
    """What the test searches for is really there (else it would find nothing for the wrong reason)."""
    text = json.dumps(capture("locks_a")) + json.dumps(locks_getnodes())
    assert [pin for pin in PINS if pin not in text] == ["80808"]  # the User Credential admin PIN: never


def test_getnodes_keeps_no_code() -> None:
    inv = Inventory(GatewayTopics())
    inv.load_nodes(locks_getnodes())
    assert leaks(inv.nodes) == []
    code = inv.value("12-99-0-userCode-1")
    assert code is not None and code.value is None  # the slot's value exists, its code does not
    assert inv.value("12-99-0-userIdStatus-1").value == 1  # whether it is in use stays known


@pytest.mark.parametrize("key", ["locks_a", "locks_b"])
def test_replayed_captures_keep_no_code(key: str) -> None:
    inv, changes, events = replay(key)
    assert leaks(inv.nodes) == []
    assert leaks(changes) == []
    assert leaks(list(inv.history)) == []
    assert leaks(events) == []  # what event listeners (inclusion, interviews) are handed


@pytest.mark.parametrize("key", ["locks_a", "locks_b"])
def test_lock_events_are_heard_once_each(key: str) -> None:
    _inv, changes, _events = replay(key)
    heard = [(c.node_id, c.new["event"], c.new.get("userId")) for c in changes if c.kind == "lock"]
    if key == "locks_a":
        assert heard[:6] == [
            (12, "keypad_unlock", 3),
            (12, "keypad_lock", 1),
            (12, "manual_unlock", None),
            (12, "manual_lock", None),
            (12, "rf_unlock", None),
            (12, "auto_lock", None),
        ]
        assert (13, "keypad_unlock", 2) in heard
        assert (13, "invalid_credential", None) in heard
    else:
        assert heard == [
            (12, "keypad_unlock", 3),
            (12, "manual_lock", None),
            (13, "keypad_unlock", 2),
            (13, "manual_lock", None),
        ]
    # zwave-js-ui tells each event twice (its topic, then node_notification): one InventoryEvent each.
    assert len(heard) == len(
        [m for m in capture(key) if m["topic"].endswith("/node/node_notification")
         and '"label":"Access Control"' in m["payload"]]
    )  # fmt: skip


def test_names_come_from_the_locks_access_control() -> None:
    """getNodes' `accessControl` names the users of the User Credential lock (13): its events say who."""
    inv, changes, _events = replay("locks_a")
    assert inv.nodes[13].access.user(2).name == "Bob"
    bob = next(c for c in changes if c.kind == "lock" and c.node_id == 13 and c.new.get("userId") == 2)
    assert bob.new["userName"] == "Bob"
    slot = next(c for c in changes if c.kind == "lock" and c.node_id == 12 and c.new.get("userId") == 3)
    assert "userName" not in slot.new  # a User Code lock names nobody


@pytest.mark.parametrize("key", ["locks_a", "locks_b"])
def test_api_replies_reach_callers_without_codes(key: str) -> None:
    """Every recorded access-control reply, PIN echoed in `args` and `origin` and codes in the result,
    reaches the caller without them."""
    records = [r for r in api_calls(key) if r.get("kind") == "api" and r["api"].startswith("accessControl")]
    assert records

    async def run() -> list[Any]:
        sent: list[tuple[str, str]] = []

        class Transport:
            connected = True

            def publish(self, topic: str, payload: Any, qos: int = 0, retain: bool = False) -> None:
                sent.append((topic, payload))

            async def wait_connected(self, timeout: float) -> bool:
                return True

            def unavailable_text(self) -> str:
                return ""

        client = ApiClient(Transport(), GatewayTopics())
        replies = []
        for record in records:
            args = json.loads(record["request_payload"])["args"]
            call = asyncio.ensure_future(client.call(record["api"], *args, timeout=1))
            await asyncio.sleep(0)
            correlation = json.loads(sent[-1][1])["zwaveMcpId"]
            reply = json.loads(record["response_payload"])
            if isinstance(reply.get("origin"), dict):
                reply["origin"]["zwaveMcpId"] = correlation
            client.handle_reply(record["api"], json.dumps(reply).encode())
            answer = await call
            replies.append((answer.success, answer.message, answer.result, answer.raw))
        return replies

    replies = asyncio.run(run())
    assert len(replies) == len(records)
    assert leaks(replies) == []
    states = [r[2] for r in replies if isinstance(r[2], dict) and r[2].get("endpoints")]
    assert states and all("slot" in c for s in states for c in s["endpoints"][0]["credentials"])


@pytest.mark.parametrize("key", ["locks_a", "locks_b"])
@pytest.mark.parametrize("without", ["node_notification", "/Access_Control/"])
def test_either_telling_alone_is_enough(key: str, without: str) -> None:
    """With manually configured topics there is no event topic; with events off no node_notification:
    each alone gives the same lock events."""
    _inv, everything, _events = replay(key)
    inv = Inventory(GatewayTopics())
    inv.load_nodes(getnodes() + locks_getnodes())
    changes: list[InventoryEvent] = []
    inv.add_listener(changes.append)
    for msg in capture(key):
        if without in msg["topic"] and not msg["retain"]:
            continue
        inv.apply(msg["topic"], msg["payload"].encode(), retain=msg["retain"])
    assert [(c.node_id, c.new) for c in changes if c.kind == "lock"] == [
        (c.node_id, c.new) for c in everything if c.kind == "lock"
    ]


@pytest.mark.parametrize(
    "payload",
    [b"", b"null", b"[]", b'{"userId": "3"}', b'{"userId": 1e400}',
     b'{"userId": -1}', b'{"userId": 99999999}', b"\xff\xfe", b"{" * 10_000, b'{"value": 3}', b"7"],
)  # fmt: skip
def test_odd_event_payloads_give_the_event_without_a_user(payload: bytes) -> None:
    from zwave_mcp.gateway.lock_events import from_topic

    event = from_topic("notification/endpoint_0/Access_Control/Keypad_unlock_operation", payload)
    assert event is not None and event.kind.key == "keypad_unlock" and event.user_id is None


def test_events_that_are_not_a_locks_are_not_lock_events() -> None:
    from zwave_mcp.gateway.lock_events import from_notification, from_topic

    assert from_topic("notification/endpoint_0/Home_Security/Motion_detection", b"{}") is None
    assert from_topic("notification/endpoint_0/Access_Control/Window-door_is_open", b"{}") is None
    assert (
        from_notification(
            113, {"type": 7, "event": 8, "label": "Home Security", "eventLabel": "Motion detection"}
        )
        is None
    )
    assert from_notification(111, {"eventType": 2, "eventData": "1234"}) is None
    assert from_notification(113, {"type": 6, "event": True, "label": "Access Control"}) is None


def test_a_lock_that_names_its_users_is_read_again_before_its_event_is_named() -> None:
    """Issue 44 item 2: another client renamed Bob (user 2 of the User Credential lock 13) to Eve, which
    never shows on MQTT; the event must be named from the users read again, or not named at all."""
    now = [1_000.0]
    inv = Inventory(GatewayTopics(), clock=lambda: now[0])
    inv.load_nodes(getnodes() + locks_getnodes())
    asked: list[tuple[int, Any]] = []
    inv.reread_users = lambda node_id, then: asked.append((node_id, then))
    changes: list[InventoryEvent] = []
    inv.add_listener(changes.append)
    now[0] += 60.0  # the users read with the load are a minute old
    for msg in capture("locks_b"):
        inv.apply(msg["topic"], msg["payload"].encode(), retain=msg["retain"])
    heard = [(c.node_id, c.new["event"], c.new.get("userId")) for c in changes if c.kind == "lock"]
    assert (13, "keypad_unlock", 2) not in heard, "not named before the users were read again"
    assert (12, "keypad_unlock", 3) in heard and (13, "manual_lock", None) in heard  # no name to read
    assert [node for node, _ in asked] == [13]
    bob = inv.nodes[13].access
    eve = dataclasses.replace(
        bob, users=tuple(dataclasses.replace(u, name="Eve") if u.user_id == 2 else u for u in bob.users)
    )
    inv.set_access(13, eve)  # what the read brings
    asked[0][1](True)
    assert changes[-1].new == {"event": "keypad_unlock", "userId": 2, "userName": "Eve"}
    asked[0][1](False)  # a read that failed: the event is said, without a name it cannot trust
    assert changes[-1].new == {"event": "keypad_unlock", "userId": 2}
    # Read two seconds ago: the same events again are named at once, without another read.
    now[0] += 2.0
    for msg in capture("locks_b"):
        inv.apply(msg["topic"], msg["payload"].encode(), retain=msg["retain"])
    again = [c.new for c in changes if c.kind == "lock" and c.node_id == 13 and c.new.get("userId") == 2]
    assert len(asked) == 1 and again[-1] == {"event": "keypad_unlock", "userId": 2, "userName": "Eve"}
