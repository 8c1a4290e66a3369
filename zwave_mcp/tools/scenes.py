"""zwave-js-ui scenes: list them, activate one by name or id."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from zwave_mcp.devices.resolve import normalize
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.executor import ToolSpec
from zwave_mcp.gateway.api import REQUEST_QOS, GatewayError
from zwave_mcp.policy import AuditEvent, check_text_argument
from zwave_mcp.tools.control import CONTROL
from zwave_mcp.tools.devices import READ
from zwave_mcp.tools.models import MqttMessage, NoArgs, Scene, SceneActivation, SceneArgs, SceneList
from zwave_mcp.tools.present import plural

if TYPE_CHECKING:
    from zwave_mcp.server import App


def scenes_from(raw: list[dict[str, Any]]) -> list[Scene]:
    """zwave-js-ui's `_getScenes` answer as scenes (entries without a numeric id are left out)."""
    return [s for s in map(_scene, raw) if s is not None]


def _scene(raw: dict[str, Any]) -> Scene | None:
    scene_id = raw.get("sceneid")
    if not isinstance(scene_id, int):
        return None
    values = raw.get("values")
    return Scene(id=scene_id, label=str(raw.get("label") or f"Scene {scene_id}"), values=len(values or []))


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


def specs(app: App) -> list[ToolSpec]:
    async def load() -> list[Scene]:
        try:
            raw = await app.gateway.get_scenes()
        except GatewayError as exc:
            raise UserError(f"Could not read the scenes from zwave-js-ui: {exc}.") from exc
        return scenes_from(raw)

    async def list_zwave_scenes(_args: NoArgs, _ctx: Any) -> SceneList:
        scenes = await load()
        if not scenes:
            return SceneList(summary="zwave-js-ui has no scenes.", scenes=[])
        names = ", ".join(s.label for s in scenes)
        return SceneList(summary=f"{plural(len(scenes), 'scene')}: {names}.", scenes=scenes)

    async def activate_zwave_scene(args: SceneArgs, _ctx: Any) -> SceneActivation:
        check_text_argument("scene", args.scene)
        scene = pick_scene(await load(), args.scene)
        what = f"activate scene '{scene.label}'"
        decision = app.policy.authorize_without_device(what)
        attempt = AuditEvent(tool="activate_zwave_scene", action="activate", outcome="", value=scene.label)
        if decision.refused:
            app.policy.audit(replace(attempt, outcome="refused", reason=decision.message))
            raise PolicyRefusal(decision.message)
        if app.settings.dry_run:
            topic, payload = app.gateway.api.build_request("_activateScene", [scene.id])
            app.policy.audit(replace(attempt, outcome="dry_run"))
            return SceneActivation(
                summary=f"Dry run: would {what}; nothing was sent.",
                scene=scene,
                wouldSend=[MqttMessage(topic=topic, payload=payload, qos=REQUEST_QOS, retain=False)],
            )
        try:
            await app.gateway.activate_scene(scene.id)
        except GatewayError as exc:
            app.policy.audit(replace(attempt, outcome="failed", reason=str(exc)))
            raise UserError(f"Could not {what}: {exc}.") from exc
        app.policy.audit(replace(attempt, outcome="allowed"))
        return SceneActivation(
            summary=f"Scene '{scene.label}' started: zwave-js-ui is setting {plural(scene.values, 'value')}.",
            scene=scene,
        )

    return [
        ToolSpec(
            "list_zwave_scenes",
            "List the scenes defined in zwave-js-ui.",
            NoArgs,
            SceneList,
            list_zwave_scenes,
            annotations=READ,
            title="List scenes",
        ),
        ToolSpec(
            "activate_zwave_scene",
            "Activate a zwave-js-ui scene by name or id.",
            SceneArgs,
            SceneActivation,
            activate_zwave_scene,
            mutating=True,
            annotations=CONTROL,
            title="Activate a scene",
        ),
    ]
