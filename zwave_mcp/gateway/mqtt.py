"""MQTT transport: one paho-mqtt 2.x session for the life of the process, driven by the asyncio loop.

No zwave-js-ui knowledge here: connect (TLS, auth), reconnect with backoff, subscribe, publish, and hand
every incoming message to one callback. paho runs without a thread of its own, on its public API for an
external event loop (`loop_read`, `loop_write`, `loop_misc` and the socket callbacks; the way aiomqtt
does it): its socket is registered with the event loop (`add_reader`/`add_writer`), so messages are
handled on the loop thread with no per-message thread hop. Only the blocking part of a connection
attempt (DNS, TCP connect, TLS handshake) runs in an executor thread. How the incoming packets are read
is the one seam where we do more than paho's public API: `mqtt_reads` (why, with figures, there).

Everything public must be called from the event loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import ssl
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from zwave_mcp.config import Settings, build_tls_context
from zwave_mcp.gateway.mqtt_reads import MalformedPacket, Reads, reads_for
from zwave_mcp.logs import watch_task

log = logging.getLogger(__name__)


class ConnectionLog(logging.LoggerAdapter[logging.Logger]):
    """The module's logger for one connection: its name leads every message ("[values] MQTT connected
    …") and fills every record's `connection` field, so the lines of the value lane and the control
    lane, which are otherwise alike, can be told apart."""

    def __init__(self, name: str) -> None:
        super().__init__(log, {"connection": name})
        self.connection = name

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        kwargs["extra"] = {**(kwargs.get("extra") or {}), "connection": self.connection}
        return f"[{self.connection.replace('%', '%%')}] {msg}", kwargs


# `last_error` before the first attempt has finished: nothing has failed yet.
NOT_CONNECTED_YET = "not connected yet"

# Reconnect backoff, in seconds: attempt n waits BASE * FACTOR**(n-2) (the first attempt does not wait),
# never more than CAP. CAP is short on purpose: a broker that comes back (a Mosquitto restart, a router
# reboot) must be in use again within ~2 s, and a refused TCP connect every 2 s costs nothing.
RECONNECT_BASE_S = 0.2
RECONNECT_FACTOR = 2.0
RECONNECT_CAP_S = 2.0
# Seconds the blocking part of one attempt (TCP connect + TLS handshake) may take.
CONNECT_TIMEOUT_S = 5.0
# How often paho's housekeeping (keepalive pings, ping timeouts) runs.
MISC_INTERVAL_S = 1.0

MessageCallback = Callable[[str, bytes | bytearray, bool], None]

# The CONNACK reason a broker gives when it does not speak the protocol level we asked for (a 3.1.1 broker's
# return code 1 reaches paho's MQTT 5 parser as this code).
UNSUPPORTED_PROTOCOL_VERSION = 0x84
# With `mqtt_version=auto`: what each broker (host:port, preferred version) turned out to speak in this
# process, so a later connection starts with the right version and the log says it once.
_versions_in_use: dict[tuple[str, str], str] = {}


class MqttUnavailable(ConnectionError):
    """Publishing is impossible right now; the text says why in words a person understands."""


def backoff_delay(attempt: int) -> float:
    """Seconds to wait before connection attempt number `attempt` (1-based; the first is immediate)."""
    if attempt <= 1:
        return 0.0
    return min(RECONNECT_CAP_S, RECONNECT_BASE_S * RECONNECT_FACTOR ** (attempt - 2))


def default_client_id() -> str:
    """Unique per process, so two servers on one broker never kick each other off."""
    return f"zwave-mcp-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def describe_connect_error(exc: BaseException, address: str) -> str:
    """A failed TCP/TLS connect → one human sentence fragment (no secrets: exceptions here carry none)."""
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused by {address}"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the broker host of {address} ({exc.strerror or exc})"
    if isinstance(exc, TimeoutError):
        return f"no answer from {address} within {CONNECT_TIMEOUT_S:g} s"
    if isinstance(exc, ssl.SSLCertVerificationError):
        detail = getattr(exc, "verify_message", None) or getattr(exc, "reason", None) or exc
        return f"TLS certificate of {address} not trusted: {detail}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error with {address}: {getattr(exc, 'reason', None) or exc}"
    return f"cannot connect to {address}: {getattr(exc, 'strerror', None) or exc}"


class MqttTransport:
    """One persistent MQTT session: reconnects forever, resubscribes, tells its owner.

    `on_message(topic, payload, retain)` runs on the loop thread for every message; `on_connected()` after
    each successful (re)connect once the subscriptions are sent; `on_disconnected(reason)` when a live
    connection is lost. Exceptions from these callbacks are logged and swallowed.
    """

    def __init__(
        self,
        settings: Settings,
        on_message: MessageCallback,
        on_connected: Callable[[], None] | None = None,
        on_disconnected: Callable[[str], None] | None = None,
        client_id_suffix: str = "",
        prefer_version: str = "5",
        name: str = "mqtt",
    ) -> None:
        """`name` says which connection this is in every log line (the gateway's "values" and "api")."""
        self._log = ConnectionLog(name)
        self._settings = settings
        self._on_message_cb = on_message
        self._on_connected_cb = on_connected
        self._on_disconnected_cb = on_disconnected
        self.address = f"{settings.mqtt_host}:{settings.mqtt_port}"
        self.client_id = (settings.mqtt_client_id or default_client_id()) + client_id_suffix
        # The protocol version of the next attempt: "5" or "3.1.1". With `auto`, `prefer_version` until the
        # broker refuses it (or stays silent), then the other one.
        self._auto = settings.mqtt_version == "auto"
        self._memory_key = (self.address, prefer_version)
        self._prefer = prefer_version
        self._version = (
            _versions_in_use.get(self._memory_key, prefer_version) if self._auto else settings.mqtt_version
        )
        self._version_refused = False  # the last CONNACK said "unsupported protocol version"
        self._connack_seen = False  # the last attempt got a CONNACK at all
        self.last_error: str | None = NOT_CONNECTED_YET
        self._subscriptions: dict[str, int] = {}
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()  # set when a live connection ends
        self._connected = asyncio.Event()  # set while the broker has us
        self._sock: Any = None
        self._misc_handle: asyncio.TimerHandle | None = None
        self._drain_handle: asyncio.Handle | None = None
        self._reads: Reads
        self._client = self._make_client()

    # -- public -----------------------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def protocol(self) -> str | None:
        """The MQTT version of the live connection ("5" or "3.1.1"); None while not connected."""
        return self._version if self.connected else None

    def start(self) -> None:
        """Begin connecting in the background and return at once (the MCP handshake must not wait)."""
        if self._runner is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._stopping = False
        self._runner = watch_task(self._loop.create_task(self._run(), name="mqtt-connection"))

    async def stop(self) -> None:
        self._stopping = True
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
            self._runner = None
        if self._sock is not None:
            with contextlib.suppress(Exception):
                self._client.disconnect()
                self._client.loop_write()  # flush DISCONNECT so the broker drops our will cleanly
        self._close()
        self._set_disconnected("stopped")

    async def wait_connected(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), timeout)
        return self.connected

    def subscribe(self, topics: Iterable[str], qos: int = 0) -> None:
        """Remember the filters (re-sent on every reconnect) and subscribe now if connected."""
        new = [(t, qos) for t in topics if self._subscriptions.get(t) != qos]
        self._subscriptions.update(new)
        if new and self.connected:
            self._client.subscribe(self._filters(new))

    def _filters(self, topics: Iterable[tuple[str, int]]) -> list[tuple[str, Any]]:
        """Subscription filters for paho. On MQTT 5 with `noLocal`: the broker does not send our own
        publishes back (each API request would otherwise come back to us just before its reply)."""
        if self._settings.mqtt_version != "5":
            return list(topics)
        return [(topic, SubscribeOptions(qos=qos, noLocal=True)) for topic, qos in topics]

    def publish(self, topic: str, payload: bytes | str, qos: int = 0, retain: bool = False) -> None:
        """Queue a message; raises `MqttUnavailable` when not connected (nothing is queued for later)."""
        if not self.connected:
            raise MqttUnavailable(self.unavailable_text())
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise MqttUnavailable(
                f"cannot publish to the MQTT broker at {self.address}: {paho.error_string(info.rc)}"
            )
        # We are on the loop thread: send now instead of waiting a loop turn for the writer callback
        # (what is left unsent, if anything, still goes out when the socket is writable).
        self._writable()

    def unavailable_text(self) -> str:
        reason = self.last_error or "not connected"
        if self.address in reason:  # the reason names the broker already ("connection refused by …")
            return f"cannot reach the MQTT broker: {reason}"
        return f"cannot reach the MQTT broker at {self.address}: {reason}"

    # -- paho set-up ------------------------------------------------------------------------------------
    def _make_client(self) -> paho.Client:
        s = self._settings
        v5 = self._version == "5"
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=MQTTProtocolVersion.MQTTv5 if v5 else MQTTProtocolVersion.MQTTv311,
            # A clean session each time: we resubscribe and resync ourselves after a reconnect, and we do
            # not want the broker to replay stale replies or value updates queued while we were away.
            clean_session=None if v5 else True,
        )
        client.connect_timeout = CONNECT_TIMEOUT_S
        if s.mqtt_user is not None:
            client.username_pw_set(s.mqtt_user, s.mqtt_secret)
        if s.mqtt_tls:
            client.tls_set_context(build_tls_context(s, self._log))
            if s.tls_insecure:
                client.tls_insecure_set(True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_socket_close = self._on_socket_close
        client.on_socket_register_write = self._on_register_write
        client.on_socket_unregister_write = self._on_unregister_write
        self._reads = reads_for(client, self._deliver, v5)
        return client

    # -- connection loop --------------------------------------------------------------------------------
    async def _run(self) -> None:
        assert self._loop is not None
        attempt = 0
        while not self._stopping:
            attempt += 1
            delay = backoff_delay(attempt) * random.uniform(0.8, 1.0)  # jitter only downwards: the cap holds
            self._log.info(
                "MQTT connection attempt %d to %s in %.2f s",
                attempt,
                self.address,
                delay,
                extra={"attempt": attempt, "delay_s": round(delay, 3), "broker": self.address},
            )
            if delay:
                await asyncio.sleep(delay)
            self._lost.clear()
            if not await self._attempt():
                continue
            if not await self._wait_connack():
                # Some brokers that do not speak a version hang up or stay silent instead of saying so
                # (amqtt does with an MQTT 5 login): until one version has worked, try the other.
                silent = not self._connack_seen and self._memory_key not in _versions_in_use
                if self._auto and (self._version_refused or silent):
                    if self._version_refused and self._version == self._prefer:
                        attempt = 0  # not a failure to back off from: try the other version at once
                    self._use_version("3.1.1" if self._version == "5" else "5")
                continue
            await self._lost.wait()
            attempt = 0  # a session that was up starts the backoff afresh

    def _use_version(self, version: str) -> None:
        """Speak `version` from the next attempt on (paho fixes the protocol when the client is made)."""
        self._log.info(
            "the MQTT broker at %s did not take MQTT %s: trying MQTT %s",
            self.address,
            self._version,
            version,
            extra={"broker": self.address, "mqtt_version": version},
        )
        self._close()
        self._version = version
        self._client = self._make_client()

    def _note_version(self) -> None:
        """With `auto`, say once per broker which version is in use, and remember it for other lanes."""
        if not self._auto or _versions_in_use.get(self._memory_key) == self._version:
            return
        _versions_in_use[self._memory_key] = self._version
        self._log.info(
            "MQTT %s in use with the broker at %s (chosen automatically: ZWAVE_MCP_MQTT_VERSION=auto)",
            self._version,
            self.address,
            extra={"broker": self.address, "mqtt_version": self._version},
        )

    async def _wait_connack(self) -> bool:
        """True once the broker accepted us; False if it refused, hung up or stayed silent."""
        waiters = [
            asyncio.ensure_future(self._connected.wait()),
            asyncio.ensure_future(self._lost.wait()),
        ]
        try:
            await asyncio.wait(waiters, timeout=CONNECT_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        if self.connected:
            return True
        if not self._lost.is_set():
            self._connection_broken(
                f"the broker at {self.address} did not answer CONNECT within {CONNECT_TIMEOUT_S:g} s"
            )
        return False

    async def _attempt(self) -> bool:
        """One TCP/TLS connect + CONNECT; True when the socket is up (CONNACK is handled in `_on_connect`)."""
        assert self._loop is not None
        s = self._settings
        connect_kwargs: dict[str, Any] = {"keepalive": s.mqtt_keepalive}
        if self._version == "5":
            connect_kwargs["clean_start"] = True
        self._version_refused = False
        self._connack_seen = False
        try:
            await self._loop.run_in_executor(
                None, lambda: self._client.connect(s.mqtt_host, s.mqtt_port, **connect_kwargs)
            )
        except Exception as exc:
            self.last_error = describe_connect_error(exc, self.address)
            self._log.warning("MQTT connection failed: %s", self.last_error, extra={"broker": self.address})
            return False
        sock = self._client.socket()
        if sock is None:
            self.last_error = f"cannot connect to {self.address}: socket closed during the handshake"
            return False
        self._attach(sock)
        return True

    def _attach(self, sock: Any) -> None:
        """Hook the socket into the loop; also where TCP_NODELAY goes (paho never sets it)."""
        assert self._loop is not None
        with contextlib.suppress(OSError, AttributeError):
            # ~40 ms of Nagle + delayed ACK per QoS 1 round trip otherwise (see the captures' timing notes).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        self._reads.attach(sock)
        self._loop.add_reader(sock, self._readable)
        if self._client.want_write():
            self._loop.add_writer(sock, self._writable)
        self._schedule_misc()

    def _detach(self) -> None:
        for handle in (self._misc_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._misc_handle = self._drain_handle = None
        if self._sock is not None and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._sock)
                self._loop.remove_writer(self._sock)
        self._sock = None
        self._reads.detach()

    # -- loop callbacks ---------------------------------------------------------------------------------
    def _readable(self) -> None:
        """The socket has bytes. Under a flood a batch is already due this turn (`_drain`): one batch
        per turn keeps the other lane and the MCP session getting theirs."""
        if self._drain_handle is None:
            self._read_batch()

    def _drain(self) -> None:
        self._drain_handle = None
        self._read_batch()

    def _read_batch(self) -> None:
        """Read what this turn allows (`mqtt_reads.READ_BATCH` packets); whole packets left over are
        handled next turn (`_drain`): the socket may have nothing new to say."""
        sock = self._sock
        try:
            more = self._reads.read_batch()
        except MalformedPacket as exc:
            self._log.warning("the MQTT broker at %s sent a malformed packet: %s", self.address, exc)
            self._connection_broken(f"the broker at {self.address} sent a malformed packet ({exc})")
            return
        except Exception as exc:  # a broken socket: paho usually handles it, this is the belt
            self._log.debug("MQTT read failed: %s", exc)
            self._connection_broken(f"lost the connection to {self.address}: {exc}")
            return
        if more and self._sock is sock:
            assert self._loop is not None
            self._drain_handle = self._loop.call_soon(self._drain)

    def _deliver(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        try:
            self._on_message_cb(topic, payload, retain)
        except Exception:
            self._log.debug("message handler failed on %s", topic, exc_info=True)

    def _writable(self) -> None:
        try:
            self._client.loop_write()
        except Exception as exc:
            self._log.debug("MQTT write failed: %s", exc)
            self._connection_broken(f"lost the connection to {self.address}: {exc}")

    def _misc(self) -> None:
        self._misc_handle = None
        try:
            self._client.loop_misc()
        except Exception as exc:
            self._log.debug("MQTT housekeeping failed: %s", exc)
        if self._sock is not None:
            self._schedule_misc()

    def _schedule_misc(self) -> None:
        assert self._loop is not None
        if self._misc_handle is None:
            self._misc_handle = self._loop.call_later(MISC_INTERVAL_S, self._misc)

    def _connection_broken(self, reason: str) -> None:
        self._close()
        self._set_disconnected(reason)

    def _close(self) -> None:
        """Stop watching the socket and close it. paho is not told (it has no public "close now" for a
        loop it does not run): it is never driven on this socket again, and its next `connect` starts
        afresh."""
        sock = self._sock or self._client.socket()
        self._detach()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()

    # -- paho callbacks (all on the loop thread, except socket callbacks during connect) ----------------
    def _on_register_write(self, client: paho.Client, userdata: Any, sock: Any) -> None:
        # During connect() paho calls this from the executor thread, before `_attach`, which then checks
        # `want_write()` itself; so only act when the socket is already ours (i.e. on the loop thread).
        if sock is self._sock and self._loop is not None:
            self._loop.add_writer(sock, self._writable)

    def _on_unregister_write(self, client: paho.Client, userdata: Any, sock: Any) -> None:
        if sock is self._sock and self._loop is not None:
            self._loop.remove_writer(sock)

    def _on_socket_close(self, client: paho.Client, userdata: Any, sock: Any) -> None:
        if sock is self._sock:
            self._detach()

    def _on_connect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any
    ) -> None:
        self._connack_seen = True
        if reason.is_failure:
            if reason.value == UNSUPPORTED_PROTOCOL_VERSION:
                self._version_refused = True
                if self._auto and self._version == self._prefer:
                    return  # not a failure anyone needs to hear of: the next attempt speaks the other
            self.last_error = f"the broker at {self.address} refused the connection: {str(reason).lower()}"
            if self._version_refused:
                self.last_error += f" (it does not speak MQTT {self._version}; see ZWAVE_MCP_MQTT_VERSION)"
            self._log.warning("MQTT connection refused: %s", self.last_error, extra={"broker": self.address})
            return
        self.last_error = None
        self._connected.set()
        self._log.info(
            "MQTT connected to %s as %s (MQTT %s)",
            self.address,
            self.client_id,
            self._version,
            extra={"broker": self.address, "mqtt_version": self._version},
        )
        self._note_version()
        if self._subscriptions:
            client.subscribe(self._filters(self._subscriptions.items()))
        if self._on_connected_cb is not None:
            try:
                self._on_connected_cb()
            except Exception:
                self._log.exception("on_connected callback failed")

    def _on_disconnect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any
    ) -> None:
        if self._stopping:
            reason_text = "stopped"
        elif not self.connected:
            reason_text = self.last_error or f"the broker at {self.address} closed the connection"
        else:
            detail = str(reason).lower()
            says_nothing = detail in ("success", "normal disconnection", "unspecified error")
            reason_text = f"lost the connection to {self.address}" + ("" if says_nothing else f" ({detail})")
        self._detach()
        self._set_disconnected(reason_text)

    def _set_disconnected(self, reason: str) -> None:
        was_connected = self.connected
        self._connected.clear()
        self.last_error = reason
        self._lost.set()
        if was_connected:
            self._log.log(
                logging.INFO if self._stopping else logging.WARNING,
                "MQTT disconnected: %s",
                reason,
                extra={"broker": self.address},
            )
            if self._on_disconnected_cb is not None and not self._stopping:
                try:
                    self._on_disconnected_cb(reason)
                except Exception:
                    self._log.exception("on_disconnected callback failed")
