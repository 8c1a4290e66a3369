"""How a change reaches zwave-js-ui: the only code that names the gateway's write APIs.

- `WriteValues`: one `writeValue` per effect (control calls; later many devices at once, one by one).
- `ActivateScene`: one `_activateScene`; zwave-js-ui then writes the scene's values itself, each after its
  own `timeout` in seconds, so every effect is "accepted" and proven only by the device's report.
- `ApiCall`: any other API that answers true/false (`setNodeName`, `setNodeLocation`, configuration
  parameters, inclusion, `multicastWriteValue`…): the extension point for admin and group changes.
- `LockUserCalls`: a keypad lock's users and PINs through zwave-js-ui's access-control API (issue 37); the
  PIN goes into the request only when it is sent, and the lock's users are read again as the evidence.
- `ScheduleCalls`: a lock user's code schedules (Schedule Entry Lock: `setSchedule`, `setEnabledSchedule`),
  the lock's schedules read again as the evidence.

A sender never raises for a gateway problem: a reply that never came becomes `no_answer` (it may still have
been carried out), a refusal or a failed status becomes `failed` with zwave-js's own reason.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from zwave_mcp.devices.gate.change import Change, Delivery, DeliveryStatus, Effect
from zwave_mcp.gateway.access import (
    PIN_CODE,
    LockUsers,
    credential_result_words,
    read_lock_users,
    user_result_words,
)
from zwave_mcp.gateway.api import (
    REQUEST_QOS,
    ApiReplyLost,
    ApiTimeout,
    GatewayError,
    SetValueStatus,
    WriteResult,
)
from zwave_mcp.gateway.lock_schedules import LockSchedules, read_schedules, schedule_request
from zwave_mcp.zwave.classes import CC

if TYPE_CHECKING:
    from zwave_mcp.gateway.admin import AdminRequest
    from zwave_mcp.gateway.client import ZwaveGateway

log = logging.getLogger(__name__)

# A write to a sleeping device is answered only when it wakes up (31.8 s in the captures; hours on a
# real battery sensor). We wait for zwave-js-ui's reply in the background this long, then give up.
SLEEPING_WRITE_TIMEOUT_S = 24 * 3600.0
# How long a sleeping device's write may take to be answered before it counts as queued.
QUEUED_AFTER_S = 1.0
# Writes still waiting for a sleeping device; held here so they are not garbage-collected meanwhile.
_BACKGROUND: set[asyncio.Task[Any]] = set()

_STATUS_DELIVERY: dict[SetValueStatus, DeliveryStatus] = {
    SetValueStatus.SUCCESS: "supervised",
    SetValueStatus.SUCCESS_UNSUPERVISED: "unsupervised",
    SetValueStatus.WORKING: "working",
}


def message(gateway: ZwaveGateway, api: str, args: list[Any]) -> dict[str, Any]:
    """One request exactly as it would be published (the real one also carries a correlation id)."""
    topic, payload = gateway.api.build_request(api, args)
    return {"topic": topic, "payload": payload, "qos": REQUEST_QOS, "retain": False}


def lost(exc: GatewayError) -> bool:
    """The request went out but its answer did not come back: it may still have been carried out."""
    return isinstance(exc, ApiTimeout | ApiReplyLost)


def _for_each(
    effects: Sequence[Effect], status: DeliveryStatus, reason: str = "", result: Any = None
) -> list[Delivery]:
    """The same delivery for every effect, or one tied to no effect when the change has none."""
    return [Delivery(e, status, reason, result) for e in effects] or [Delivery(None, status, reason, result)]


def _write_args(effect: Effect) -> list[Any]:
    assert effect.value is not None
    return [effect.value.api_value_id(), effect.target, *([effect.options] if effect.options else [])]


@dataclass(frozen=True)
class WriteValues:
    """`writeValue` for each effect, in order. Sleeping devices get their write queued."""

    per_effect = True  # each effect is its own write: the gate may leave out one that would change nothing

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, "writeValue", _write_args(e)) for e in change.effects if e.value is not None]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        return [await _write(effect, gateway, timeout) for effect in change.effects if effect.value]


async def _write(effect: Effect, gateway: ZwaveGateway, timeout: float) -> Delivery:
    """One `writeValue`; a sleeping device's is left waiting in the background and said to be queued."""
    assert effect.value is not None
    sleeper = effect.device.node.is_sleeping_device
    call = gateway.write_value(
        effect.value,
        effect.target,
        effect.options,
        timeout=SLEEPING_WRITE_TIMEOUT_S if sleeper else timeout,
    )
    try:
        if sleeper:
            task = asyncio.ensure_future(call)
            done, _ = await asyncio.wait({task}, timeout=QUEUED_AFTER_S)
            if not done:
                _BACKGROUND.add(task)
                task.add_done_callback(_BACKGROUND.discard)
                task.add_done_callback(_log_late_write)
                return Delivery(effect, "queued")
            result = await task
        else:
            # In this task: a task of its own would start a loop turn later and wake us one after
            # the reply (two turns in which the value lane's reads run first).
            result = await call
    except GatewayError as exc:
        return Delivery(effect, "no_answer" if lost(exc) else "failed", str(exc))
    return _delivery(effect, result)


