"""ZwaveGateway against a real Mosquitto and the zwave-js-ui simulator.

Each test gets its own topic prefix, so tests sharing one broker never see each other's traffic.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from zwave_mcp.config import Settings
from zwave_mcp.gateway.api import CORRELATION_KEY, ApiTimeout, ApiUnavailable, SetValueStatus
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.simulator.simulator import Simulator

pytestmark = pytest.mark.integration

_prefixes = itertools.count(1)


@pytest.fixture
def broker(mosquitto: Any) -> Any:
    """The session's broker (conftest `mosquitto`); tests that stop it start it again."""
    return mosquitto


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    """A started simulator on a prefix of its own (conftest `simulator_factory` stops it afterwards)."""
    return simulator_factory()


@pytest.fixture
def prefix(sim: Simulator) -> str:
    return sim.config.prefix


def make_settings(broker: Any, prefix: str, **extra: Any) -> Settings:
    return Settings(mqtt_url=broker.url, prefix=prefix, api_timeout=3.0, **extra)


@pytest.fixture
async def gateway(broker: Any, prefix: str, sim: Simulator) -> AsyncIterator[ZwaveGateway]:
    gw = ZwaveGateway(make_settings(broker, prefix))
    gw.start()
    assert await gw.wait_ready(10), f"gateway never loaded: {gw.unavailable_reason()}"
    yield gw
    await gw.stop()


def sim_value(sim: Simulator, node_id: int, value_id: str) -> dict[str, Any]:
    values = sim.nodes[node_id]["values"]
    for value in values.values() if isinstance(values, dict) else values:
        if value.get("id") == value_id:
            return value
    raise AssertionError(f"simulator has no value {value_id}")


class ChangeWatch:
    """Collects inventory changes and awaits one matching a predicate (no polling)."""

    def __init__(self, gw: ZwaveGateway) -> None:
        self._event = asyncio.Event()
        self.changes: list[InventoryEvent] = []
        self.arrived: dict[int, float] = {}  # id(change) → time.monotonic() when the gateway applied it
        self.unsubscribe = gw.inventory.add_listener(self._on_change)

    def _on_change(self, change: InventoryEvent) -> None:
        self.changes.append(change)
        self.arrived[id(change)] = time.monotonic()
        self._event.set()

    async def wait_for(self, predicate: Any, timeout: float, what: str) -> InventoryEvent:
        deadline = asyncio.get_running_loop().time() + timeout
        seen = 0
        while True:
            for change in self.changes[seen:]:
                if predicate(change):
                    return change
            seen = len(self.changes)
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"no change {what} within {timeout} s; saw {self.changes[-5:]}")
            self._event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), remaining)


async def test_start_returns_at_once_then_loads(broker: Any, prefix: str, sim: Simulator) -> None:
    gw = ZwaveGateway(make_settings(broker, prefix))
    started = time.perf_counter()
    gw.start()
    assert time.perf_counter() - started < 0.05, "start() must not wait for the broker"
    assert gw.unavailable_reason() is not None
    try:
        assert await gw.wait_ready(10), gw.unavailable_reason()
        assert set(gw.nodes) >= set(range(1, 12))
        assert gw.inventory.value("2-37-0-currentValue") is not None
        health = gw.health()
        assert health.ok and health.broker_connected and health.zwave_js_ui_online, health
        assert health.driver_ready is True
        assert health.app_version == "11.22.2"
        assert health.home_id is not None
        assert health.node_count == 10 and sum(health.nodes_by_status.values()) == 10
        assert health.last_message_age_s is not None and health.last_message_age_s < 5
        assert gw.unavailable_reason() is None
        sock = gw.transport._sock
        assert sock.getsockopt(__import__("socket").IPPROTO_TCP, __import__("socket").TCP_NODELAY) != 0
    finally:
        await gw.stop()


