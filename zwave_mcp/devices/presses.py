"""Buttons and remotes: a Central Scene press (or a Scene Activation) in words. Pure.

zwave-js reports a press as the value `scene` of Central Scene with the button as its propertyKey ("001",
"002", …) and the key attribute as the value (0 pressed, 1 released, 2 held down, 3 pressed twice, 4 three
times, … up to 6); Scene Activation reports `sceneId`, the scene number. Both are momentary
(`gateway.model.is_momentary`): the press is the event, there is no state to read.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC

# Central Scene key attributes (zwave-js `CentralSceneKeys`) → what happened to the button.
KEY_ATTRIBUTES = {
    0: "pressed",
    1: "released",
    2: "held",
    3: "pressed twice",
    4: "pressed 3 times",
    5: "pressed 4 times",
    6: "pressed 5 times",
}


@dataclass(frozen=True, slots=True)
class Press:
    button: int | None  # 1, 2, …; None when the device did not number it
    kind: str  # "pressed", "held", "pressed twice", "activated" (a scene)
    scene: bool = False  # a Scene Activation rather than a button

    @property
    def subject(self) -> str:
        """ "button 2", "scene 3", "a button"."""
        if self.button is None:
            return "a scene" if self.scene else "a button"
        return f"{'scene' if self.scene else 'button'} {self.button}"

    def words(self) -> str:
        """ "button 2 was held"."""
        return f"{self.subject} was {self.kind}"


def is_press(value: ZValue) -> bool:
    return (value.command_class, value.property) in (
        (CC.CENTRAL_SCENE, "scene"),
        (CC.SCENE_ACTIVATION, "sceneId"),
    )


def press_values(device: Device) -> list[ZValue]:
    """The device's buttons: its press values, whether or not discovery gave them a role (a press is
    the node's, on the device's endpoint)."""
    endpoint = device.endpoint
    on_endpoint = (v for v in device.node.values.values() if endpoint is None or v.endpoint == endpoint)
    found = {v.value_id: v for v in itertools.chain(device.all_values(), on_endpoint) if is_press(v)}
    return list(found.values())


def last_press(device: Device) -> tuple[Press, int] | None:
    """The device's latest press the live picture holds, and when the gateway received it (ms since the
    epoch); None when it holds none with a time."""
    found = [
        (press, v.last_update_ms)
        for v in press_values(device)
        if v.last_update_ms is not None and (press := press_of(v, v.value)) is not None
    ]
    return max(found, key=lambda pair: pair[1]) if found else None


def press_of(value: ZValue, raw: Any) -> Press | None:
    """The press a report of `value` is, or None (no press value, or a report that is no press)."""
    if not is_press(value) or not _whole(raw):
        return None
    if value.command_class == CC.SCENE_ACTIVATION:
        return Press(raw, "activated", scene=True)
    return Press(button_of(value), KEY_ATTRIBUTES.get(raw, "pressed"))


def button_of(value: ZValue) -> int | None:
    """Central Scene's propertyKey "002" → 2 (a number, or digits as zwave-js writes them)."""
    key = value.property_key
    if _whole(key) or (isinstance(key, str) and key.strip().isdigit() and len(key) < 6):
        return int(key)  # type: ignore[arg-type]
    return None


def _whole(raw: Any) -> bool:
    return isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < 1000