def _delivery(effect: Effect, result: WriteResult) -> Delivery:
    kind = _STATUS_DELIVERY.get(result.status) if result.status is not None else None
    if kind is not None:
        return Delivery(effect, kind, result=result.status)
    reason = result.message or "zwave-js gave no reason"
    if result.status is not None:
        reason = f"{reason} (zwave-js status {int(result.status)})"
    if effect.device.node.status == "Dead":
        # Status 2 alone reads as a refusal; a dead node never heard the command at all.
        reason += (
            "; zwave-js reports it as dead (not responding), so check that it has power and is within range"
        )
    return Delivery(effect, "failed", reason, result=result.status)


def _log_late_write(task: asyncio.Task[WriteResult]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.warning("queued write to a sleeping device failed", extra={"why": str(exc)})
    else:
        log.info("queued write answered", extra={"status": str(task.result().status)})


@dataclass(frozen=True)
class ActivateScene:
    """`_activateScene(scene_id)`: the scene's values are the change's effects (judged one by one)."""

    scene_id: int

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, "_activateScene", [self.scene_id])]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        try:
            started = await gateway.activate_scene(self.scene_id, timeout=timeout)
        except GatewayError as exc:
            return _for_each(change.effects, "no_answer" if lost(exc) else "failed", str(exc))
        if not started:
            return [Delivery(None, "failed", "zwave-js-ui did not start the scene")]
        return _for_each(change.effects, "accepted")


@dataclass(frozen=True)
class ApiCall:
    """Any other zwave-js-ui API that carries out a change and answers true/false (or a result).

    `calls` are (api, args) pairs sent in order; the first failure stops the rest. Every effect of the
    change is then "accepted" (zwave-js-ui carried it out) or shares the failure.
    """

    calls: Sequence[tuple[str, list[Any]]]

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, api, list(args)) for api, args in self.calls]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        results: list[Any] = []
        for api, args in self.calls:
            try:
                reply = await gateway.call(api, *args, timeout=timeout)
            except GatewayError as exc:
                return _for_each(change.effects, "no_answer" if lost(exc) else "failed", str(exc))
            if not reply.success or reply.result is False:
                reason = f"zwave-js-ui could not run {api}: {reply.message or 'no reason given'}"
                return _for_each(change.effects, "failed", reason)
            results.append(reply.result)
        return _for_each(change.effects, "accepted", result=results)


# How long a `writeMulticast` may go unanswered before each of its devices gets its own write. A stick that
# cannot multicast never answers it (the real test bed's), and nodes out of direct range never hear one (a
# multicast is not routed); a Set is idempotent, and the evidence is still each device's own report.
MULTICAST_ANSWER_S = 2.0

# Command classes zwave-js updates optimistically for a multicast Set (Binary and Multilevel Switch), the
# ones a group change sends as one frame; other values go one writeValue each.
MULTICAST_CCS = frozenset({CC.BINARY_SWITCH, CC.MULTILEVEL_SWITCH})


