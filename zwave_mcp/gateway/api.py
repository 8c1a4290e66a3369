"""zwave-js-ui's MQTT API: request/reply matching, timeouts, and reading `writeValue` results.

A request goes to `<prefix>/_CLIENTS/ZWAVE_GATEWAY-<name>/api/<api>/set` as `{"args": [...]}`; the reply
comes on the same topic without `/set`. There is no request id, but zwave-js-ui echoes the parsed
request payload as `origin`, so we add our own key (`CORRELATION_KEY`) and match on it. That keeps any
number of calls in flight to the same API name, and ignores replies to other clients' calls.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol, cast

from zwave_mcp.gateway.secrets import blank, scrub_api_reply, secret_strings
from zwave_mcp.gateway.topics import GatewayTopics
from zwave_mcp.safetext import MESSAGE_MAX, loads_json_fast, plain_text
from zwave_mcp.zwave import wire
from zwave_mcp.zwave.classes import CC

log = logging.getLogger(__name__)

# Our key inside the request payload; zwave-js-ui reads only `args` and echoes the rest in `origin`.
CORRELATION_KEY = "zwaveMcpId"

# zwave-js-ui's `driverFunction` runs arbitrary JavaScript inside it: never exposed, never sent.
NEVER_SENT_APIS = frozenset({"driverFunction"})
# A command class API of zwave-js called by name (ctx {nodeId, commandClass, endpoint}, command, args).
# Most of its commands change a device (the gate's); these are reads. Their results may carry a code
# (a Door Lock Logging record's `userCode`), dropped from the reply like an access-control state's.
CC_COMMAND_API = "sendCommand"
CC_READS: dict[int, tuple[str, ...]] = {CC.DOOR_LOCK_LOGGING: ("getRecordsCount", "getRecord")}

# Requests go out with QoS 0, on purpose. The captures show a QoS 1 request costs ~46 ms against ~4 ms at
# QoS 0: the broker then delivers at QoS 1 and zwave-js-ui's PUBACK waits on Nagle/delayed ACK. QoS 1
# would buy nothing we need: with clean sessions on both sides a request is not redelivered across a
# reconnect anyway, a request lost while the broker is up is caught by our timeout (the caller sees
# "did not answer"), and a redelivered duplicate could run a write twice. QoS 0 is "at most once".
REQUEST_QOS = 0

# A call made while the broker link is down waits this long (at most its own timeout) for a reconnect
# before failing: covers the start-up connect and a quick broker restart without hanging anyone.
CONNECT_GRACE_S = 2.0


class GatewayError(Exception):
    """A gateway problem worth showing to a person; the message says what happened."""


class ApiUnavailable(GatewayError):
    """The request could not be sent (no broker connection) or its reply can no longer come."""


class ApiTimeout(GatewayError):
    """zwave-js-ui did not answer in time (the request went out: it may still have been carried out)."""


class ApiReplyLost(ApiUnavailable):
    """The broker link dropped after the request went out: it may still have been carried out."""


@dataclass(slots=True)
class ApiReply:
    """zwave-js-ui's reply envelope: `success`, `message`, `result` (absent → None), the whole dict."""

    success: bool
    message: str
    result: Any
    raw: wire.Reply = field(repr=False)


class Publisher(Protocol):
    """What the API client needs from the transport (the real one is `zwave_mcp.gateway.mqtt.MqttTransport`)."""

    @property
    def connected(self) -> bool: ...

    def publish(self, topic: str, payload: bytes | str, qos: int = 0, retain: bool = False) -> None: ...

    async def wait_connected(self, timeout: float) -> bool: ...

    def unavailable_text(self) -> str: ...


