"""The demo's scripted conversation: what the person says, the tool call it becomes, what the answer must be,
printed as a transcript."""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import anyio

from zwave_mcp.commands.demo_home import Home
from zwave_mcp.logs import is_secret_name
from zwave_mcp.simulator.admin import NewDevice

WIDTH = 100


# ---------------------------------------------------------------------------------------------- transcript
class Transcript:
    """Plain text on stdout, flushed line by line so a person sees the conversation as it happens."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def wrapped(self, label: str, text: str, indent: str = "  ") -> None:
        lead = f"{indent}{label}"
        self.line(
            textwrap.fill(
                text,
                width=WIDTH,
                initial_indent=lead,
                subsequent_indent=" " * len(lead),
                break_long_words=False,
                break_on_hyphens=False,
            )
        )


def _secret(key: str) -> bool:
    return is_secret_name(key) and key != "confirmationToken"  # the token is the answer's, shown there


def format_call(name: str, args: dict[str, Any]) -> str:
    """The call as the transcript shows it; a secret (a lock's PIN) is not printed."""
    shown = {k: "(not shown)" if _secret(k) and v is not None else v for k, v in args.items()}
    inner = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in shown.items())
    return f"{name}({inner})"


@dataclass
class ToolAnswer:
    text: str
    is_error: bool
    result: dict[str, Any]


def answer_of(reply: Any) -> ToolAnswer:
    texts = [block.text for block in reply.content if getattr(block, "type", None) == "text"]
    structured = reply.structured_content or {}
    result = structured.get("result") if isinstance(structured.get("result"), dict) else structured
    return ToolAnswer(" ".join(texts).strip() or "(no text)", bool(reply.is_error), result or {})


# ---------------------------------------------------------------------------------------------- the script
@dataclass
class Step:
    said: str  # what the person says
    tool: str
    args: dict[str, Any]
    expect: Callable[[ToolAnswer], bool]  # did the server answer as the script expects?
    before: Callable[[Home], None] | None = None  # something that happens in the house first
    narration: str | None = None
    # The answer depends on news travelling over MQTT: asked again until it is as expected (bounded).
    until_expected: bool = False


def _outcome(*wanted: str) -> Callable[[ToolAnswer], bool]:
    return lambda a: not a.is_error and a.result.get("outcome") in wanted


def _ok(a: ToolAnswer) -> bool:
    return not a.is_error


def _refused(a: ToolAnswer) -> bool:
    return a.is_error


def _done(said: str, device: str, action: str, **more: Any) -> Step:
    """A device told to do something (`more`: its arguments beyond the action), confirmed done."""
    args = {"deviceName": device, "action": action, **more}
    return Step(said, "control_zwave_device", args, _outcome("confirmed"))


def _pull_coffee_plug(home: Home) -> None:
    if home.simulator is not None:
        home.simulator.kill_node(8)  # Coffee Maker Plug in the captured house


def _dog_walker_comes_in(home: Home) -> None:
    if home.simulator is not None:
        home.simulator.lock_event(13, "keypad_unlock", 4)  # user 4: the dog walker, added just before