@dataclass
class Multicasting:
    """Whether group changes still go out as multicasts: ZWAVE_MCP_MULTICAST, and off for the rest of the
    server's life once one went unanswered. A stick that cannot multicast holds every command behind it for
    about a minute (the real test bed's), so a second group change would wait as long again; single writes
    work on every stick."""

    on: bool = True

    def unanswered(self) -> None:
        if self.on:
            log.warning(
                "a multicast went unanswered: group changes now write each device on its own "
                "(set ZWAVE_MCP_MULTICAST=false if the stick cannot multicast)"
            )
        self.on = False


def _multicast_key(effect: Effect) -> tuple[Any, ...] | None:
    """Effects with the same key can share one multicast frame; None: this one goes on its own."""
    value = effect.value
    if value is None or value.command_class not in MULTICAST_CCS or value.property != "targetValue":
        return None
    if effect.device.node.is_sleeping_device or effect.device.node.status == "Dead":
        return None  # a sleeper is not listening, a dead node hears nothing: neither can take a multicast
    return (value.command_class, value.endpoint, value.property, value.property_key, repr(effect.target))


@dataclass(frozen=True)
class GroupWrites:
    """Many devices at once: one `writeMulticast` for each set of nodes taking the same command class,
    property and target (one radio frame for all of them), concurrent `writeValue`s for the rest.

    zwave-js-ui's `writeMulticast` answers `success: true` with no result (its errors are only logged,
    and on CC_NotSupported it falls back to single writes itself), so a multicast's evidence is each
    device's own report ("multicast" delivery). If the call is refused or not answered within
    MULTICAST_ANSWER_S, those devices get single writes; one that stays silent after an answered multicast
    gets a single write of its own from the proof (`follow_up`).
    """

    per_effect = True  # the writes are grouped from the effects: any of them can be left out
    multicast: Multicasting = field(default_factory=Multicasting)  # off: every device its own write

    def _plan(self, change: Change) -> tuple[list[list[Effect]], list[Effect]]:
        groups: dict[tuple[Any, ...], list[Effect]] = {}
        single: list[Effect] = []
        for effect in change.effects:
            if effect.value is None:
                continue
            key = _multicast_key(effect) if self.multicast.on else None
            if key is None:
                single.append(effect)
            else:
                groups.setdefault(key, []).append(effect)
        multicast = [
            g for g in groups.values() if len({e.device.node_id for e in g}) == len(g) and len(g) > 1
        ]
        for g in groups.values():
            if g not in multicast:
                single.extend(g)
        return multicast, single

    @staticmethod
    def _multicast_args(effects: list[Effect]) -> list[Any]:
        first = effects[0]
        assert first.value is not None
        value_id = {k: v for k, v in first.value.api_value_id().items() if k != "nodeId"}
        options = [first.options] if first.options else []
        return [[e.device.node_id for e in effects], value_id, first.target, *options]

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        multicast, single = self._plan(change)
        messages = [message(gateway, "writeMulticast", self._multicast_args(g)) for g in multicast]
        return messages + [message(gateway, "writeValue", _write_args(e)) for e in single]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        multicast, single = self._plan(change)
        grouped, ones = await asyncio.gather(
            asyncio.gather(*(self._multicast(g, gateway, timeout) for g in multicast)),
            asyncio.gather(*(_write(e, gateway, timeout) for e in single)),
        )
        return [d for part in grouped for d in part] + ones

    async def _multicast(
        self, effects: list[Effect], gateway: ZwaveGateway, timeout: float
    ) -> list[Delivery]:
        args = self._multicast_args(effects)
        try:
            reply = await gateway.call("writeMulticast", *args, timeout=min(timeout, MULTICAST_ANSWER_S))
        except GatewayError as exc:
            if lost(exc):
                log.info("multicast not answered; writing one by one", extra={"nodes": args[0]})
                self.multicast.unanswered()
                return list(await asyncio.gather(*(_write(e, gateway, timeout) for e in effects)))
            return [Delivery(e, "failed", str(exc)) for e in effects]
        if not reply.success:
            log.info("multicast refused; writing one by one", extra={"why": reply.message})
            return list(await asyncio.gather(*(_write(e, gateway, timeout) for e in effects)))
        return [Delivery(e, "multicast") for e in effects]


