"""Argument and result models of the public tools: the schemas clients see (camelCase, as the seeds name them).

Free text is bounded here (length) and checked again by the policy (control characters); nothing a caller
types ever becomes part of an MQTT topic: names are resolved through the inventory.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from zwave_mcp.answers import AnyJson, ToolResult
from zwave_mcp.devices.gate.core import GateResult
from zwave_mcp.devices.model import CapabilityWord
from zwave_mcp.devices.questions import QuestionWord
from zwave_mcp.devices.readings import Reading
from zwave_mcp.policy import check_text_argument
from zwave_mcp.policy.actions import ACTION_ALIASES, ACTIONS, ActionName, normalize_action
from zwave_mcp.policy.outcome import Outcome

NAME_MAX = 200
DeviceName = Field(
    min_length=1,
    max_length=NAME_MAX,
    description="The device as a person names it: 'kitchen light', 'front door', 'porch switch 2', or a node id",
)


def _action_word(value: Any) -> Any:
    """Aliases people and models use ("turn_on", "switch off", "brightness") → the action name."""
    if not isinstance(value, str):
        return value
    action = normalize_action(value)
    return action if action in ACTIONS else value  # unknown words are shown back as they were said


# The schema lists the action names (the one table in `zwave_mcp.policy.actions`); aliases are accepted too.
Action = Annotated[ActionName, BeforeValidator(_action_word)]


def _number_as_text(value: Any) -> Any:
    """A number where a word is asked for (`setpoint=21`) is read as its text; what it means is decided with
    the other arguments (`ChangeArgs._temperature_said_as_setpoint`)."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class ToolArgs(BaseModel):
    """The base of every tool's arguments."""

    # The executor drops unknown arguments before validation (the seeds: extra parameters are ignored).
    model_config = ConfigDict(extra="ignore")

    def check_text(self, *names: str) -> None:
        """The policy's check of these free-text arguments (no control characters), those given."""
        for name in names:
            if text := getattr(self, name):
                check_text_argument(name, text)


GROUP_TARGET = (
    "Many devices as people name them: a room ('kitchen', 'the living room'), a kind ('lights', 'plugs', "
    "'switches', 'blinds', 'locks', 'thermostats', 'sensors', 'doors'), both ('the kitchen lights', "
    "'kitchen and living room lights'), a group from the alias file ('upstairs'), or 'everything'"
)


class ListDevicesArgs(ToolArgs):
    target: str | None = Field(None, max_length=NAME_MAX, description=GROUP_TARGET)
    state: QuestionWord | None = Field(
        None,
        description="Answer a question about them: which are on, off, open, closed, locked, unlocked; "
        "'battery' for battery levels, 'low_battery' for low ones; is there smoke, co (carbon monoxide), co2, "
        "heat, freeze, water_leak, motion, tamper, glass_break, intrusion ('is there smoke anywhere?' = "
        "state 'smoke'). "
        "The summary is the one-sentence answer.",
    )
    filter: str | None = Field(None, max_length=NAME_MAX, description="Only devices whose name contains this")
    location: str | None = Field(None, max_length=NAME_MAX, description="Only devices in this room")
    capability: CapabilityWord | None = Field(None, description="Only devices that have this capability")
    includeInactive: bool = Field(False, description="Also list dead or failed devices")
    limit: int = Field(50, ge=1, le=500, description="At most this many devices")
    offset: int = Field(0, ge=0, description="Skip this many devices (for paging)")


class DeviceArgs(ToolArgs):
    deviceName: str = DeviceName


class SensorArgs(DeviceArgs):
    refresh: bool = Field(False, description="Ask the device for fresh readings when the stored ones are old")
    maxAgeSeconds: float = Field(
        300, ge=0, le=86400, description="With refresh: readings older than this are asked for again"
    )


_CONFIRMATION_TOKEN: Any = Field(
    None,
    max_length=200,
    description="Only after the person agreed: the token a previous 'confirmation required' answer gave",
)


