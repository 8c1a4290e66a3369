"""Codes are secrets (issue 37): a known PIN fed through every way zwave-js-ui publishes one is found nowhere.

The simulator serves the two keypad locks as zwave-js-ui 11.22.2 does, codes in clear (captures' README,
"Codes are published in clear"): retained `user_code/…/userCode/<slot>` and `adminCode` topics in each topic
and payload style, `node_value_updated` events with the new and the old code, the `getNodes` values, access
control credentials and events queue, the PIN echoed in access-control API replies, a notification whose
parameters carry the code (as other zwave-js settings give it) and a code typed at an Entry Control keypad.
The patio lock's codes come back in its own log's records (Door Lock Logging through `sendCommand`, each
with the code typed) and beside its code schedules. The PINs here are long and unlike any time or id, so
finding one means it leaked.

Searched: every tool answer (text and structured), every resource, the log records (what stderr gets),
the client's log notifications (`notifications/message`), the audit file, the history file (SQLite and its
write-ahead log, as bytes) and `zwave-mcp explain` on the live network and on the house file.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import warnings
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingMessageNotificationParams

from tests.integration.mcp_harness import call, settings_for, wait_for_answer, wait_until_healthy
from zwave_mcp.commands import explain
from zwave_mcp.logs import record_fields
from zwave_mcp.server.build import build_server
from zwave_mcp.simulator import FAST, Simulator, capture_config
from zwave_mcp.simulator.lock_extras import WRONG_CODE
from zwave_mcp.simulator.payloads import node_summary

pytestmark = pytest.mark.anyio

# The codes of the house (slots 1-4 and the admin code of the User Code lock, the User Credential lock's
# three PINs), those set while the test runs, and the ones that come another way.
HOUSE = {1: "8301946275", 2: "7291046358", 3: "6150392847", 4: "5049281736"}
ADMIN = "9402718365"
SIDE = {1: "49382710", 2: "38271609", 3: "27160598"}
SET_ON_LOCK, CHANGED_ON_LOCK = "2938475610", "3049586721"  # slot 5, as the lock's keypad would program it
IN_PARAMETERS = (
    "4059687132"  # a notification's parameters with the code (zwave-js lookupUserIdInNotificationEvents)
)
TYPED = "5160798243"  # typed at an Entry Control keypad
IN_QUEUE = "6172809354"  # an old code in getNodes' eventsQueue
ADDED_BACK, ADDED_SIDE = "1836492750", "19283746"  # added through zwave-mcp itself
# The patio lock's (Schedule Entry Lock, Door Lock Logging): its codes, and the wrong code its own log holds.
PATIO = {1: "2046813579", 2: "3157924680", 3: "4268035791", 4: "5379146802"}
PATIO_PINS = (*PATIO.values(), WRONG_CODE)
PINS = (
    *HOUSE.values(),
    ADMIN,
    *SIDE.values(),
    SET_ON_LOCK,
    CHANGED_ON_LOCK,
    IN_PARAMETERS,
    TYPED,
    IN_QUEUE,
    ADDED_BACK,
    ADDED_SIDE,
    *PATIO_PINS,
)


def secret_house(sim: Simulator) -> None:
    """The simulated locks hold the test's codes, everywhere zwave-js-ui keeps them."""
    back, side = sim.nodes[12], sim.nodes[13]
    for slot, pin in HOUSE.items():
        back["values"][f"99-0-userCode-{slot}"]["value"] = pin
    back["values"]["99-0-adminCode"]["value"] = ADMIN
    for credential in back["accessControl"]["endpoints"][0]["credentials"]:
        credential["data"] = HOUSE[credential["slot"]]
    for credential in side["accessControl"]["endpoints"][0]["credentials"]:
        credential["data"] = SIDE[credential["slot"]]
    for slot, pin in PATIO.items():
        sim.nodes[24]["values"][f"99-0-userCode-{slot}"]["value"] = pin
    back["eventsQueue"] = [
        {
            "time": "2026-11-27T09:55:58.328Z",
            "event": "value updated",
            "args": [
                {
                    "commandClassName": "User Code",
                    "commandClass": 99,
                    "endpoint": 0,
                    "property": "userCode",
                    "propertyKey": 6,
                    "newValue": "",
                    "prevValue": IN_QUEUE,
                }
            ],
        }
    ]


