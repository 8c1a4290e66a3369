"""zwave-mcp survives zwave-js-ui's restarts and the broker's, in every order (issue 19).

The simulator plays them as the real gateway does (captures README, "Observed later on the real
gateway"): APIs answer "Z-Wave client not connected" until the driver is ready, getNodes lists the nodes
without values for a while after that, a crash leaves a stale retained `driver/status` true, and a
restarted broker (no persistence) gets only the client status and version back. Each scenario ends with
a confirmed control of the Kitchen Light and honest health within 20 s of the gateway being ready.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import anyio
import paho.mqtt.publish as publish
import pytest
from mcp import Client

from tests.integration.mcp_harness import Answer, call, connected, settings_for, sim_value
from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.simulator.settings import FAST

# The recovery bounds (a confirmed control within 20 s of the gateway being ready) depend on how fast the
# broker delivers; the embedded amqtt broker, shared by the whole session, falls behind under the suite's
# load (PUBACK timeouts), so these scenarios run on Mosquitto, as on a real home's broker.
pytestmark = [pytest.mark.integration, pytest.mark.mosquitto_only]

RECOVERY_S = 20.0  # after the gateway is ready again (the acceptance bound)
# Fast, but with an empty-getNodes window long enough that a client loading once at driver ready sees it.
TIMING = replace(FAST, driver_ready=0.5, nodes_ready=0.8, restart_downtime=0.2)
NEWS_S = 0.2  # how long zwave-mcp may take to hear that zwave-js-ui went or came (see `health_watched`)
DEVICES = 10  # the captured house without the controller (and the virtual broadcast node)


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(SimConfig.fast(timing=TIMING))


async def sim_ready_again(sim: Simulator, timeout: float = 15.0) -> float:
    """When the simulated zwave-js-ui is connected and its nodes are ready (monotonic seconds)."""
    deadline = time.monotonic() + timeout
    while not (sim.ready.is_set() and sim.online):
        if time.monotonic() > deadline:
            raise AssertionError("the simulator did not come back")
        await anyio.sleep(0.01)
    return time.monotonic()


async def honest_health(client: Client, by: float) -> Answer:
    """Health that says all is well, and why: driver ready, every device known, nothing waited for."""
    while True:
        health = await call(client, "check_zwave_health")
        gateway = health.result["gateway"]
        if (
            health.result["healthy"]
            and gateway["online"] is True
            and gateway["driverReady"] is True
            and gateway.get("waitingFor") is None
            and sum(health.result["nodes"].values()) == DEVICES
            and "starting" not in health.text
        ):
            return health
        if time.monotonic() > by:
            raise AssertionError(f"health never became honest: {health.text} {health.result}")
        await anyio.sleep(0.05)


async def confirmed_control(client: Client, sim: Simulator) -> Answer:
    want_on = not sim_value(sim, 2, 37, "currentValue")
    action = "on" if want_on else "off"
    answer = await call(client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": action})
    assert not answer.is_error, answer.text
    assert answer.outcome == "confirmed", answer.text
    assert sim_value(sim, 2, 37, "currentValue") is want_on
    return answer


def usable(sim: Simulator) -> bool:
    """The truth: zwave-js-ui is on the broker and its driver is ready (its API answers)."""
    return sim.online and sim.driver_up


@asynccontextmanager
async def health_watched(client: Client, sim: Simulator) -> AsyncIterator[None]:
    """Ask for health every 50 ms while the body runs; fail if it ever said something untrue: healthy
    while zwave-js-ui was away or its driver not ready, or blaming the settings while zwave-js-ui was on
    the broker. A truth counts once it has held for `NEWS_S` (the news has to travel through the broker)
    and until the call was answered."""
    untrue: list[str] = []
    changed = {"usable": time.monotonic(), "online": time.monotonic()}
    last = {"usable": usable(sim), "online": sim.online}

    def settled(name: str, now: bool) -> bool:
        """`now` is the truth and has been for a while."""
        if now != last[name]:
            last[name] = now
            changed[name] = time.monotonic()
        return time.monotonic() - changed[name] > NEWS_S

    async def watch() -> None:
        while True:
            is_usable, is_online = usable(sim), sim.online
            not_usable = settled("usable", is_usable) and not is_usable
            online = settled("online", is_online) and is_online
            health = await call(client, "check_zwave_health")
            if health.result["healthy"] and not_usable and not usable(sim):
                untrue.append(f"healthy while zwave-js-ui was not usable: {health.text}")
            if online and sim.online and "prefix and name settings" in health.text:
                untrue.append(f"blamed the settings while zwave-js-ui was online: {health.text}")
            await anyio.sleep(0.05)

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        yield
        group.cancel_scope.cancel()
    assert not untrue, untrue[:3]


async def recovers(client: Client, sim: Simulator) -> None:
    ready = await sim_ready_again(sim)
    await honest_health(client, ready + RECOVERY_S)
    await confirmed_control(client, sim)
    assert time.monotonic() - ready < RECOVERY_S


def restart_by_topic(sim: Simulator, mode: str) -> None:
    """The simulator's own trigger, as a person trying the demo would use it (mosquitto_pub)."""
    publish.single(sim.restart_topic, mode, qos=1, hostname=sim.host, port=sim.port)