class ChangeArgs(ToolArgs):
    """What control_zwave_device and control_zwave_group share: the action, the arguments that carry its
    value, and the confirmation token. Each tool lists it before the model that names what it acts on, so
    that name is the schema's first field: pydantic orders fields from the last base to the first."""

    action: Action = Field(
        description="What to do; verify_device lists the actions a device takes. Also accepted: "
        + ", ".join(a.replace("_", " ") for a in ACTION_ALIASES)
    )
    level: float | str | None = Field(
        None,
        description="dim/set_level/set_tilt/set_volume: 0-100 %, or relative '+10' / '-20'. set_speed: a "
        "speed name ('low', 'medium', 'high') or 0-100 %. set_temperature: degrees, or '+1'",
    )
    value: float | str | None = Field(
        None,
        description="Same as level (for set_temperature: the temperature; for set_mode: the mode; for "
        "set_tone: the tone's name)",
    )
    position: float | None = Field(None, ge=0, le=100, description="set_position: 0 closed … 100 open")
    setpoint: Annotated[str | None, BeforeValidator(_number_as_text)] = Field(
        None, max_length=40, description="set_temperature: 'heating' or 'cooling' (default: from the mode)"
    )
    mode: str | None = Field(
        None,
        max_length=40,
        description="set_mode: e.g. 'heat', 'cool', 'auto', 'off'. set_fan_mode: e.g. 'low'",
    )
    color: str | None = Field(
        None, max_length=40, description="set_color: a colour name or hex, e.g. '#ff5000'"
    )
    confirmationToken: str | None = _CONFIRMATION_TOKEN

    @model_validator(mode="before")
    @classmethod
    def _temperature_said_as_setpoint(cls, data: Any) -> Any:
        """`setpoint=21` (or "21") with no value is the temperature, as a person means it (issue 43 item 23:
        it was refused as "must be a string", and "21" as "has no '21' setpoint"); beside a value, a number
        stays the setpoint's type for the planner to read ("1": heating)."""
        said = _number_as_text(data.get("setpoint")) if isinstance(data, dict) else None
        if not isinstance(said, str) or data.get("value") is not None or data.get("level") is not None:
            return data
        try:
            float(said)
        except ValueError:
            return data
        return {**data, "value": said, "setpoint": None}


class ControlArgs(ChangeArgs, DeviceArgs):
    """control_zwave_device: an action and its value, on one device."""


class GroupTarget(ToolArgs):
    target: str = Field(min_length=1, max_length=NAME_MAX, description=GROUP_TARGET)


class GroupControlArgs(ChangeArgs, GroupTarget):
    """control_zwave_group: the same action and values as control_zwave_device, on a group."""


class SceneArgs(ToolArgs):
    scene: str = Field(min_length=1, max_length=NAME_MAX, description="Scene name or id")
    confirmationToken: str | None = _CONFIRMATION_TOKEN


LOCK_USER_HELP = "Only this lock user's events ('the cleaner')"


class RecentEventsArgs(ToolArgs):
    minutes: float = Field(60, gt=0, le=1440, description="How far back to look")
    deviceName: str | None = Field(None, max_length=NAME_MAX, description="Only this device")
    user: str | None = Field(None, min_length=1, max_length=NAME_MAX, description=LOCK_USER_HELP)
    limit: int = Field(100, ge=1, le=1000, description="At most this many events")


class NoArgs(ToolArgs):
    pass


# --- results ----------------------------------------------------------------------------------------


class DeviceSummary(BaseModel):
    key: str = Field(description="Stable id: node id, or node.endpoint")
    name: str
    location: str
    type: str | None = Field(description="Main capability")
    capabilities: list[str]
    state: str = Field(description="Short current state, e.g. 'on', '30 %', 'locked'")
    status: str = Field(description="Alive, Asleep, Awake, Dead or Unknown")
    nodeId: int
    endpoint: int | None = None


class DeviceList(ToolResult):
    total: int
    offset: int
    count: int
    page: int = Field(1, description="Which page this is (limit devices a page)")
    pages: int = Field(1, description="How many pages there are")
    devices: list[DeviceSummary]
    notReported: list[str] = Field(
        default_factory=list, description="With state: devices asked about that have not reported it"
    )


class DeviceCheck(ToolResult):
    exists: bool
    device: DeviceSummary | None = None
    ready: bool = False
    sleeping: bool = False
    actions: list[str] = Field(default_factory=list)


class ValueReport(BaseModel):
    label: str
    value: AnyJson = None
    text: str | None = Field(None, description="What zwave-js calls this value, e.g. 'Secured'")
    unit: str | None = None
    ageSeconds: float | None = Field(None, description="Seconds since the device last reported it")
    valueId: str
    writeable: bool = False


class DeviceState(ToolResult):
    device: DeviceSummary
    readings: list[Reading] = Field(
        default_factory=list, description="Every reading, in the order the summary says them"
    )
    values: list[ValueReport]
    lockSettings: LockSettings | None = Field(None, description="A door lock's own settings")


class LockSettings(BaseModel):
    relock: str | None = Field(None, description="Whether and when it locks itself again, in words")
    operationType: int | None = Field(None, description="Door Lock operation type: 1 constant, 2 timed")
    lockTimeoutConfiguration: float | None = Field(None, description="Timed mode: seconds until it locks")
    autoRelockTime: float | None = Field(None, description="Seconds after unlocking until it locks again")
    holdAndReleaseTime: float | None = None
    twistAssist: bool | None = None
    blockToBlock: bool | None = None