async def follow_up(effect: Effect, gateway: ZwaveGateway, timeout: float) -> Delivery:
    """The write of one device that stayed silent after an answered multicast (issue 43 item 25): a
    multicast is not routed, so a node out of the controller's direct range never hears it. The Set is
    idempotent, and the device's own report after it is still the evidence."""
    log.info("silent after the multicast; writing it on its own", extra={"device": effect.device.label})
    return await _write(effect, gateway, timeout)


@dataclass
class AdminCall:
    """Network-care requests (issue 16) (built by `NetworkAdmin`, which names the APIs and reads
    their replies): sent in order, the last result kept for the tool. `start` replaces sending them when
    the change starts a background job that makes them (a health check, a route rebuild)."""

    requests: list[AdminRequest]
    start: Callable[[], Awaitable[Any]] | None = None
    result: Any = None
    # The evidence of a change zwave-js-ui's reply cannot show (an association removed: it answers
    # success whatever happened): read the device's state again; what it says is wrong, else None.
    verify: Callable[[], Awaitable[str | None]] | None = None

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, r.api, list(r.args)) for r in self.requests]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        try:
            if self.start is not None:
                self.result = await self.start()
            else:
                for request in self.requests:
                    self.result = await request.run()
        except GatewayError as exc:
            status: DeliveryStatus = "no_answer" if lost(exc) else "failed"
            return [Delivery(e, status, str(exc)) for e in change.effects]
        problem = await self._verified() if self.verify is not None else None
        status = "unsupervised" if problem else "accepted"
        return [Delivery(e, status, problem or "", result=self.result) for e in change.effects]

    async def _verified(self) -> str | None:
        assert self.verify is not None
        try:
            return await self.verify()
        except GatewayError as exc:
            return f"it could not be read back ({exc})"


# ---- a keypad lock's users (issue 37) ---------------------------------------------------------------

# Where a request carries the PIN, a preview shows this instead: the PIN never appears in `wouldSend`.
PIN_SHOWN = "(the PIN, not shown)"
LockOpKind = Literal["add_user", "set_user", "set_pin", "delete_user"]


@dataclass(frozen=True)
class LockOp:
    """One access-control request for a lock's user: add (with a PIN in `slot`), set (`options`: name,
    active), set its PIN in `slot`, delete. The PIN itself is the sender's, not the op's."""

    kind: LockOpKind
    user_id: int
    options: dict[str, Any] | None = None
    slot: int | None = None