async def wait_down(sim: Simulator) -> None:
    for _ in range(500):
        if not sim.ready.is_set():
            return
        await anyio.sleep(0.01)
    raise AssertionError("the simulator never went down")


async def restart(order: str, sim: Simulator, mosquitto: Any) -> None:
    """Play one restart order and return once it is under way (not once it is over)."""
    if order in ("graceful", "crash"):
        restart_by_topic(sim, order)
        await wait_down(sim)
    elif order == "broker":
        await anyio.to_thread.run_sync(mosquitto.restart)
    elif order == "both":
        await anyio.to_thread.run_sync(mosquitto.kill)
        await anyio.to_thread.run_sync(sim.crash)
        await anyio.to_thread.run_sync(mosquitto.start)
        await anyio.to_thread.run_sync(lambda: sim.start(wait=False))
    else:
        raise ValueError(order)


ORDERS = ("graceful", "crash", "broker", "both")


@pytest.mark.parametrize("order", ORDERS)
async def test_restart_while_zwave_mcp_runs(order: str, mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        await confirmed_control(client, sim)
        async with health_watched(client, sim):
            await restart(order, sim, mosquitto)
            await recovers(client, sim)


@pytest.mark.parametrize("order", ORDERS)
async def test_zwave_mcp_started_after_a_restart(order: str, mosquitto: Any, sim: Simulator) -> None:
    await restart(order, sim, mosquitto)
    async with connected(settings_for(mosquitto, sim), wait=False) as client, health_watched(client, sim):
        await recovers(client, sim)


async def test_zwave_mcp_started_after_a_broker_restart_sees_the_driver_ready(
    mosquitto: Any, sim: Simulator
) -> None:
    """Without persistence the broker lost `driver/status`; zwave-js-ui re-published only its client
    status and version. The API answers, so the driver is ready: health must not say "starting"."""
    await anyio.to_thread.run_sync(mosquitto.restart)
    await sim_ready_again(sim)
    await anyio.sleep(TIMING.restart_downtime)
    async with connected(settings_for(mosquitto, sim), wait=False) as client:
        await recovers(client, sim)


async def test_zwave_mcp_started_before_zwave_js_ui(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    sim = simulator_factory(SimConfig.fast(timing=TIMING), start=False)
    settings = settings_for(mosquitto, sim, api_timeout=1.0)
    async with connected(settings, wait=False) as client, health_watched(client, sim):
        await anyio.sleep(1.5)  # its first getNodes found nobody to answer
        await anyio.to_thread.run_sync(lambda: sim.start(wait=False))
        await recovers(client, sim)


async def test_health_says_what_it_waits_for_in_the_empty_window(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    slow = replace(TIMING, nodes_ready=3.0)
    sim = simulator_factory(SimConfig.fast(timing=slow))
    async with connected(settings_for(mosquitto, sim)) as client:
        restart_by_topic(sim, "graceful")
        await wait_down(sim)
        deadline = time.monotonic() + 5
        seen: list[str] = []
        while time.monotonic() < deadline:
            health = await call(client, "check_zwave_health")
            seen.append(health.text)
            if "none of its 10 devices is ready yet" in health.text:
                assert not health.result["healthy"]
                assert health.result["gateway"]["waitingFor"] == "10 of 10 devices to be ready"
                control = await call(
                    client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"}
                )
                assert control.is_error and "none of its 10 devices is ready yet" in control.text
                break
            await anyio.sleep(0.05)
        else:
            raise AssertionError(f"health never said what it waits for: {seen[-5:]}")
        await recovers(client, sim)


async def test_sentence_agrees_with_the_result_after_a_crash_restart(mosquitto: Any, sim: Simulator) -> None:
    """Issue 19: the first control after a crash-restart, asked "on", answered "now off" while the result
    said confirmed, reported true."""
    async with connected(settings_for(mosquitto, sim)) as client:
        off = await call(client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "off"})
        assert off.outcome == "confirmed"
        await restart("crash", sim, mosquitto)
        await honest_health(client, await sim_ready_again(sim) + RECOVERY_S)
        on = await call(client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"})
        assert on.outcome == "confirmed" and on.result["reported"] is True, on.text
        assert on.text == "Done: Kitchen Light is now on, as the device reported."


async def test_sentence_agrees_with_the_result_when_a_reload_comes_during_the_control(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """Why the real gateway said "now off": the network was reloaded while the control waited for the
    light (zwave-js-ui had just come back), and the sentence read the device as resolved before the
    reload, whose value objects no longer change."""
    sim = simulator_factory(SimConfig.fast(timing=replace(TIMING, write_unsupervised=0.6)))
    async with connected(settings_for(mosquitto, sim)) as client:
        async with anyio.create_task_group() as group:
            answers: list[Answer] = []

            async def control() -> None:
                answers.append(
                    await call(
                        client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"}
                    )
                )

            group.start_soon(control)
            await anyio.sleep(0.2)  # the write is on its way (its reply comes after 0.6 s)
            # zwave-js-ui (re)connects to the broker: its status comes live, and the network is reloaded.
            sim.publish(
                f"{sim.config.prefix}/_CLIENTS/ZWAVE_GATEWAY-{sim.config.name}/status", '{"value":true}'
            )
        (on,) = answers
        assert on.outcome == "confirmed" and on.result["reported"] is True, on.text
        assert on.text == "Done: Kitchen Light is now on, as the device reported."


async def test_a_device_not_up_yet_is_still_loading_not_one_that_only_reports_readings(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """Issue 30: after a restart the nodes come up one by one; a getNodes in between lists some with their
    values and the others empty. A control of an empty one answered "Kitchen Light cannot be controlled;
    it only reports readings"; it is still loading, in the control, the list and the state."""
    sim = simulator_factory(SimConfig.fast(timing=TIMING))
    # After the restart: the controller, then the one sleeping node (Bedroom Sensor), then Kitchen Light…,
    # 2 s apart.
    sim.timing = replace(TIMING, node_ready_gap=2.0)
    loading = (
        "Kitchen Light is still loading: zwave-js-ui has not sent its values yet; ask again in a few seconds."
    )
    async with connected(settings_for(mosquitto, sim)) as client:
        restart_by_topic(sim, "graceful")
        await wait_down(sim)
        deadline = time.monotonic() + 10
        while True:  # until a load has the sensor's values and not yet the light's
            listing = await call(client, "list_zwave_devices")
            types = {} if listing.is_error else {d["name"]: d["type"] for d in listing.result["devices"]}
            if "Kitchen Light" in types and types["Kitchen Light"] is None and types.get("Bedroom Sensor"):
                break
            assert time.monotonic() < deadline, f"never saw the light empty and the sensor up: {listing.text}"
            await anyio.sleep(0.05)
        light = next(d for d in listing.result["devices"] if d["name"] == "Kitchen Light")
        assert light["state"] == "still loading", light
        assert "Kitchen Light (still loading)" in listing.text, listing.text
        control = await call(client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"})
        assert control.is_error and control.error == loading, control.text
        state = await call(client, "get_device_state", {"deviceName": "Kitchen Light"})
        assert state.text == loading
        # Once it is up, it is switched as usual.
        while True:
            control = await call(
                client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"}
            )
            if not control.is_error:
                break
            assert control.error == loading and time.monotonic() < deadline + 10, control.text
            await anyio.sleep(0.1)
        assert control.outcome == "confirmed", control.text