class ApiClient:
    """Sends API requests and pairs each reply with its caller. Runs on the event loop thread."""

    def __init__(self, transport: Publisher, topics: GatewayTopics, default_timeout: float = 10.0) -> None:
        self._transport = transport
        self._topics = topics
        self._default_timeout = default_timeout
        # Unique per process and per client, so two servers on one broker never take each other's replies.
        self._token = uuid.uuid4().hex[:12]
        self._counter = itertools.count(1)
        # Per call in flight: its API, its future, and the codes it sent (a PIN), blanked in whatever its
        # reply says.
        self._pending: dict[str, tuple[str, asyncio.Future[ApiReply], list[str]]] = {}
        # Replies that deserve their own JSON decoding (getNodes: values become model objects as they are
        # decoded, which halves the peak memory of a big house); everything else is `loads_json_fast`.
        self.decoders: dict[str, Callable[[bytes | bytearray], Any]] = {}

    def build_request(
        self, api: str, args: list[Any], correlation: str | None = None
    ) -> tuple[str, dict[str, Any]]:
        """The topic and payload of a request (also what a dry run shows)."""
        payload: dict[str, Any] = {"args": args}
        if correlation is not None:
            payload[CORRELATION_KEY] = correlation
        return self._topics.api_request(api), payload

    async def call(self, api: str, *args: Any, timeout: float | None = None) -> ApiReply:
        """Call `api` with `args`; the reply, or `ApiTimeout` / `ApiUnavailable`. Never hangs."""
        if api in NEVER_SENT_APIS:
            raise GatewayError(f"{api} is never sent: it would run arbitrary code inside zwave-js-ui")
        timeout = self._default_timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if not self._transport.connected and not await self._transport.wait_connected(
            min(timeout, CONNECT_GRACE_S)
        ):
            raise ApiUnavailable(self._transport.unavailable_text())
        correlation = f"{self._token}-{next(self._counter)}"
        topic, payload = self.build_request(api, list(args), correlation)
        future: asyncio.Future[ApiReply] = loop.create_future()
        self._pending[correlation] = (api, future, secret_strings(api, list(args)))
        try:
            self._transport.publish(topic, json.dumps(payload, separators=(",", ":")), qos=REQUEST_QOS)
            # Not wait_for: it wakes the caller one loop turn after the reply (through a future of its own),
            # and the value lane's reads run in that turn.
            async with asyncio.timeout_at(deadline):
                return await future
        except TimeoutError:
            raise ApiTimeout(f"zwave-js-ui did not answer {api} within {timeout:g} s") from None
        except ConnectionError as exc:  # MqttUnavailable from publish
            raise ApiUnavailable(str(exc)) from None
        finally:
            self._pending.pop(correlation, None)

    def handle_reply(self, api: str, payload: bytes | bytearray) -> None:
        """A message on `.../api/<api>`: resolve the matching call; anything else is logged at debug."""
        if all(entry[0] != api for entry in self._pending.values()):
            log.debug("API reply for %s ignored: no call of ours in flight", api)
            return
        try:
            reply = self.decoders.get(api, loads_json_fast)(payload)
        except (ValueError, RecursionError):
            log.debug("API reply for %s ignored: not JSON (%d bytes)", api, len(payload))
            return
        origin = reply.get("origin") if isinstance(reply, dict) else None
        correlation = origin.get(CORRELATION_KEY) if isinstance(origin, dict) else None
        entry = self._pending.get(correlation) if isinstance(correlation, str) else None
        if entry is None or entry[0] != api:
            log.debug("API reply for %s ignored: not one of our calls", api)
            return
        _, future, secrets = entry
        if not future.done():
            # Lock codes stop here: the echoed request (`args`, `origin`) and the credentials' `data` of
            # an access-control reply never reach the caller, nor a PIN the gateway's words repeat. (A
            # dict, as its `origin` was found; its fields are checked as they are read.)
            envelope = scrub_api_reply(
                cast(wire.Reply, reply), api, CORRELATION_KEY, holds_codes=api == CC_COMMAND_API
            )
            message = blank(str(envelope.get("message") or ""), secrets)
            future.set_result(
                ApiReply(
                    success=envelope.get("success") is True,
                    message=plain_text(message, MESSAGE_MAX),
                    result=envelope.get("result"),
                    raw=envelope,
                )
            )

    def fail_all(self, reason: str) -> None:
        """The broker link dropped: replies to calls in flight can no longer arrive (clean session)."""
        for api, future, _ in list(self._pending.values()):
            if not future.done():
                future.set_exception(
                    ApiReplyLost(
                        f"{reason} before zwave-js-ui answered {api}; the request may still have been carried out"
                    )
                )


class SetValueStatus(IntEnum):
    """zwave-js `SetValueStatus`, read from `writeValue`'s `result.status`."""

    text: str  # what the status says, when zwave-js-ui's reply says nothing of its own

    def __new__(cls, number: int, text: str) -> SetValueStatus:
        member = int.__new__(cls, number)
        member._value_ = number
        member.text = text
        return member

    NO_DEVICE_SUPPORT = 0, "the device does not support this value"
    WORKING = 1, "the device is carrying out the change"
    FAIL = 2, "the device did not accept the command"
    ENDPOINT_NOT_FOUND = 3, "the device has no such endpoint"
    NOT_IMPLEMENTED = 4, "zwave-js cannot set this value"
    INVALID_VALUE = 5, "the value is not valid for this setting"
    SUCCESS_UNSUPERVISED = 254, "the command was sent (the device does not confirm it)"
    SUCCESS = 255, "the device confirmed the change"


@dataclass(slots=True)
class WriteResult:
    """What `writeValue` said. `success: true` on the envelope means nothing; `status` is the truth.

    `status` None means no usable status (API error, dry run). `dry_run_message` holds the exact MQTT
    message a dry run would have published.
    """

    status: SetValueStatus | None
    message: str
    remaining_duration: Any = None
    value_id: dict[str, Any] | None = None
    target: Any = None
    reply: ApiReply | None = field(default=None, repr=False)
    dry_run_message: dict[str, Any] | None = None

    @property
    def succeeded(self) -> bool:
        """Accepted: confirmed (255), sent unsupervised (254) or in progress (1)."""
        return self.status in (
            SetValueStatus.SUCCESS,
            SetValueStatus.SUCCESS_UNSUPERVISED,
            SetValueStatus.WORKING,
        )

    @property
    def working(self) -> bool:
        return self.status is SetValueStatus.WORKING

    @property
    def dry_run(self) -> bool:
        return self.dry_run_message is not None

    @classmethod
    def from_reply(cls, reply: ApiReply, value_id: dict[str, Any], target: Any) -> WriteResult:
        result = reply.result if isinstance(reply.result, dict) else {}
        raw_status = result.get("status")
        # A plain int (not True, not 255.0) that zwave-js defines.
        found = SetValueStatus._value2member_map_.get(raw_status) if type(raw_status) is int else None
        status = found if isinstance(found, SetValueStatus) else None
        if not reply.success:
            message = reply.message or "zwave-js-ui refused the write"
        elif status is None:
            message = (
                f"zwave-js-ui answered without a usable write status ({plain_text(repr(raw_status), 40)})"
            )
        else:
            gateway_text = result.get("message")
            message = (
                plain_text(gateway_text, MESSAGE_MAX)
                if isinstance(gateway_text, str) and plain_text(gateway_text)
                else status.text
            )
        return cls(
            status=status if reply.success else None,
            message=message,
            remaining_duration=result.get("remainingDuration"),
            value_id=value_id,
            target=target,
            reply=reply,
        )
