"""zwave-js-ui scenes: list them, activate one by name or id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

from zwave_mcp.answers import plural
from zwave_mcp.devices.gate import ActivateScene, Change
from zwave_mcp.devices.scenes import UnknownSceneValue, scene_change, value_id_of
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.names import normalize
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.safetext import plain_text
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for
from zwave_mcp.server.tools.models import (
    DeviceOutcomeModel,
    NoArgs,
    Scene,
    SceneActivation,
    SceneArgs,
    SceneList,
    gate_answer,
)
from zwave_mcp.server.tools.spec import tool


def scenes_from(raw: list[dict[str, Any]], shown: Callable[[str], bool]) -> list[Scene]:
    """zwave-js-ui's `_getScenes` answer as scenes (entries without a numeric id are left out); a scene's
    value count includes only the values `shown` lets through (hidden devices stay hidden)."""
    return [s for s in (_scene(r, shown) for r in raw) if s is not None]


def _scene(raw: dict[str, Any], shown: Callable[[str], bool]) -> Scene | None:
    scene_id = raw.get("sceneid")
    if not isinstance(scene_id, int):
        return None
    values = [v for v in raw.get("values") or [] if isinstance(v, dict) and shown(value_id_of(v))]
    label = plain_text(str(raw.get("label") or "")) or f"Scene {scene_id}"  # spoken, and typed back
    return Scene(id=scene_id, label=label, values=len(values))


def pick_scene(scenes: list[Scene], wanted: str) -> Scene:
    """By id, exact label, or a unique label containing the words; otherwise say what exists."""
    text = normalize(wanted)
    for scene in scenes:
        if text == str(scene.id) or text == normalize(scene.label):
            return scene
    partial = [s for s in scenes if text and text in normalize(s.label)]
    if len(partial) == 1:
        return partial[0]
    known = ", ".join(f"'{s.label}'" for s in scenes) or "none"
    if partial:
        raise UserError(
            f"'{wanted[:60]}' matches several scenes: {', '.join(s.label for s in partial)}. Say which one."
        )
    raise UserError(f"No scene named '{wanted[:60]}'. The scenes are: {known}.")


async def _load(app: App) -> list[tuple[Scene, dict[str, Any]]]:
    """zwave-js-ui's scenes, each with its raw entry (the values it sets)."""
    try:
        raw = await app.gateway.get_scenes()
    except GatewayError as exc:
        raise UserError(f"Could not read the scenes from zwave-js-ui: {exc}.") from exc
    found = [(_scene(r, app.devices.visible_value), r) for r in raw]
    return [(s, r) for s, r in found if s is not None]


async def list_zwave_scenes(app: App, _args: NoArgs, _ctx: Context | None) -> SceneList:
    """List the scenes defined in zwave-js-ui."""
    scenes = [s for s, _raw in await _load(app)]
    if not scenes:
        return SceneList(summary="zwave-js-ui has no scenes.", scenes=[])
    names = ", ".join(s.label for s in scenes)
    return SceneList(summary=f"{plural(len(scenes), 'scene')}: {names}.", scenes=scenes)


async def activate_zwave_scene(app: App, args: SceneArgs, ctx: Context | None) -> SceneActivation:
    """Activate a zwave-js-ui scene by name or id. Each value it sets is checked like a control call (a scene
    that unlocks a door needs the person's confirmation); the answer says which devices reported the scene's
    values."""
    args.check_text("scene")
    loaded = await _load(app)
    scene = pick_scene([s for s, _raw in loaded], args.scene)
    raw = next(r for s, r in loaded if s.id == scene.id)
    try:
        change = scene_change(raw, app.gateway.nodes, app.devices.device_of_value)
    except UnknownSceneValue:
        what = f"activate scene '{scene.label}'"
        stub = Change("activate_zwave_scene", "activate_scene", what, [], ActivateScene(scene.id))
        refused = app.gate.refuse(
            stub,
            f"Refused to {what}: it sets a value zwave-mcp does not know, so it cannot be checked "
            "against the policy.",
        )
        raise PolicyRefusal(refused.sentence) from None
    result = await app.gate.apply(change, token=args.confirmationToken, ask=asker_for(ctx, app.questions))
    if result.outcome is Outcome.REFUSED:
        raise PolicyRefusal(result.sentence)
    return SceneActivation(
        summary=result.sentence,
        scene=scene,
        outcome=result.outcome,
        devices=[
            DeviceOutcomeModel(
                device=d.device.name,
                key=d.device.key,
                outcome=d.outcome,
                target=d.target,
                reported=d.reported,
                reason=d.reason or None,
            )
            for d in result.devices
            if app.policy.visible(d.device)
        ],
        **gate_answer(result),
    )


TOOLS = [
    tool(list_zwave_scenes, title="List scenes"),
    tool(activate_zwave_scene, mutating=True, title="Activate a scene"),
]
