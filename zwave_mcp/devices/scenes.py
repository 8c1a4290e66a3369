"""A zwave-js-ui scene as the gate's `Change`: each of its values an effect, judged as a control call.

`_getScenes` gives each value as a ValueID with `value` (the target) and `timeout` (seconds before
zwave-js-ui writes it, see the captures README). A value is found in the inventory by its id; the effect's
words come from the value itself (`value_effect`), so a lock value in a scene is an unlock like any other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zwave_mcp.devices.gate import ActivateScene, Change, Effect, Expectation, value_effect
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.zwave.classes import CC

# The value that reports what a target value was set to.
_REPORTED_BY = {"targetValue": "currentValue", "targetMode": "currentMode", "targetState": "currentState"}


class UnknownSceneValue(Exception):
    """A scene value that is not in the inventory: it cannot be judged, so the scene is not run."""


def value_id_of(raw: dict[str, Any]) -> str:
    """zwave-js-ui's value id, "<node>-<cc>-<endpoint>-<property>[-<propertyKey>]"."""
    parts = [raw.get("nodeId"), raw.get("commandClass"), raw.get("endpoint") or 0, raw.get("property")]
    if raw.get("propertyKey") is not None:
        parts.append(raw.get("propertyKey"))
    return "-".join(str(p) for p in parts)


def scene_change(
    scene: dict[str, Any],
    nodes: dict[int, ZNode],
    device_of_value: Callable[[str], Device | None],
) -> Change:
    """The scene's `Change`; raises `UnknownSceneValue` naming what it cannot judge."""
    scene_id = int(scene["sceneid"])
    label = str(scene.get("label") or f"Scene {scene_id}")
    effects: list[Effect] = []
    later: list[float] = []
    for raw in scene.get("values") or []:
        if not isinstance(raw, dict):
            continue
        value_id = value_id_of(raw)
        node_id = raw.get("nodeId")
        node = nodes.get(node_id) if isinstance(node_id, int) else None
        value = node.values.get(value_id) if node is not None else None
        device = device_of_value(value_id)
        if value is None or device is None:
            raise UnknownSceneValue(value_id)
        target = raw.get("value")
        effects.append(value_effect(device, value, target, expect=_expectation(node, value, target)))
        timeout = raw.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            later.append(float(timeout))
    change = Change(
        "activate_zwave_scene",
        "activate_scene",
        f"activate scene '{label}'",
        effects,
        ActivateScene(scene_id),
        subject=f"scene {scene_id} '{label}'",
        argument=label,
    )
    change.details["headline"] = f"Scene '{label}' started"
    if later:
        # zwave-js-ui writes such values only after their own delay (seconds), usually after we stop watching.
        change.details["note"] = (
            f" Some of its values are set only after a delay of up to {max(later):g} s, so they cannot have "
            "reported yet."
        )
    return change


def _expectation(node: ZNode | None, value: ZValue, target: Any) -> Expectation:
    watch = value
    reported_by = _REPORTED_BY.get(str(value.property))
    if node is not None and reported_by is not None:
        watch = node.find_value(value.command_class, reported_by, value.endpoint, value.property_key) or value
    if value.command_class == CC.MULTILEVEL_SWITCH and target == 255:
        return Expectation(watch, None, "nonzero")
    return Expectation(watch, target)
