"""The gate sweep (issue 12): every action × every device of the captured house (and a scene) × each policy
{deny, hide, confirm_actions, confirm_devices, forbid_sensitive, read-only}, on Mosquitto + the simulator,
with everything the process publishes recorded on the broker.

For every call: exactly one audit line; a write request leaves only when that line says the gate let the
change through (not refused, declined, needing confirmation or a dry run); and the policy's own promise
holds (the denied, hidden, confirm-listed and sensitive changes never write). One simulator for the sweep,
a small confirmation wait: it runs in seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import call, connected, settings_for
from tests.integration.test_safety import ACTION_ARGS
from tests.integration.test_tools import HOUSE
from zwave_mcp.policy.outcome import NOT_SENT, Outcome
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = pytest.mark.integration

C = "control_zwave_device"
S = "activate_zwave_scene"
WRITE_APIS = ("writeValue", "_activateScene")
SCENE_VALUES = [
    {"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue", "value": True},
    {"nodeId": 5, "commandClass": 98, "endpoint": 0, "property": "targetMode", "value": 0},
]


def never_writes(policy: str, device: str, action: str) -> bool:
    """What each policy promises never to write (the sweep's own oracle, independent of the gate)."""
    if policy == "read_only" or device == "scene":  # the scene unlocks the door: never without a yes
        return True
    if policy == "deny":
        return device == "Kitchen Light"
    if policy == "hide":
        return device == "Front Door Lock"
    if policy == "confirm_actions":  # "on": anything that switches on (levels above 0, toggle from off)
        return action in ("on", "dim", "set_level")
    if policy == "confirm_devices":
        return device == "Living Room Lamp"
    if policy == "forbid_sensitive":
        return action == "unlock"
    raise AssertionError(policy)


POLICIES: dict[str, dict[str, Any]] = {
    "deny": {"deny": "Kitchen Light"},
    "hide": {"hide": "Front Door Lock"},
    "confirm_actions": {"confirm_actions": "on"},
    "confirm_devices": {"confirm_devices": "Living Room Lamp"},
    "forbid_sensitive": {"forbid_sensitive": True},
    "read_only": {"read_only": True},
}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False))
    sim.add_scene("Leave home", SCENE_VALUES)
    return sim


def write_requests(traffic: MessageCollector) -> list[str]:
    return [
        m.topic
        for m in traffic.snapshot()
        if m.topic.rpartition("/api/")[2] in {f"{a}/set" for a in WRITE_APIS}
    ]


def wait_count(traffic: MessageCollector, count: int, timeout: float = 2.0) -> int:
    deadline = time.monotonic() + timeout
    while len(write_requests(traffic)) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    return len(write_requests(traffic))


async def test_no_write_leaves_unless_the_gate_allowed_it(
    mosquitto: Any,
    sim: Simulator,
    collector: Callable[[str], MessageCollector],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    traffic = collector(f"{sim.config.prefix}/#")  # everything on the gateway's prefix, requests included
    calls = 0
    for policy, extra in POLICIES.items():
        settings = settings_for(mosquitto, sim, confirm_timeout=0.2, **extra)
        async with connected(settings) as client:
            plan: list[tuple[str, str, dict[str, Any]]] = [
                (name, action, {"deviceName": name, "action": action, **ACTION_ARGS.get(action, {})})
                for name, (_room, actions) in HOUSE.items()
                for action in actions
            ]
            plan.append(("scene", "activate", {"scene": "Leave home"}))
            for device, action, args in plan:
                before_lines = len([r for r in caplog.records if r.name == "zwave_mcp.audit"])
                before_writes = len(write_requests(traffic))
                answer = await call(client, S if device == "scene" else C, args)
                lines = [r for r in caplog.records if r.name == "zwave_mcp.audit"][before_lines:]
                what = f"{policy}: {device} {action} → {answer.text}"
                assert len(lines) == 1, f"{what}: {len(lines)} audit lines"
                outcome = Outcome(lines[0].outcome)  # type: ignore[attr-defined]
                # The gate's own records name the devices; a call that ended before it (no such device) not.
                allowed = outcome not in NOT_SENT and getattr(lines[0], "device_key", None) is not None
                if never_writes(policy, device, action):
                    assert not allowed, what
                written = (
                    wait_count(traffic, before_writes + 1, timeout=2.0 if allowed else 0.0) - before_writes
                )
                assert written == (1 if allowed else 0), f"{what}: {written} write requests, audit {outcome}"
                if not answer.is_error and answer.outcome == "confirmed":
                    # The sentence and the structured result come from one source: they agree.
                    assert answer.text.startswith(("Done", "Scene")), what
                calls += 1
    time.sleep(0.2)
    total_allowed = sum(
        1
        for r in caplog.records
        if r.name == "zwave_mcp.audit"
        and Outcome(r.outcome) not in NOT_SENT  # type: ignore[attr-defined]
        and getattr(r, "device_key", None) is not None
    )
    assert len(write_requests(traffic)) == total_allowed, "a write left that no allowed attempt accounts for"
    assert calls == len(POLICIES) * (sum(len(a) for _r, a in HOUSE.values()) + 1) > 200
