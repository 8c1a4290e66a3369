"""`completion/complete`: device names, rooms, device keys and scene names as the person types them.

What is offered comes from the same device index the tools resolve names with, so a hidden device is
never offered (it is not in the index), and every name offered resolves to the device it names. Matching
is on normalized words (case, punctuation and plurals ignored): "kit" offers "Kitchen Light" and "Coffee
Maker Plug" is offered for "kit" too, because its room starts so. At most 100 values, as the protocol
allows, best first: names that start with what was typed, then names with a word that does.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from zwave_mcp.devices.model import Device
from zwave_mcp.devices.resolve import normalize
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.server.resource_updates import DEVICE_URI_PREFIX
from zwave_mcp.server.tools.scenes import scenes_from

if TYPE_CHECKING:
    from zwave_mcp.server.app import App

log = logging.getLogger(__name__)

MAX_VALUES = 100
DEVICE_TEMPLATE = DEVICE_URI_PREFIX + "{key}"
SCENES_TIMEOUT_S = 2.0
# What each prompt argument names (the prompts live in prompts.py).
PROMPT_ARGUMENTS = {
    ("device_status", "device"): "device",
    ("room_status", "room"): "room",
    ("start_scene", "scene"): "scene",
}


def rank(candidates: Iterable[str], typed: str, *, also: dict[str, str] | None = None) -> list[str]:
    """Candidates whose normalized text starts with `typed`, then those with a word that does.

    `also` gives extra text a candidate matches on (a key's device name and room), keyed by candidate.
    """
    wanted = normalize(typed)
    first: list[str] = []
    then: list[str] = []
    for candidate in dict.fromkeys(candidates):
        texts = [normalize(candidate), normalize((also or {}).get(candidate, ""))]
        if not wanted or texts[0].startswith(wanted):
            first.append(candidate)
        elif any(text.startswith(wanted) or f" {wanted}" in f" {text}" for text in texts if text):
            then.append(candidate)
    return sorted(first, key=str.casefold) + sorted(then, key=str.casefold)


def device_names(devices: list[Device]) -> dict[str, str]:
    """What to call each device → its room. Its name, or "Name in Room" where two share a name (the
    resolver reads "in" as the room, so the offered name picks that one device)."""
    counts = Counter(normalize(d.name) for d in devices)
    shared = {normalize(d.name) for d in devices if counts[normalize(d.name)] > 1 and d.location}
    return {
        (f"{d.name} in {d.location}" if normalize(d.name) in shared else d.name): d.location for d in devices
    }


async def _scene_labels(app: App) -> list[str]:
    if await app.gateway.settled_reason() is not None:
        return []
    try:
        raw = await app.gateway.get_scenes(timeout=SCENES_TIMEOUT_S)
    except GatewayError as exc:
        log.info("no scenes to complete", extra={"why": str(exc)})
        return []
    return [scene.label for scene in scenes_from(raw, app.devices.visible_value)]


async def _values_for(app: App, kind: str, typed: str) -> list[str]:
    if kind == "scene":
        return rank(await _scene_labels(app), typed)
    await app.gateway.settle()  # just after start: the first load, not an empty list
    devices = app.devices.devices()
    if kind == "device":
        names = device_names(devices)
        return rank(names, typed, also=names)
    if kind == "room":
        return rank([d.location for d in devices if d.location], typed)
    return rank([d.key for d in devices], typed, also={d.key: f"{d.name} {d.location}" for d in devices})


async def complete(
    app: App,
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    _context: CompletionContext | None,
) -> Completion | None:
    """The `completion/complete` handler (build.py registers it, given the app)."""
    if isinstance(ref, ResourceTemplateReference):
        kind = "key" if ref.uri == DEVICE_TEMPLATE and argument.name == "key" else None
    else:
        kind = PROMPT_ARGUMENTS.get((ref.name, argument.name))
    if kind is None:
        return None
    values = await _values_for(app, kind, argument.value[:200])
    return Completion(values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES)