SCRIPT: list[Step] = [
    Step("What devices do I have?", "list_zwave_devices", {}, _ok),
    _done("Turn on the kitchen light.", "kitchen light", "on"),
    _done("Dim the living room lamp to 30 %.", "living room lamp", "dim", level=30),
    Step(
        "Is anything on in the kitchen?",
        "list_zwave_devices",
        {"target": "kitchen", "state": "on"},
        _ok,
    ),
    Step(
        "Turn off the kitchen and the porch.",
        "control_zwave_group",
        {"target": "kitchen and porch", "action": "off"},
        _outcome("confirmed"),
    ),
    Step("Start Movie Night.", "activate_zwave_scene", {"scene": "movie night"}, _ok),
    Step("Which lights are on?", "list_zwave_devices", {"target": "lights", "state": "on"}, _ok),
    Step("How warm is it in the bedroom?", "get_device_sensor_data", {"deviceName": "bedroom sensor"}, _ok),
    Step("Is everything working?", "check_zwave_health", {}, lambda a: a.result.get("healthy") is True),
    Step(
        "Switch the bedroom sensor on.",
        "control_zwave_device",
        {"deviceName": "bedroom sensor", "action": "on"},
        _refused,
    ),
    _done("Lock the front door.", "front door", "lock"),
]
UNLOCK = {"deviceName": "front door", "action": "unlock"}
DEAD_NODE = Step(
    "Turn on the coffee maker.",
    "control_zwave_device",
    {"deviceName": "coffee maker", "action": "on"},
    lambda a: a.result.get("outcome") != "confirmed",
    before=_pull_coffee_plug,
    narration="(In the simulated house, the coffee maker's plug stops answering: a dead node.)",
)
WHO_MAY = Step("Who has a code for the side door?", "manage_lock_users", {"deviceName": "side door"}, _ok)
# The dog walker's PIN, as the person would type it; the transcript and every answer leave it out.
ADD_CODE = {"deviceName": "side door", "action": "add", "name": "Dog Walker", "pin": "2580"}
WHO_CAME_IN = Step(
    "Who came in the side door?",
    "get_last_event",
    {"deviceName": "side door"},
    lambda a: not a.is_error and "by Dog Walker (user 4)" in a.text,
    before=_dog_walker_comes_in,
    narration="(In the simulated house, the dog walker types their code at the side door.)",
    until_expected=True,
)
# The patio lock (a real Kwikset 910) keeps code schedules and a log of its own.
PATIO_SCHEDULE = {
    "deviceName": "patio door",
    "action": "schedule",
    "user": "3",
    "days": "Tuesdays",
    "start": "9",
    "end": "12",
}
PATIO_LOG = Step(
    "What does the patio door's own log say?",
    "manage_lock_users",
    {"deviceName": "patio door", "action": "log"},
    lambda a: not a.is_error and "Patio Door Lock's own log" in a.text,
)
NEW_DEVICE = NewDevice(name="Hallway Motion", location="Hallway")
NEW_DEVICE_DETAILS = Step(
    "What security and firmware does the new sensor have?",
    "get_zwave_node_details",
    {"deviceName": "hallway motion"},
    lambda a: a.result.get("security") == "S2 authenticated",
)
HEALTH_AFTER = Step(
    "Is everything still working?",
    "check_zwave_health",
    {},
    lambda a: a.result.get("healthy") is False and "dead" in a.text,
)


