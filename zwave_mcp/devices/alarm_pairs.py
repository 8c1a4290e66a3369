"""The legacy Alarm v1 pair (Notification `alarmType`/`alarmLevel`) of older devices, read as the state it
stands for: zwave-js's device files map each pair of a model to a notification event
(`compat.alarmMapping`), and zwave-js reads the device so. A model's map is the template of its discovery
row (`kinds/sensor.py`); `readings` reads the pair through it. Pure.

Source: zwave-js `packages/config/config/devices/0x0138/zcombo.json` and `zsmoke.json` at `8fcdc4073`
(the First Alert / BRK ZCOMBO and ZSMOKE, whose Notification CC is version 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zwave_mcp.gateway.model import ValueState, ZValue

# What a notification event is, for the events the maps name: (notification type, event) → (type name,
# variable, state label), as zwave-js's notification definitions (`core/src/registries/Notifications.ts`)
# call them; event 0 is "idle" of the type's sensor status.
_EVENTS: dict[tuple[int, int], tuple[str, str, str]] = {
    (1, 0): ("Smoke Alarm", "Sensor status", "idle"),
    (1, 2): ("Smoke Alarm", "Sensor status", "Smoke detected"),
    (1, 3): ("Smoke Alarm", "Alarm status", "Smoke alarm test"),
    (2, 0): ("CO Alarm", "Sensor status", "idle"),
    (2, 2): ("CO Alarm", "Sensor status", "Carbon monoxide detected"),
}


@dataclass(frozen=True, slots=True)
class AlarmPairs:
    """A model's map of (alarm type, alarm level) → (notification type, event)."""

    pairs: Mapping[tuple[int, int], tuple[int, int]]

    def as_notification(self, alarm_type: ZValue, alarm_level: ZValue | None) -> ZValue | None:
        """The pair the device last reported, as the Notification value zwave-js makes of it (under the
        alarm type's id, with its time); None when it has not reported one the model's file maps."""
        level = None if alarm_level is None else alarm_level.value
        kind, raw = alarm_type.value, level
        if not isinstance(kind, int) or not isinstance(raw, int):
            return None
        event = self.pairs.get((kind, raw))
        if event is None or event not in _EVENTS:
            return None
        name, variable, state = _EVENTS[event]
        return ZValue(
            alarm_type.value_id,
            alarm_type.node_id,
            alarm_type.command_class,
            "Notification",
            alarm_type.endpoint,
            name,
            variable,
            label=variable,
            type="number",
            states=[ValueState(event[1], state)],
            cc_specific={"notificationType": event[0]},
            value=event[1],
            last_update_ms=alarm_type.last_update_ms,
        )


_SMOKE = {(1, 255): (1, 2), (1, 0): (1, 0), (12, 255): (1, 3), (12, 0): (1, 0), (13, 255): (1, 0)}
ZSMOKE = AlarmPairs(_SMOKE)
ZCOMBO = AlarmPairs({**_SMOKE, (2, 255): (2, 2), (2, 0): (2, 0)})
