"""The simulator's network-care APIs through `NetworkAdmin`, on Mosquitto: S2 inclusion with the PIN,
a wrong PIN, S0, SmartStart from a QR code, exclusion, failed nodes, health checks and route rebuilds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.gateway import admin as ga
from zwave_mcp.gateway.admin import AdminApiFailed, NetworkAdmin
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.simulator.admin import NewDevice, make_qr, parse_qr
from zwave_mcp.simulator.simulator import Simulator

pytestmark = pytest.mark.integration


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory()


@pytest.fixture
async def admin(mosquitto: Any, sim: Simulator) -> AsyncIterator[NetworkAdmin]:
    settings = Settings(mqtt_url=mosquitto.url, prefix=sim.config.prefix, api_timeout=3.0, admin=True)
    gw = ZwaveGateway(settings)
    network = NetworkAdmin(gw)
    gw.start()
    assert await gw.wait_ready(10), gw.unavailable_reason()
    yield network
    await gw.stop()


async def until(network: NetworkAdmin, phase: str, timeout: float = 5.0) -> ga.InclusionProgress:
    deadline = time.monotonic() + timeout
    while network.progress.phase != phase:
        left = deadline - time.monotonic()
        assert left > 0, f"never reached {phase}: {network.progress}"
        await network.wait(network.progress.version, left)
    return network.progress


async def node_known(network: NetworkAdmin, node_id: int, timeout: float = 5.0) -> None:

    deadline = time.monotonic() + timeout
    while (node := network.gateway.inventory.node(node_id)) is None or not node.values:
        assert time.monotonic() < deadline, f"node {node_id} never loaded"
        await asyncio.sleep(0.02)


async def test_s2_inclusion_with_the_pin(admin: NetworkAdmin, sim: Simulator) -> None:
    device = sim.admin.press_button(NewDevice(name="Porch Motion", location="Porch"))
    assert await admin.start_inclusion(ga.STRATEGY["s2"], {}).run() is True
    progress = await until(admin, ga.GRANT)
    assert progress.requested_classes == [1, 0] and progress.node_id == 12
    await admin.grant_security_classes(progress.requested_classes, False).run()
    progress = await until(admin, ga.DSK)
    assert progress.partial_dsk == device.dsk[5:]
    await admin.validate_dsk(device.pin).run()
    await until(admin, ga.READY)
    await node_known(admin, 12)
    node = admin.gateway.inventory.node(12)
    assert node is not None and node.name == "Porch Motion" and node.details["security"] == "S2_Authenticated"
    assert node.find_value(112, 2) is not None  # its configuration parameters came with the interview


async def test_wrong_pin_leaves_the_node_without_security(admin: NetworkAdmin, sim: Simulator) -> None:
    sim.admin.press_button(NewDevice())
    await admin.start_inclusion(ga.STRATEGY["default"], {}).run()
    progress = await until(admin, ga.GRANT)
    await admin.grant_security_classes(progress.requested_classes, False).run()
    await until(admin, ga.DSK)
    await admin.validate_dsk("00000").run()
    await until(admin, ga.READY)
    await node_known(admin, 12)
    node = admin.gateway.inventory.node(12)
    assert node is not None and node.details["security"] == "None" and node.details["isSecure"] is False


async def test_smart_start_from_a_qr_code(admin: NetworkAdmin, sim: Simulator) -> None:
    device = NewDevice(
        name="Attic Sensor", location="Attic", dsk="11111-22222-33333-44444-55555-66666-77777-88888"
    )
    qr = make_qr(device.dsk, [1])
    assert parse_qr(qr)["dsk"] == device.dsk
    parsed = (await admin.parse_qr(qr))["parsed"]
    entry = await admin.provision({**parsed, "name": "Attic Sensor", "location": "Attic"}).run()
    assert entry["dsk"] == device.dsk and entry["securityClasses"] == [1]
    entries = (await admin.gateway.call("getProvisioningEntries")).result
    assert [e["dsk"] for e in entries] == [device.dsk]
    sim.admin.press_button(device)  # powered on: SmartStart includes it without a question
    await until(admin, ga.READY)
    await node_known(admin, 12)
    node = admin.gateway.inventory.node(12)
    assert node is not None and node.location == "Attic" and node.details["security"] == "S2_Authenticated"


async def test_bad_qr_code_is_refused(admin: NetworkAdmin) -> None:
    with pytest.raises(AdminApiFailed, match="Invalid QR code"):
        await admin.parse_qr("90" + "1" * 60)


async def test_exclusion_and_failed_nodes(admin: NetworkAdmin, sim: Simulator) -> None:
    sim.admin.press_button_to_leave(2)
    assert await admin.start_exclusion().run() is True
    progress = await until(admin, ga.EXCLUDED)
    assert progress.removed_node and progress.removed_node["id"] == 2
    with pytest.raises(AdminApiFailed, match="has not failed"):
        await admin.remove_failed(3, timeout=3).run()
    sim.kill_node(3)
    assert await admin.is_failed(3) is True
    await admin.remove_failed(3, timeout=3).run()
    assert 3 not in sim.nodes


async def test_health_checks_and_rebuilds(admin: NetworkAdmin, sim: Simulator) -> None:
    lifeline = await admin.lifeline_health(2, 3, timeout=5).run()
    assert lifeline["targetNodeId"] == 1 and len(lifeline["results"]) == 3 and lifeline["rating"] >= 9
    route = await admin.route_health(2, 3, 2, timeout=5).run()
    assert route["targetNodeId"] == 3 and len(route["results"]) == 2
    assert await admin.rebuild_node_routes(2, timeout=5).run() is True
    assert await admin.begin_rebuilding_routes().run() is True
    assert await admin.stop_rebuilding_routes().run() is True
    assert await admin.stop_rebuilding_routes().run() is False  # nothing left to stop
    assert await admin.begin_rebuilding_routes().run() is True
    status = await admin.info_status()
    assert "Rebuild Routes" in status["cntStatus"]
    assert 1 in await admin.neighbours(2)


async def test_replace_failed_node_keeps_its_id(admin: NetworkAdmin, sim: Simulator) -> None:
    sim.kill_node(8)
    sim.admin.press_button(NewDevice(name="New Plug", location="Kitchen", requested=[0]))
    assert await admin.replace_failed(8, ga.STRATEGY["s2"], {}).run() is True
    progress = await until(admin, ga.GRANT)
    assert progress.node_id == 8
    await admin.grant_security_classes(progress.requested_classes, False).run()
    await until(admin, ga.READY)
    assert sim.nodes[8]["name"] == "New Plug" and sim.nodes[8]["security"] == "S2_Unauthenticated"