class SensorData(ToolResult):
    device: DeviceSummary
    readings: list[Reading]


OUTCOME_HELP = (
    "confirmed: a report of the device after the command matches; working: it is on its way; queued: it "
    "sleeps and applies it on waking; unconfirmed: sent, no report in time; failed: with zwave-js's reason; "
    "unknown: zwave-js-ui did not answer in time, it may still have happened; declined; needs_confirmation; "
    "dry_run; unchanged: nothing sent or asked, the device already reports what it would set"
)


class DeviceOutcomeModel(BaseModel):
    """What became of the change on one device."""

    device: str
    key: str
    outcome: Outcome
    target: AnyJson = None
    reported: AnyJson = Field(None, description="The device's last report of the value (after the command)")
    reason: str | None = None


class MqttMessage(BaseModel):
    """One MQTT publish, exactly as it would go out (the real one also carries a per-request id)."""

    topic: str
    payload: AnyJson
    qos: int = 0
    retain: bool = False


class GateAnswer(ToolResult):
    """The result of a tool that makes changes through the write gate: besides its own fields, the token
    when the gate asked for a confirmation, or the messages a dry run would send."""

    confirmationToken: str | None = None
    expiresInSeconds: float | None = None
    wouldSend: list[MqttMessage] | None = Field(
        default=None, description="dry run: the messages that would be sent"
    )


def gate_answer(result: GateResult | None) -> dict[str, Any]:
    """The `GateAnswer` fields of what the gate did with a change."""
    if result is None:
        return {}
    return {
        "confirmationToken": result.token,
        "expiresInSeconds": result.token_ttl_s,
        "wouldSend": [MqttMessage(**m) for m in result.messages] or None,
    }


class ControlResult(GateAnswer):
    device: DeviceSummary
    action: str
    outcome: Outcome = Field(description=OUTCOME_HELP)
    target: AnyJson = None
    reported: AnyJson = Field(None, description="The device's last reported value")


class GroupMember(BaseModel):
    """What became of the change on one device of the group."""

    device: DeviceSummary
    outcome: Outcome = Field(description=OUTCOME_HELP)
    target: AnyJson = None
    reported: AnyJson = Field(None, description="The device's last reported value")
    reason: str | None = None
    already: bool = Field(
        False,
        description="It already reported the target before the command, and nothing it reported since differs",
    )


class SkippedDevice(BaseModel):
    name: str
    key: str
    why: str = Field(description="Why it was left alone: it cannot do this, a refused value, the policy")


class GroupControlResult(GateAnswer):
    target: str = Field(description="The group as understood: 'kitchen and living room lights'")
    action: str
    outcome: Outcome = Field(description="The worst outcome over the devices; " + OUTCOME_HELP)
    devices: list[GroupMember] = Field(default_factory=list, description="Every device acted on")
    skipped: list[SkippedDevice] = Field(default_factory=list)
    value: AnyJson = Field(None, description="The target as understood: percent, degrees, mode or colour")


class HealthReport(ToolResult):
    healthy: bool
    broker: dict[str, Any]
    gateway: dict[str, Any]
    nodes: dict[str, int] = Field(description="Z-Wave nodes by status (a node can hold several devices)")
    devices: dict[str, int] = Field(
        default_factory=dict, description="Devices by status, counted as list_zwave_devices counts them"
    )
    lastMessageAgeSeconds: float | None = None
    watchingSince: str | None = Field(
        None, description="Since when the home service has been watching the home (its history has no gap)"
    )
    problems: list[str] = Field(default_factory=list)
    advice: list[str] = Field(default_factory=list)
    policyEntriesMatchingNoDevice: list[str] = Field(
        default_factory=list,
        description="Allow, deny, hide and confirm entries that cover no device as written (they protect nothing)",
    )


class Scene(BaseModel):
    id: int
    label: str
    values: int = Field(description="How many values the scene sets")


class SceneList(ToolResult):
    scenes: list[Scene]


class SceneActivation(GateAnswer):
    scene: Scene
    outcome: Outcome = Field(description=OUTCOME_HELP)
    devices: list[DeviceOutcomeModel] = Field(
        default_factory=list, description="Each visible device the scene sets, with what it reported"
    )


class Event(BaseModel):
    at: str = Field(description="ISO time")
    ageSeconds: float
    device: str | None = None
    what: str
    value: AnyJson = None
    button: int | None = Field(None, description="A button press: the button's number")
    press: str | None = Field(None, description="A button press: pressed, released, held, pressed twice…")


class RecentEvents(ToolResult):
    events: list[Event] = Field(description="The latest changes first, at most `limit` of them")
    total: int = Field(0, description="How many changes the period had (events holds at most `limit`)")
