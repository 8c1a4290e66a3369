"""The kinds of device, one module each, as Home Assistant keeps a platform in one file: what the kind
reads and says, its actions and their planners, what a write to it amounts to, its discovery rows and its
typed template (a frozen dataclass a model's row fills).

`KINDS` is the table `control`, `describe`, the gate and `build` find a kind's parts in (`KindSpec`),
in `model.KIND_ORDER`: a device that is two kinds is said and controlled as the first. No kind imports
those modules; the write vocabulary they share is `devices.writes`, below them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from zwave_mcp.devices.kinds import cover, fan, light, lock, sensor, siren, switch, thermostat, valve
from zwave_mcp.devices.kinds.base import KindSpec

KINDS: tuple[KindSpec, ...] = (
    lock.KIND,
    thermostat.KIND,
    cover.KIND,
    valve.KIND,
    fan.KIND,
    siren.KIND,
    light.KIND,
    switch.KIND,
    sensor.KIND,
)

T = TypeVar("T")


def first_answer(ask: Callable[[KindSpec], T | None]) -> T | None:
    """The first kind's answer that is not None (a kind answers None for what is not its own)."""
    for kind in KINDS:
        if (answer := ask(kind)) is not None:
            return answer
    return None
