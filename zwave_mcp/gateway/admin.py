"""zwave-js-ui's network-care APIs (names per 11.22.2's `allowedApis`) and the controller events that
follow an inclusion, exclusion or interview.

`NetworkAdmin` has two halves. The reads (`info_status`, `neighbours`, `parse_qr`, `is_failed`, …) may be
called by anyone. The changes (everything under "changes") are called by the write gate only: rename,
maintenance, inclusion and removal all change the network. `driverFunction` (arbitrary code inside
zwave-js-ui) has no wrapper here on purpose, and nothing in this project sends it.

Inclusion progress comes only as `_EVENTS/.../controller/<event>` messages (see the simulator's
`admin.py` for the sequence); `InclusionProgress` is their running summary, and `wait` lets a caller
sleep until the next step without polling.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.gateway.nodes import parse_value
from zwave_mcp.zwave import wire
from zwave_mcp.zwave.classes import CC

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

# zwave-js enums, as on the wire.
STRATEGY = {"default": 0, "smart_start": 1, "insecure": 2, "s0": 3, "s2": 4}
SECURITY_CLASSES = {0: "S2_Unauthenticated", 1: "S2_Authenticated", 2: "S2_AccessControl", 7: "S0_Legacy"}
SECURITY_WORDS = {
    0: "S2 unauthenticated",
    1: "S2 authenticated",
    2: "S2 access control",
    7: "S0 legacy",
}


SECURITY_RANK = {7: 1, 0: 2, 1: 3, 2: 4}  # S0 < S2 unauthenticated < S2 authenticated < S2 access control


def security_class(name: object) -> int | None:
    """zwave-js-ui's `security` text as the class number; None for "None", nothing or what we do not know."""
    return next((number for number, text in SECURITY_CLASSES.items() if name == text), None)


def security_words(name: object) -> str:
    """zwave-js-ui's `security` text ("S2_Authenticated", "None") in the words people read."""
    number = security_class(name)
    if number is not None:
        return SECURITY_WORDS[number]
    return "none" if name in (None, "None", "") else str(name).replace("_", " ")


# Phases of an inclusion or exclusion, in our words.
IDLE, INCLUDING, FOUND, GRANT, DSK, ADDED, READY, STOPPED, FAILED = (
    "idle",
    "including",
    "node_found",
    "waiting_for_security_classes",
    "waiting_for_pin",
    "node_added",
    "interview_completed",
    "stopped",
    "failed",
)
EXCLUDING, EXCLUDED = "excluding", "node_removed"


@dataclass(frozen=True)
class AdminRequest:
    """One changing call to zwave-js-ui: its API name and arguments (what a dry run shows) and `run`, which
    makes it and reads the reply. Built here, sent by the write gate only."""

    api: str
    args: list[Any]
    run: Callable[[], Awaitable[Any]]


def _dict(result: Any) -> dict[str, Any]:
    return result if isinstance(result, dict) else {}


class AdminApiFailed(GatewayError):
    """zwave-js-ui answered `success: false`; the message is its own text."""


@dataclass
class InclusionProgress:
    """Where the current (or last) inclusion or exclusion stands, from zwave-js-ui's events."""

    phase: str = IDLE
    secure: bool | None = None
    node_id: int | None = None
    requested_classes: list[int] = field(default_factory=list)
    partial_dsk: str | None = None  # "-bbbbb-ccccc-…": the DSK without its first five digits (the PIN)
    removed_node: dict[str, Any] | None = None
    strategy: int | None = None  # the inclusion strategy we started with
    granted_classes: list[int] | None = None  # what the person granted (None: not asked)
    version: int = 0

    def downgrade(self, node_security: object) -> int | None:
        """The best class the device asked for when it joined with less (its `security`, zwave-js-ui's
        text); None when it got what it asked for, or asked for nothing."""
        # Asked for: its classes in the grant question, else what the strategy we started with stands for
        # (S0 asks for S0; insecure and SmartStart ask for nothing).
        asked = self.requested_classes or ([7] if self.strategy == STRATEGY["s0"] else [])
        if not asked:
            return None
        best = max(asked, key=lambda c: SECURITY_RANK.get(c, 0))
        got = security_class(node_security)
        got_rank = 0 if got is None else SECURITY_RANK.get(got, 0)
        return best if got_rank < SECURITY_RANK.get(best, 0) else None

    @property
    def pending_question(self) -> str | None:
        """ "grant" or "pin" when zwave-js-ui waits for the person; None otherwise."""
        return {GRANT: "grant", DSK: "pin"}.get(self.phase)


