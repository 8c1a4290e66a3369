"""The gateway's two MQTT connections to one broker, and what they say about the link.

The value lane (`values`) subscribes to everything under the prefix and feeds the live picture; the
control lane (`control`) carries only API requests and their replies, so a reply never waits behind a
backlog of value updates on the value lane's socket (the broker keeps one ordered queue per connection).
"""

from __future__ import annotations

from collections.abc import Callable

from zwave_mcp.config import Settings
from zwave_mcp.gateway.mqtt import NOT_CONNECTED_YET, MessageCallback, MqttTransport
from zwave_mcp.gateway.topics import GatewayTopics, TopicKind


class Lanes:
    """`on_value(topic, payload, retain)` for every value-lane message, `on_reply(api, payload)` for each
    API reply on the control lane; `*_up()` after each (re)connect, `*_down(reason)` when one is lost."""

    def __init__(
        self,
        settings: Settings,
        topics: GatewayTopics,
        on_value: MessageCallback,
        on_values_up: Callable[[], None],
        on_values_down: Callable[[str], None],
        on_reply: Callable[[str, bytes | bytearray], None],
        on_control_up: Callable[[], None],
        on_control_down: Callable[[str], None],
    ) -> None:
        self._topics = topics
        self._on_reply = on_reply
        # With `auto` the value lane prefers MQTT 3.1.1: it needs nothing of MQTT 5.
        self.values = MqttTransport(
            settings,
            on_message=on_value,
            on_connected=on_values_up,
            on_disconnected=on_values_down,
            prefer_version="3.1.1",
            name="values",
        )
        self.control = MqttTransport(
            settings,
            on_message=self._on_control_message,
            on_connected=on_control_up,
            on_disconnected=on_control_down,
            client_id_suffix="-control",
            name="api",
        )
        self.values.subscribe(topics.subscriptions())
        self.control.subscribe([topics.api_replies()])

    def _on_control_message(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        if self._topics.classify(topic).kind is TopicKind.API_REPLY:
            self._on_reply(topic.rpartition("/")[2], payload)

    def start(self) -> None:
        self.control.start()
        self.values.start()

    async def stop(self) -> None:
        await self.values.stop()
        await self.control.stop()

    @property
    def connected(self) -> bool:
        return self.values.connected and self.control.connected

    def broker_failed(self) -> bool:
        """The broker refused a lane or could not be reached since the last connection attempt."""
        return any(
            not lane.connected and lane.last_error not in (None, NOT_CONNECTED_YET)
            for lane in (self.values, self.control)
        )

    def problem(self) -> str | None:
        """Why the broker cannot be used, in words; None while both lanes are up. A lane that has failed
        tells more than one whose first attempt has not finished ("not connected yet")."""
        down = [lane for lane in (self.values, self.control) if not lane.connected]
        failed = [lane for lane in down if lane.last_error not in (None, NOT_CONNECTED_YET)]
        return (failed or down)[0].unavailable_text() if down else None

    def last_error(self) -> str | None:
        return self.values.last_error or self.control.last_error

    def protocols(self) -> str | None:
        """The MQTT version in use: "5", or "5 (value lane 3.1.1)" when the lanes differ."""
        control, values = self.control.protocol, self.values.protocol
        if control is None or values is None or control == values:
            return control and values
        return f"{control} (value lane {values})"
