"""Errors of the device domain; each message is one sentence the caller can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zwave_mcp.errors import UserError

if TYPE_CHECKING:
    from zwave_mcp.devices.model import Device


class DeviceNotFound(UserError):
    """No device fits the name; `suggestions` are the closest device names (maybe none)."""

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.suggestions = suggestions or []


class AmbiguousDevice(UserError):
    """Several devices fit the name; `candidates` lists them so the caller can say which one."""

    def __init__(self, message: str, candidates: list[Device]) -> None:
        super().__init__(message)
        self.candidates = candidates


class ActionNotSupported(UserError):
    """The device cannot do the action; `actions` are the ones it can."""

    def __init__(self, message: str, actions: list[str]) -> None:
        super().__init__(message)
        self.actions = actions


class InvalidValue(UserError):
    """A level, setpoint, mode or colour the device does not accept (out of range, unknown name, …)."""


class StateUnknown(UserError):
    """The action depends on the current state (toggle, relative level) and the device has not reported it."""


class StillLoading(UserError):
    """zwave-js-ui has not sent the device's values yet (`ZNode.loading`): nothing can be said or done
    about it until it does, and it is not a device that "only reports readings"."""

    def __init__(self, name: str) -> None:
        super().__init__(still_loading(name))


def still_loading(name: str) -> str:
    """ "Kitchen Light is still loading: …"; `name` is the sentence's subject ("Kitchen Light (Kitchen)
    exists but")."""
    return f"{name} is still loading: zwave-js-ui has not sent its values yet; ask again in a few seconds."


class AliasFileError(ValueError):
    """The alias file cannot be used; the message says which file and what is wrong."""