class NetworkAdmin:
    """The API wrappers and the inclusion tracker of one gateway."""

    def __init__(self, gateway: ZwaveGateway) -> None:
        self.gateway = gateway
        self.progress = InclusionProgress()
        self.interviews: dict[int, str] = {}  # node id → "started" | stage name | "completed" | "failed"
        self._changed = asyncio.Event()
        gateway.inventory.add_event_listener(self._on_event)

    # -- calls --------------------------------------------------------------------------------------
    async def _result(self, api: str, *args: Any, timeout: float | None = None) -> Any:
        reply = await self.gateway.call(api, *args, timeout=timeout)
        if not reply.success:
            raise AdminApiFailed(reply.message or f"zwave-js-ui refused {api}")
        return reply.result

    # -- reads ---------------------------------------------------------------------------------------
    async def info_status(self) -> dict[str, Any]:
        """`getInfo`: `cntStatus` carries health-check and route-rebuild progress, `inclusionState` the mode."""
        return _dict(await self._result("getInfo"))

    async def neighbours(self, node_id: int) -> list[int]:
        result = await self._result("getNodeNeighbors", node_id)
        return [n for n in result if isinstance(n, int)] if isinstance(result, list) else []

    async def parse_qr(self, qr: str) -> dict[str, Any]:
        return _dict(await self._result("parseQRCodeString", qr))

    async def is_failed(self, node_id: int) -> bool:
        return bool(await self._result("isFailedNode", node_id))

    async def database_parameters(self, node: ZNode, timeout: float | None = None) -> list[ZValue]:
        """`getDeviceConfigurationParams`: the configuration parameters zwave-js's device database gives
        this node's model (label, description, unit, range, default, options), as values of this node that
        hold nothing. [] for a model the database lacks (zwave-js-ui answers so) or a node of unknown ids.
        Each record is zwave-js-ui's value-id shape, so it is checked by the same decoder as `getNodes`."""
        if not node.device_id:
            return []
        result = await self._result("getDeviceConfigurationParams", node.device_id, timeout=timeout)
        found: list[ZValue] = []
        for raw in result if isinstance(result, list) else []:
            if not isinstance(raw, dict):
                continue
            # "0-112-0-7": the database knows no node; the value is named as this node's ("14-112-0-7").
            fields = {k: v for k, v in raw.items() if k not in ("id", "newValue", "value")}
            value = parse_value(cast(wire.Value, fields), node.id)
            if value is not None and value.command_class == CC.CONFIGURATION:
                found.append(value)
        return found

    # -- changes: requests the write gate sends ---------------------------------------------------------
    def _request(
        self,
        api: str,
        *args: Any,
        timeout: float | None = None,
        before: Callable[[], Any] | None = None,
        then: Callable[[Any], Any] | None = None,
        shown: list[Any] | None = None,
    ) -> AdminRequest:
        async def run() -> Any:
            if before is not None:
                before()
            result = await self._result(api, *args, timeout=timeout)
            return then(result) if then is not None else result

        return AdminRequest(api, list(args) if shown is None else shown, run)

    def set_name(self, node_id: int, name: str) -> AdminRequest:
        """`setNodeName`; the inventory (names, topic index, listeners) follows at once."""
        return self._request(
            "setNodeName", node_id, name, then=lambda _: self.gateway.inventory.rename(node_id, name=name)
        )

    def set_location(self, node_id: int, location: str) -> AdminRequest:
        return self._request(
            "setNodeLocation",
            node_id,
            location,
            then=lambda _: self.gateway.inventory.rename(node_id, location=location),
        )

    def ping(self, node_id: int, timeout: float | None = None) -> AdminRequest:
        return self._request("pingNode", node_id, timeout=timeout, then=bool)

    def refresh_values(self, node_id: int, timeout: float | None = None) -> AdminRequest:
        return self._request("refreshValues", node_id, timeout=timeout)

    def refresh_info(self, node_id: int) -> AdminRequest:
        """Re-interview: zwave-js-ui answers at once; `interviews[node_id]` follows the events."""
        return self._request(
            "refreshInfo", node_id, {}, before=lambda: self.interviews.__setitem__(node_id, "requested")
        )

    def lifeline_health(self, node_id: int, rounds: int, timeout: float) -> AdminRequest:
        return self._request("checkLifelineHealth", node_id, rounds, timeout=timeout, then=_dict)

    def route_health(self, node_id: int, target: int, rounds: int, timeout: float) -> AdminRequest:
        return self._request("checkRouteHealth", node_id, target, rounds, timeout=timeout, then=_dict)

    def abort_health(self, node_id: int) -> AdminRequest:
        return self._request("abortHealthCheck", node_id)

    def rebuild_node_routes(self, node_id: int, timeout: float) -> AdminRequest:
        return self._request("rebuildNodeRoutes", node_id, timeout=timeout, then=bool)

    def begin_rebuilding_routes(self) -> AdminRequest:
        return self._request("beginRebuildingRoutes", {}, then=bool)

    def stop_rebuilding_routes(self) -> AdminRequest:
        return self._request("stopRebuildingRoutes", then=bool)

    def _inclusion(self, api: str, *args: Any, strategy: int) -> AdminRequest:
        """A call that starts an inclusion with `strategy` (a new node, or one in a failed node's place)."""
        return self._request(api, *args, before=lambda: self._reset(INCLUDING, strategy), then=bool)

    def start_inclusion(self, strategy: int, options: dict[str, Any]) -> AdminRequest:
        return self._inclusion("startInclusion", strategy, options, strategy=strategy)

    def stop_inclusion(self) -> AdminRequest:
        return self._request("stopInclusion", then=bool)

    def start_exclusion(self) -> AdminRequest:
        return self._request(
            "startExclusion", {"strategy": 0}, before=lambda: self._reset(EXCLUDING), then=bool
        )

    def stop_exclusion(self) -> AdminRequest:
        return self._request("stopExclusion", then=bool)

    def grant_security_classes(self, classes: list[int], client_side_auth: bool) -> AdminRequest:
        grant = {"securityClasses": classes, "clientSideAuth": client_side_auth}

        def granted(_: Any) -> None:
            self.progress.granted_classes = list(classes)
            self._answered(GRANT)

        return self._request("grantSecurityClasses", grant, then=granted)

    def validate_dsk(self, pin: str) -> AdminRequest:
        # A dry run shows the call, never the PIN.
        return self._request("validateDSK", pin, then=lambda _: self._answered(DSK), shown=["•••••"])

    def abort_inclusion(self) -> AdminRequest:
        return self._request("abortInclusion")

    def provision(self, entry: dict[str, Any]) -> AdminRequest:
        """`provisionSmartStartNode` with a parsed QR entry (plus the name and room it will get)."""
        return self._request(
            "provisionSmartStartNode", entry, then=lambda r: r if isinstance(r, dict) else entry
        )

    def remove_failed(self, node_id: int, timeout: float) -> AdminRequest:
        return self._request(
            "removeFailedNode", node_id, timeout=timeout, then=lambda _: self.gateway.resync()
        )

    def replace_failed(self, node_id: int, strategy: int, options: dict[str, Any]) -> AdminRequest:
        return self._inclusion("replaceFailedNode", node_id, strategy, options, strategy=strategy)

    # -- events ---------------------------------------------------------------------------------------
    def _reset(self, phase: str, strategy: int | None = None) -> None:
        self.progress = InclusionProgress(phase=phase, strategy=strategy, version=self.progress.version + 1)
        self._notify()

    def _step(self, phase: str, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.progress, key, value)
        self.progress.phase = phase
        self.progress.version += 1
        self._notify()

    def _answered(self, question: str) -> None:
        # The next event (the PIN request, node added) may have come before the reply: keep it.
        if self.progress.phase == question:
            self._step(FOUND)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, since_version: int, timeout: float) -> InclusionProgress:
        """Until the progress moves past `since_version` or `timeout` passes; the progress either way."""
        if self.progress.version == since_version:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)
        return self.progress

    def _on_event(self, scope: str, name: str, data: list[Any]) -> None:
        first = data[0] if data else None
        if scope == "node":
            node_id = first.get("id") if isinstance(first, dict) else None
            if isinstance(node_id, int):
                self._interview_event(node_id, name, data)
            return
        if scope != "controller":
            return
        p = self.progress
        if name == "inclusion_started":
            self._step(INCLUDING, secure=bool(first))
        elif name == "exclusion_started":
            self._step(EXCLUDING)
        elif name == "node_found" and isinstance(first, dict) and isinstance(first.get("id"), int):
            self._step(FOUND, node_id=first["id"])
        elif name == "grant_security_classes" and isinstance(first, dict):
            classes = [c for c in first.get("securityClasses") or [] if isinstance(c, int)]
            self._step(GRANT, requested_classes=classes)
        elif name == "validate_dsk" and isinstance(first, str):
            self._step(DSK, partial_dsk=first[:60])
        elif name == "node_added" and isinstance(first, dict):
            node_id = first.get("id") if isinstance(first.get("id"), int) else p.node_id
            self._step(ADDED, node_id=node_id)
            self.gateway.resync()
        elif name == "node_removed" and isinstance(first, dict):
            # zwave-js RemoveNodeReason: 0 excluded, 1 proxy-excluded (2 failed, 3/4 replaced, 5 reset).
            reason = data[1] if len(data) > 1 and isinstance(data[1], int) else None
            if p.phase in (EXCLUDING, IDLE, STOPPED) or reason in (0, 1):
                self._step(EXCLUDED, removed_node=first)
            self.gateway.resync()
        elif name in ("inclusion_stopped", "exclusion_stopped") and p.phase in (INCLUDING, EXCLUDING):
            self._step(STOPPED)
        elif name in ("inclusion_failed", "exclusion_failed", "inclusion_aborted") and p.phase not in (
            ADDED,
            READY,
        ):
            self._step(FAILED)

    def _interview_event(self, node_id: int, name: str, data: list[Any]) -> None:
        if name == "node_interview_started":
            self.interviews[node_id] = "started"
        elif name == "node_interview_stage_completed" and len(data) > 1 and isinstance(data[1], str):
            self.interviews[node_id] = data[1][:40]
        elif name in ("node_interview_completed", "node_interview_failed"):
            self.interviews[node_id] = "completed" if name.endswith("completed") else "failed"
            if self.progress.node_id == node_id and self.progress.phase == ADDED:
                self._step(READY if name.endswith("completed") else FAILED)
            self.gateway.resync()  # the interview brought values (and maybe endpoints) the picture lacks
        else:
            return
        self._notify()
