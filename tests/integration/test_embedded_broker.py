"""The embedded amqtt broker (the tests' fallback and `demo`'s broker) delivers retained messages as
MQTT 3.1.1 says: to a new subscription, the retained messages its filter matches, and only those."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from zwave_mcp.simulator.broker import EmbeddedBroker, literal_head

pytestmark = pytest.mark.integration

RETAINED = ["home/a/light/state", "home/a/lock/state", "home/b/light/state", "homer/x", "other/a/light/state"]


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    embedded = EmbeddedBroker()
    embedded.start()
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    publisher.connect("127.0.0.1", embedded.port)
    publisher.loop_start()
    for topic in RETAINED:
        publisher.publish(topic, topic, qos=1, retain=True).wait_for_publish(5)
    publisher.disconnect()
    publisher.loop_stop()
    yield embedded
    embedded.stop()


def _retained_for(broker: EmbeddedBroker, topic_filter: str) -> set[str]:
    """Subscribe and collect what comes retained until a marker published afterwards arrives."""
    got: set[str] = set()
    done = threading.Event()
    marker = f"marker/{len(topic_filter)}-{sum(map(ord, topic_filter))}"

    def on_message(client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        if message.topic == marker:
            done.set()
        elif message.retain:
            got.add(message.topic)

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.on_message = on_message
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        client.subscribe([(topic_filter, 1), ("marker/#", 1)])
        # QoS 1 on one connection keeps order: retained deliveries are queued before the marker arrives.
        client.publish(marker, b"", qos=1).wait_for_publish(5)
        assert done.wait(15), f"the marker after subscribing to {topic_filter} never came"
    finally:
        client.disconnect()
        client.loop_stop()
    return got


@pytest.mark.parametrize(
    ("topic_filter", "expected"),
    [
        ("home/a/#", {"home/a/light/state", "home/a/lock/state"}),
        ("home/+/light/state", {"home/a/light/state", "home/b/light/state"}),
        ("+/a/light/state", {"home/a/light/state", "other/a/light/state"}),
        ("home/#", {"home/a/light/state", "home/a/lock/state", "home/b/light/state"}),
        ("home/b/light/state", {"home/b/light/state"}),
        ("#", set(RETAINED)),
    ],
)
def test_a_subscription_gets_the_retained_messages_its_filter_matches(
    broker: EmbeddedBroker, topic_filter: str, expected: set[str]
) -> None:
    assert _retained_for(broker, topic_filter) == expected


def test_the_literal_head_of_a_filter_is_what_every_match_starts_with() -> None:
    assert literal_head("home/a/#") == "home/a/"
    assert literal_head("home/+/x") == "home/"
    assert literal_head("#") == ""
    assert literal_head("a/b") == "a/b"