@dataclass
class LockUserCalls:
    """zwave-js-ui's access-control API (11.22.0+) for one change to a lock's users: add, rename, enable or
    disable, change a PIN, remove. The PIN lives in `pin` only (never in `ops`, a preview, a reason or a
    result); zwave-js-ui echoes it in its reply (`args`, `origin`), which is read for its result only.

    zwave-js-ui answers `success: true` for refusals too: the lock's verdict is in the result codes
    (`SetUserResult`, `SetCredentialResult`), said in words by `gateway.access`. When the lock refuses the
    PIN of a user just created (User Credential locks keep the user), `undo` removes that user again. Then
    the lock's users are read again (`verify`; `after` keeps what was read): User Credential changes never
    show on MQTT, so that read is the evidence, and a change it does not show is "sent, not confirmed".
    """

    node_id: int
    endpoint: int = 0
    ops: Sequence[LockOp] = ()
    pin: str | None = field(default=None, repr=False)
    undo: LockOp | None = None
    verify: Callable[[LockUsers], str | None] | None = None
    after: LockUsers | None = None
    result: dict[str, Any] = field(default_factory=dict)
    # (user, name or None): the name zwave-mcp keeps for a user of a lock that keeps none (User Code),
    # given once the lock took the requests (no request of its own: nothing is sent for it).
    given_name: tuple[int, str | None] | None = None
    # A zwave-js-ui without the access-control API (before 11.22): a User Code lock is changed through its
    # `userCode` / `userIdStatus` values instead (`writeValue`), as zwave-js's User Code API sets them.
    values: bool = False

    def _value_id(self, prop: str, slot: int | None) -> dict[str, Any]:
        return {
            "nodeId": self.node_id,
            "commandClass": CC.USER_CODE,
            "endpoint": self.endpoint,
            "property": prop,
            "propertyKey": slot,
        }

    def _value_request(self, op: LockOp, pin: str | None) -> tuple[str, list[Any]]:
        if op.kind in ("add_user", "set_pin"):  # a code: zwave-js enables a free slot, keeps a status
            return "writeValue", [self._value_id("userCode", op.slot), pin]
        if op.kind == "set_user":
            active = (op.options or {}).get("active", True)
            return "writeValue", [self._value_id("userIdStatus", op.user_id), 1 if active else 2]
        return "writeValue", [self._value_id("userIdStatus", op.user_id), 0]  # available: cleared

    def request(self, op: LockOp, pin: str | None) -> tuple[str, list[Any]]:
        if self.values:
            return self._value_request(op, pin)
        options = dict(op.options or {})
        calls: dict[str, tuple[str, list[Any]]] = {
            "add_user": ("accessControlAddUser", [options, {"type": PIN_CODE, "slot": op.slot, "data": pin}]),
            "set_user": ("accessControlSetUser", [options]),
            "set_pin": ("accessControlSetCredential", [PIN_CODE, op.slot, pin]),
            "delete_user": ("accessControlDeleteUser", []),
        }
        api, rest = calls[op.kind]
        return api, [self.node_id, self.endpoint, op.user_id, *rest]

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, *self.request(op, PIN_SHOWN)) for op in self.ops]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        def every(status: DeliveryStatus, reason: str = "") -> list[Delivery]:
            return [Delivery(e, status, reason, result=dict(self.result)) for e in change.effects]

        for op in self.ops:
            api, args = self.request(op, self.pin)
            try:
                reply = await gateway.call(api, *args, timeout=timeout)
            except GatewayError as exc:
                return every("no_answer" if lost(exc) else "failed", str(exc))
            if not reply.success:
                return every("failed", f"zwave-js-ui refused it: {reply.message or 'no reason given'}")
            refused = _value_refusal(reply.result) if self.values else _lock_refusal(op, reply.result)
            if refused is not None:
                if self.undo is not None and op.kind == "add_user" and _user_added(reply.result):
                    refused += await self._undo(gateway, timeout)
                return every("failed", refused)
        if self.given_name is not None:
            gateway.name_lock_user(self.node_id, *self.given_name)
        if self.verify is None:
            return every("accepted")
        if self.values:  # the lock's report comes on the value lane: wait for it (bounded) before reading
            for op in self.ops:
                await _user_code_reported(gateway, self, op, timeout)
        try:
            self.after = await read_lock_users(gateway, self.node_id, timeout=timeout)
        except GatewayError as exc:
            self.result["evidence"] = f"the lock's users could not be read again ({exc})"
            return every("unsupervised", self.result["evidence"])
        problem = self.verify(self.after)
        self.result["evidence"] = problem or "the lock's users, read again, show it"
        return every("unsupervised" if problem else "accepted", problem or "")

    async def _undo(self, gateway: ZwaveGateway, timeout: float) -> str:
        assert self.undo is not None
        api, args = self.request(self.undo, None)
        try:
            reply = await gateway.call(api, *args, timeout=timeout)
            undone = reply.success and user_result_words(reply.result) is None
        except GatewayError:
            undone = False
        self.result["cleanup"] = "removed" if undone else "failed"
        if undone:
            return f"; zwave-js-ui had created user {self.undo.user_id} anyway, so it was removed again"
        return f"; zwave-js-ui created user {self.undo.user_id} anyway, and removing it again failed: remove it by hand"


def _user_added(result: Any) -> bool:
    return isinstance(result, dict) and result.get("userResult") == 0


# How long a User Code value written may take to be reported back before the users are read anyway.
USER_CODE_REPORT_S = 2.0


