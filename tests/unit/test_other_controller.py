"""A second controller on the network (issue 43 item 4): another hub sits in the house as a node of the
Static Controller class with only Basic values; main listed it as a switch ("Home Center is on") and said
a switch's Basic report raw ("Home Center is now 255"). No public dump of such a node was found (Home
Assistant's `controller_node_state.json` is the Static Controller class of a stick, with no values): the
node is written here with zwave-js's Basic values."""

from __future__ import annotations

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.gate.evidence import spoken_value
from zwave_mcp.devices.model import Capability
from zwave_mcp.gateway.model import ZNode, ZValue


def basic(node_id: int, value: int) -> dict[str, ZValue]:
    values = [
        ZValue(f"{node_id}-32-0-currentValue", node_id, 32, "Basic", 0, "currentValue", label="Current value", type="number", value=value),
        ZValue(f"{node_id}-32-0-targetValue", node_id, 32, "Basic", 0, "targetValue", label="Target value", type="number", writeable=True, value=value),
    ]  # fmt: skip
    return {v.value_id: v for v in values}


def test_another_hub_is_no_switch() -> None:
    hub = ZNode(30, name="Home Center", generic_class=2, specific_class=1, values=basic(30, 255))
    assert build_devices([hub]) == []


def test_a_basic_switch_reports_on_not_255() -> None:
    """A node of a switch class whose only values are Basic is a switch: its report of 255 is "on"."""
    node = ZNode(31, name="Porch Relay", generic_class=0x10, specific_class=1, values=basic(31, 255))
    (relay,) = build_devices([node])
    assert relay.kind == Capability.SWITCH
    current = node.values["31-32-0-currentValue"]
    assert spoken_value(relay, current, 255) == "on" and spoken_value(relay, current, 0) == "off"


def test_a_remote_of_a_controller_class_is_still_a_device() -> None:
    """Only a Static Controller (a hub) is left out: a portable controller's Basic is its presses."""
    remote = ZNode(32, name="Hall Remote", generic_class=1, specific_class=1, values=basic(32, 0))
    assert len(build_devices([remote])) == 1