def leaks(text: str) -> list[str]:
    return [pin for pin in PINS if pin in text]


class Heard:
    def __init__(self) -> None:
        self.messages: list[LoggingMessageNotificationParams] = []

    async def __call__(self, params: LoggingMessageNotificationParams) -> None:
        self.messages.append(params)


async def agreed(client: Client, args: dict[str, Any]) -> list[Any]:
    asked = await call(client, "manage_lock_users", args)
    if asked.is_error:
        return [asked]
    token = asked.result.get("confirmationToken")
    done = await call(client, "manage_lock_users", {**args, "confirmationToken": token})
    return [asked, done]


@pytest.mark.parametrize("config", ["a", "b", "c"])
async def test_a_pin_is_found_nowhere(
    mosquitto: Any,
    simulator_factory: Any,
    collector: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    config: str,
) -> None:
    sim: Simulator = simulator_factory(
        config=capture_config(config, timing=FAST, periodic=False), house="captured+locks", start=False
    )
    secret_house(sim)
    house_file = tmp_path / "house.json"
    house_file.write_text(json.dumps(list(sim.nodes.values())))
    wire = collector(f"{sim.config.prefix}/#")
    sim.start()
    caplog.set_level(logging.DEBUG)
    audit, history = tmp_path / "audit.jsonl", tmp_path / "history.sqlite3"
    settings = settings_for(
        mosquitto, sim, audit_file=str(audit), history_path=str(history), log_level="debug", admin=True
    )
    heard = Heard()
    answers: list[Any] = []
    resources: list[str] = []
    server = build_server(settings)
    async with Client(server, mode="legacy", logging_callback=heard) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level("debug")
        await wait_until_healthy(client)
        back = sim.nodes[12]
        # The lock's own keypad programs a code into slot 5, then changes it: the retained topic and
        # node_value_updated with the new and the old code.
        slot5 = back["values"]["99-0-userCode-5"]
        sim.set_value(back, back["values"]["99-0-userIdStatus-5"], 1)
        sim.set_value(back, slot5, SET_ON_LOCK)
        sim.set_value(back, slot5, CHANGED_ON_LOCK)
        # A keypad unlock whose parameters carry the code, and a code typed at an Entry Control keypad.
        sim.lock_event(12, "keypad_unlock", 5, extra={"userCode": IN_PARAMETERS})
        sim.event(
            "node",
            "node_notification",
            [node_summary(back), 111, {"eventType": 2, "dataType": 2, "eventData": TYPED}],
        )
        sim.lock_event(13, "keypad_unlock", 1)
        await wait_for_answer(
            client, "get_recent_events", {"minutes": 5}, lambda a: "Side Door Lock was unlocked" in a.text
        )
        # zwave-mcp adds a user with a PIN on each lock (the access-control API: the PIN in the request,
        # echoed in the reply's args and origin, then in the User Code topic and event).
        answers += await agreed(
            client, {"deviceName": "back door", "action": "add", "user": "6", "pin": ADDED_BACK}
        )
        answers += await agreed(
            client, {"deviceName": "side door", "action": "add", "name": "Dog Walker", "pin": ADDED_SIDE}
        )
        # PINs refused (too long for the User Credential lock; Alice's PIN again): their errors, too.
        answers += await agreed(
            client,
            {"deviceName": "side door", "action": "change_pin", "user": "Dog Walker", "pin": ADDED_BACK},
        )
        answers += await agreed(
            client, {"deviceName": "side door", "action": "change_pin", "user": "Dog Walker", "pin": SIDE[1]}
        )
        # A code schedule set with the yes, taken away again, and the patio lock's own log read (its
        # records carry the code typed, in sendCommand's replies).
        when = {"deviceName": "patio door", "user": "3"}
        answers += await agreed(
            client, {**when, "action": "schedule", "days": "Tue", "start": "9", "end": "12"}
        )
        answers += await agreed(client, {**when, "action": "schedule", "end": "Sunday"})
        answers += await agreed(client, {**when, "action": "unschedule"})
        for tool, args in (
            ("manage_lock_users", {"action": "log", "deviceName": "patio door"}),
            ("manage_lock_users", {"action": "log", "deviceName": "patio door", "period": "today"}),
            ("manage_lock_users", {"action": "schedules"}),
            ("list_zwave_devices", {}),
            ("list_zwave_devices", {"kind": "lock"}),
            ("get_device_state", {"deviceName": "back door lock"}),
            ("get_device_state", {"deviceName": "side door lock"}),
            ("get_device_sensor_data", {"deviceName": "back door lock"}),
            ("verify_device", {"deviceName": "back door lock"}),
            ("get_recent_events", {"minutes": 30}),
            ("get_recent_events", {"minutes": 30, "deviceName": "back door lock"}),
            ("get_device_history", {"period": "today"}),
            ("get_device_history", {"deviceName": "back door lock", "period": "today"}),
            ("get_last_event", {"deviceName": "back door lock"}),
            ("get_last_event", {"user": "Dog Walker"}),
            ("check_zwave_health", {}),
            ("get_zwave_node_details", {"deviceName": "back door lock"}),
            ("list_zwave_config_parameters", {"deviceName": "back door lock"}),
            ("manage_lock_users", {}),
            ("manage_lock_users", {"deviceName": "back door"}),
        ):
            answers.append(await call(client, tool, args))
        for resource in (await client.list_resources()).resources:
            read = await client.read_resource(str(resource.uri))
            resources.append(read.model_dump_json())
        for key in ("12", "13"):
            read = await client.read_resource(f"zwave://devices/{key}")
            resources.append(read.model_dump_json())
    # The server has stopped: the history file holds all it wrote.

    monkeypatch.setenv("ZWAVE_MCP_MQTT_URL", mosquitto.url)
    monkeypatch.setenv("ZWAVE_MCP_PREFIX", sim.config.prefix)
    explained = []
    for argv in ([], ["--json"], ["--house", str(house_file)], ["--house", str(house_file), "--json"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            import anyio

            code = await anyio.to_thread.run_sync(explain.main, argv)
        assert code == 0, out.getvalue()
        explained.append(out.getvalue())
    assert "Back Door Lock" in explained[0] and "Back Door Lock" in explained[2]

    # What the test searches for really went over MQTT (else it would find nothing for the wrong reason).
    published = "\n".join(m.topic + " " + m.payload for m in wire.snapshot())
    assert [pin for pin in PINS if pin not in published] == []

    said = [a.text + json.dumps(a.envelope) for a in answers]
    assert any("Back Door Lock" in text for text in said)
    for text in said:
        assert leaks(text) == [], text[:400]
    for text in resources:
        assert leaks(text) == [], text[:400]
    logged = "\n".join(json.dumps(record_fields(r), default=str) for r in caplog.records)
    assert leaks(logged) == []
    notified = json.dumps([m.model_dump() for m in heard.messages], default=str)
    assert leaks(notified) == []
    assert audit.exists() and leaks(audit.read_text()) == []
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("history.sqlite3*"))
    assert stored and [pin for pin in PINS if pin.encode() in stored] == []
    for text in explained:
        assert leaks(text) == [], text[:400]
    # The lock still said who came in (the code's slot), and zwave-mcp knew which slots are in use.
    assert "Back Door Lock was unlocked with the keypad by user 5" in "".join(said)