async def _user_code_reported(
    gateway: ZwaveGateway, sender: LockUserCalls, op: LockOp, timeout: float
) -> None:
    slot = op.slot if op.kind in ("add_user", "set_pin") else op.user_id
    value_id = f"{sender.node_id}-{CC.USER_CODE}-{sender.endpoint}-userIdStatus-{slot}"
    if op.kind in ("add_user", "set_pin"):
        statuses: tuple[int, ...] = (1, 2)  # enabled or disabled: the code is in the slot
    elif op.kind == "set_user":
        statuses = (1 if (op.options or {}).get("active", True) else 2,)
    else:
        statuses = (0,)
    await gateway.waiters.value(value_id, lambda v: v.value in statuses, min(timeout, USER_CODE_REPORT_S))


def _value_refusal(result: Any) -> str | None:
    """A `writeValue` result in words when it did not happen (SetValueStatus), else None."""
    status = result.get("status") if isinstance(result, dict) else None
    if status in (1, 254, 255):
        return None
    said = result.get("message") if isinstance(result, dict) else None
    return f"the lock did not take it ({said or f'zwave-js status {status}'})"


def _lock_refusal(op: LockOp, result: Any) -> str | None:
    """What the lock's answer says went wrong, in words; None when it took the request."""
    if op.kind == "add_user":
        if not isinstance(result, dict):
            return user_result_words(result)
        credential = result.get("credentialResult", 0)
        return user_result_words(result.get("userResult")) or credential_result_words(credential)
    if op.kind == "set_pin":
        return credential_result_words(result)
    return user_result_words(result)


# ---- a keypad lock's code schedules (issue 45 item 3) -------------------------------------------------

# zwave-js SupervisionStatus, as `setSchedule` answers (zwave-js-ui reads the slot back itself when the
# lock does not use Supervision, and answers Success or Fail from that).
_SUPERVISION_WORDS = {
    0: "the lock does not support that schedule",
    2: "the lock did not keep the schedule",
}


@dataclass(frozen=True)
class ScheduleOp:
    """One schedule request: a slot of `kind` set to `fields` (None erases it), or, with `enable`, the
    user's schedules turned on or off (`setEnabledSchedule`: off, the code works at any time)."""

    kind: str
    user_id: int
    slot_id: int = 0
    fields: dict[str, Any] | None = None
    enable: bool | None = None


@dataclass
class ScheduleCalls:
    """zwave-js-ui's schedule API (Schedule Entry Lock) for one change to a user's schedules, then the
    lock's schedules read again (`verify`; `after` keeps what was read) as the evidence."""

    node_id: int
    ops: Sequence[ScheduleOp] = ()
    verify: Callable[[LockSchedules], str | None] | None = None
    after: LockSchedules | None = None
    result: dict[str, Any] = field(default_factory=dict)

    def request(self, op: ScheduleOp) -> tuple[str, list[Any]]:
        if op.enable is not None:
            return "setEnabledSchedule", [self.node_id, op.enable, op.user_id]
        return "setSchedule", [
            self.node_id,
            op.kind,
            schedule_request(op.kind, op.user_id, op.slot_id, op.fields),
        ]

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        return [message(gateway, *self.request(op)) for op in self.ops]

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        def every(status: DeliveryStatus, reason: str = "") -> list[Delivery]:
            return [Delivery(e, status, reason, result=dict(self.result)) for e in change.effects]

        for done, op in enumerate(self.ops):
            api, args = self.request(op)
            after = f" (after {done} of {len(self.ops)} requests went through)" if done else ""
            try:
                reply = await gateway.call(api, *args, timeout=timeout)
            except GatewayError as exc:
                return every("no_answer" if lost(exc) else "failed", f"{exc}{after}")
            if not reply.success:
                return every("failed", f"zwave-js-ui refused it: {reply.message or 'no reason given'}{after}")
            status = reply.result.get("status") if isinstance(reply.result, dict) else None
            if status in _SUPERVISION_WORDS:
                return every("failed", f"{_SUPERVISION_WORDS[status]}{after}")
        if self.verify is None:
            return every("accepted")
        try:
            self.after = await read_schedules(gateway, self.node_id, timeout=timeout)
        except GatewayError as exc:
            self.result["evidence"] = f"the lock's schedules could not be read again ({exc})"
            return every("unsupervised", self.result["evidence"])
        problem = self.verify(self.after)
        self.result["evidence"] = problem or "the lock's schedules, read again, show it"
        return every("unsupervised" if problem else "accepted", problem or "")