async def test_twenty_concurrent_calls_each_get_their_own_reply(gateway: ZwaveGateway) -> None:
    writes = [
        ({"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True, {254}),
        ({"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, False, {254}),
        ({"nodeId": 5, "commandClass": 98, "endpoint": 0, "property": "targetMode"}, 255, {255}),
        ({"nodeId": 99, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True, {2}),
        ({"nodeId": 11, "commandClass": 37, "endpoint": 1, "property": "targetValue"}, True, {254}),
        ({"nodeId": 11, "commandClass": 37, "endpoint": 2, "property": "targetValue"}, True, {254}),
        ({"nodeId": 8, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True, {254}),
    ]
    calls: list[tuple[str, list[Any]]] = [("getInfo", []) for _ in range(8)]
    calls += [("getNodes", []) for _ in range(5)]
    calls += [("writeValue", [vid, target]) for vid, target, _ in writes]
    assert len(calls) == 20
    replies = await asyncio.gather(*(gateway.call(api, *args, timeout=5) for api, args in calls))
    ids = {reply.raw["origin"][CORRELATION_KEY] for reply in replies}
    assert len(ids) == 20, "two calls were given the same reply"
    for (api, args), reply in zip(calls, replies, strict=True):
        assert reply.success, (api, reply.message)
        assert reply.raw["origin"]["args"] == args, f"{api} got a reply for other arguments"
        if api == "getInfo":
            assert isinstance(reply.result, dict) and "homeid" in reply.result
        elif api == "getNodes":
            assert isinstance(reply.result, list) and len(reply.result) >= 11
    for (vid, _, expected), reply in zip(writes, replies[13:], strict=True):
        assert reply.result["status"] in expected, (vid, reply.result)


async def test_write_failures_carry_status_and_gateway_message(gateway: ZwaveGateway) -> None:
    missing = await gateway.write_value(
        {"nodeId": 99, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True
    )
    assert missing.status is SetValueStatus.FAIL and not missing.succeeded
    assert missing.reply is not None and missing.reply.success, "the envelope says success even so"
    setpoint = gateway.inventory.value("6-67-0-setpoint-1")
    assert setpoint is not None
    invalid = await gateway.write_value(setpoint, "hot")
    assert invalid.status is SetValueStatus.INVALID_VALUE
    assert "must be of type" in invalid.message or "number" in invalid.message, invalid.message


async def test_a_write_to_what_the_device_lacks_fails_as_on_the_real_test_bed(gateway: ZwaveGateway) -> None:
    """zwave-js-ui 11.22.2 (zwave-js 15.29) on the real test bed: a command class the node lacks is a Fail
    without a message (zwave-js throws ZW0302, zwave-js-ui answers the Fail it started with), an endpoint it
    lacks is EndpointNotFound with zwave-js's message."""
    no_switch = await gateway.write_value(
        {"nodeId": 6, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True
    )
    no_parameters = await gateway.write_value(
        {"nodeId": 2, "commandClass": 112, "endpoint": 0, "property": 3}, 1
    )
    no_endpoint = await gateway.write_value(
        {"nodeId": 2, "commandClass": 37, "endpoint": 5, "property": "targetValue"}, False
    )
    assert [
        no_switch.reply and no_switch.reply.result,
        no_parameters.reply and no_parameters.reply.result,
    ] == [
        {"status": 2},
        {"status": 2},
    ]
    assert no_endpoint.reply is not None
    assert no_endpoint.reply.result == {"status": 3, "message": "Endpoint 5 does not exist on Node 2"}


async def test_write_then_wait_for_value(gateway: ZwaveGateway) -> None:
    light = gateway.inventory.value("2-37-0-currentValue")
    target = gateway.inventory.value("2-37-0-targetValue")
    assert light is not None and target is not None
    wanted = not bool(light.value)
    result = await gateway.write_value(target, wanted)
    assert result.succeeded, result
    seen = await gateway.waiters.value("2-37-0-currentValue", lambda v: v.value is wanted, timeout=3)
    assert seen is not None and seen.value is wanted


async def test_dry_run_publishes_nothing(broker: Any, prefix: str, sim: Simulator) -> None:
    spy_topics: list[str] = []
    arrived = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_message(client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        spy_topics.append(msg.topic)
        if msg.topic.endswith("getInfo/set"):
            loop.call_soon_threadsafe(arrived.set)

    spy = mqtt.Client(CallbackAPIVersion.VERSION2)
    spy.on_message = on_message
    spy.connect("127.0.0.1", broker.port)
    spy.subscribe(f"{prefix}/_CLIENTS/+/api/+/set")
    spy.loop_start()
    gw = ZwaveGateway(make_settings(broker, prefix, dry_run=True))
    gw.start()
    try:
        assert await gw.wait_ready(10)
        target = gw.inventory.value("2-37-0-targetValue")
        assert target is not None
        result = await gw.write_value(target, True)
        assert result.dry_run and result.status is None
        message = result.dry_run_message
        assert message is not None
        assert message["topic"] == f"{prefix}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/writeValue/set"
        assert message["payload"] == {"args": [target.api_value_id(), True]}
        await gw.call("getInfo")  # published after the dry-run write on the same ordered connection
        await asyncio.wait_for(arrived.wait(), 5)
        assert not any(t.endswith("writeValue/set") for t in spy_topics), spy_topics
    finally:
        spy.loop_stop()
        spy.disconnect()
        await gw.stop()


async def test_crash_and_graceful_stop_show_offline_within_a_second(
    broker: Any, prefix: str, gateway: ZwaveGateway, sim: Simulator
) -> None:
    watch = ChangeWatch(gateway)
    # crash() closes the socket as its last step, after joining paho's thread (up to 1 s): off the loop.
    await asyncio.to_thread(sim.crash)
    crashed = time.monotonic()
    await watch.wait_for(
        lambda c: c.value_id == "client_online" and c.new is False, 1.0, "to offline (last will)"
    )
    health = gateway.health()
    assert not health.zwave_js_ui_online and "last will" in health.zwave_js_ui_state
    assert "offline" in (gateway.unavailable_reason() or "")
    assert time.monotonic() - crashed < 1.0

    # Back again: the gateway reloads by itself, then a graceful stop leaves a stale online status.
    await asyncio.to_thread(sim.start)
    # driver/status stayed a stale `true` through the crash; the fresh client status is the sign.
    await watch.wait_for(lambda c: c.value_id == "client_online" and c.new is True, 5, "to online again")
    assert await gateway.wait_ready(5)
    assert gateway.health().zwave_js_ui_online
    stopped = time.monotonic()
    await asyncio.to_thread(sim.stop)  # publishes driver/status false first, then disconnects (slowly)
    # (The crash above already showed the driver not ready, while zwave-js-ui came back: only newer counts.)
    change = await watch.wait_for(
        lambda c: c.value_id == "driver_ready" and c.new is False and watch.arrived[id(c)] >= stopped,
        1.0,
        "to driver stopped",
    )
    assert watch.arrived[id(change)] - stopped < 1.0
    health = gateway.health()
    assert gateway.inventory.status.client_online is True, (
        "the retained status is stale after a graceful stop"
    )
    assert not health.zwave_js_ui_online
    assert "driver" in (gateway.unavailable_reason() or "")
    await asyncio.to_thread(sim.start)  # the fixture stops it again
    watch.unsubscribe()


async def test_broker_outage_reconnects_fast_and_resyncs(
    broker: Any, prefix: str, gateway: ZwaveGateway, sim: Simulator
) -> None:
    if not broker.is_mosquitto:
        pytest.skip("the embedded amqtt broker cannot be stopped and started again")
    await asyncio.to_thread(broker.kill)
    for _ in range(200):
        if not gateway.transport.connected:
            break
        await asyncio.sleep(0.01)
    assert not gateway.transport.connected
    assert "cannot reach the MQTT broker" in (gateway.unavailable_reason() or "")

    # Calls while the broker is down fail within their bound, never hang.
    started = time.monotonic()
    with pytest.raises(ApiUnavailable, match="cannot reach the MQTT broker"):
        await gateway.call("getInfo", timeout=1.0)
    assert time.monotonic() - started < 1.5

    # A change made while the broker is away (the simulator cannot publish it).
    plug = sim_value(sim, 8, "8-37-0-currentValue")
    new_state = not bool(plug.get("value"))
    sim.set_value(sim.nodes[8], plug, new_state)
    await asyncio.sleep(10)  # the outage itself is the scenario: ten seconds without a broker

    await asyncio.to_thread(broker.start)
    back = time.monotonic()
    assert await gateway.transport.wait_connected(5)
    assert time.monotonic() - back < 2.0, "reconnect took longer than 2 s after the broker came back"
    # The simulator's own paho reconnect backs off up to 120 s (zwave-js-ui retries every 3 s), so its
    # return is not ours to time; the inventory must follow as soon as it is back.
    assert await gateway.wait_ready(30), gateway.unavailable_reason()
    seen = await gateway.waiters.value("8-37-0-currentValue", lambda v: v.value is new_state, timeout=5)
    assert seen is not None, "the inventory did not catch up with the change made during the outage"
    # And live updates flow again after the reconnect.
    target = gateway.inventory.value("2-37-0-targetValue")
    assert target is not None
    result = await gateway.write_value(target, True)
    assert result.succeeded
    assert await gateway.waiters.value("2-37-0-currentValue", lambda v: v.value is True, timeout=3)


@pytest.mark.parametrize(
    "payload",
    [b"", b"\x00\xff\xfe garbage", b"{not json", b"[" * 50_000, b"x" * 3_000_000, b"null", b'{"value":'],
)
async def test_bad_payloads_never_break_the_gateway(
    broker: Any,
    prefix: str,
    gateway: ZwaveGateway,
    payload: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    before = gateway.inventory.value("6-67-0-setpoint-1")
    before_value = before.value if before else None
    base = f"{prefix}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui"
    topics = [
        f"{prefix}/Hallway/Hallway_Thermostat/thermostat_setpoint/endpoint_0/setpoint/1",
        f"{prefix}/Kitchen/Kitchen_Light/status",
        f"{base}/status",
        f"{prefix}/driver/status",
        f"{prefix}/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/node/node_value_updated",
        f"{base}/api/getInfo",
        f"{prefix}/no/such/topic/at/all",
    ]
    foreign_reply = json.dumps(
        {"success": True, "result": {}, "origin": {CORRELATION_KEY: "other-1", "args": []}}
    )
    pub = mqtt.Client(CallbackAPIVersion.VERSION2)
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    try:
        for topic in topics:
            pub.publish(topic, payload, qos=1).wait_for_publish(5)
        pub.publish(f"{base}/api/getInfo", foreign_reply, qos=1).wait_for_publish(5)
        # Our own call on the same broker proves the loop is alive and the messages were processed
        # (the broker forwards one publisher's messages in order, and ours come after).
        reply = await gateway.call("getInfo", timeout=5)
        assert reply.success
    finally:
        pub.loop_stop()
        pub.disconnect()
    assert gateway.transport.connected
    failures = [r for r in caplog.records if r.exc_info and r.name.startswith("zwave_mcp")]
    assert not failures, [r.getMessage() for r in failures]
    after = gateway.inventory.value("6-67-0-setpoint-1")
    assert after is not None
    if payload not in (b"", b"null"):  # garbage leaves the value alone; these two are valid raw payloads
        assert after.value == before_value


async def test_call_without_zwave_js_ui_times_out(broker: Any) -> None:
    gw = ZwaveGateway(make_settings(broker, f"nobody_home_{next(_prefixes)}"))
    gw.start()
    try:
        assert await gw.transport.wait_connected(5)
        started = time.monotonic()
        with pytest.raises(ApiTimeout, match=r"zwave-js-ui did not answer getInfo within 0.3 s"):
            await gw.call("getInfo", timeout=0.3)
        assert time.monotonic() - started < 0.6
        reason = gw.unavailable_reason()
        assert reason is not None and ("loading" in reason or "not answering" in reason)
    finally:
        await gw.stop()