class Conversation:
    """Drives the server through the script, printing each turn; counts the turns that went off-script."""

    def __init__(self, client: Any, home: Home, transcript: Transcript) -> None:
        self.client = client
        self.home = home
        self.t = transcript
        self.off_script: list[str] = []
        self.calls = 0

    async def call(
        self, said: str, name: str, args: dict[str, Any], until: Callable[[ToolAnswer], bool] | None = None
    ) -> ToolAnswer:
        """What the person `said`, then the one tool call it becomes, shown; with `until`, asked again (for up
        to 3 s) until the answer fits."""
        self.t.line(f"You: {said}")
        self.calls += 1
        started = time.perf_counter()
        deadline = time.monotonic() + 3.0
        answer = answer_of(await self.client.call_tool(name, args))
        while until is not None and not until(answer) and time.monotonic() <= deadline:
            await anyio.sleep(0.05)
            answer = answer_of(await self.client.call_tool(name, args))
        took_ms = (time.perf_counter() - started) * 1000
        self.t.line(f"  [tool] {format_call(name, args)}  {took_ms:.0f} ms")
        self.t.wrapped("Assistant: ", answer.text)
        return answer

    def check(self, step: str, ok: bool) -> None:
        """The end of a turn: an answer not `ok` is counted (as `step`) and said; then a blank line."""
        if not ok:
            self.off_script.append(step)
            self.t.line("  (not what the script expected)")
        self.t.line()

    async def say(self, step: Step) -> ToolAnswer:
        if step.before is not None:
            step.before(self.home)
        if step.narration:
            self.t.line(step.narration)
        until = step.expect if step.until_expected else None
        answer = await self.call(step.said, step.tool, step.args, until)
        self.check(step.said, step.expect(answer))
        return answer

    async def confirmed(
        self, tool: str, args: dict[str, Any], asks: tuple[str, str], agrees: tuple[str, str]
    ) -> None:
        """A change the person must agree to: asked (`asks`: what they say, the step), answered with a
        confirmation token, then agreed to with it (`agrees`)."""
        asked = await self.call(asks[0], tool, args)
        token = asked.result.get("confirmationToken")
        self.check(asks[1], asked.result.get("outcome") == "needs_confirmation")
        if not isinstance(token, str):
            return
        done = await self.call(agrees[0], tool, {**args, "confirmationToken": token})
        self.check(agrees[1], done.result.get("outcome") == "confirmed")

    async def run(self) -> None:
        for step in SCRIPT:
            await self.say(step)
        await self.confirmed(
            "control_zwave_device",
            UNLOCK,
            ("Unlock the front door.", "unlock the front door"),
            ("Yes, I'm at the door: unlock it.", "confirm the unlock"),
        )
        await self.say(WHO_MAY)
        # A code for the dog walker on the keypad lock: asked, agreed, then the lock's users read again.
        self.t.line("(The dog walker's code is typed in with the request; no transcript or answer shows it.)")
        await self.confirmed(
            "manage_lock_users",
            ADD_CODE,
            ("Add a code for the dog walker on the side door.", "add a code"),
            ("Yes, give the dog walker that code.", "confirm the new code"),
        )
        await self.say(WHO_CAME_IN)
        await self.confirmed(
            "manage_lock_users",
            PATIO_SCHEDULE,
            ("Let user 3 in at the patio door only on Tuesdays from 9 to 12.", "set a code schedule"),
            ("Yes, that's the cleaner's time.", "confirm the schedule"),
        )
        await self.say(PATIO_LOG)
        await self.say(DEAD_NODE)
        await self.say(HEALTH_AFTER)
        if self.home.admin:
            await self.include_a_device()

    async def include_a_device(self) -> None:
        """--admin: a new sensor joins with S2 security, the PIN read off its label (the two-step flow)."""
        sim = self.home.simulator
        device = sim.admin.press_button(NEW_DEVICE) if sim is not None else NEW_DEVICE
        self.t.line(
            f"(A new motion sensor is unpacked and its button pressed; its label reads DSK {device.dsk}.)"
        )
        args = {"security": "s2", "name": device.name, "location": device.location}
        asked = await self.call(
            "Add the new motion sensor in the hallway, securely.", "start_zwave_inclusion", args
        )
        token = asked.result.get("confirmationToken")
        self.check("start the inclusion", isinstance(token, str))
        grant = await self.call(
            "Yes, go ahead.", "start_zwave_inclusion", {**args, "confirmationToken": token}
        )
        self.check("the security question", grant.result.get("pending") == "grant")
        pin = await self.call("Yes, grant it.", "answer_zwave_inclusion", {"grant": True})
        self.check("the PIN question", pin.result.get("pending") == "pin")
        done = await self.call(f"The PIN is {device.pin}.", "answer_zwave_inclusion", {"pin": device.pin})
        self.check("the inclusion", done.result.get("phase") == "interview_completed")
        await self.say(NEW_DEVICE_DETAILS)


async def wait_until_ready(client: Any, timeout: float) -> ToolAnswer:
    """Poll check_zwave_health until the gateway is healthy; the last answer either way."""
    deadline = time.monotonic() + timeout
    while True:
        answer = answer_of(await client.call_tool("check_zwave_health", {}))
        if answer.result.get("healthy") is True or time.monotonic() >= deadline:
            return answer
        await anyio.sleep(0.1)
