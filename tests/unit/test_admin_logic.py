"""Pure parts of network care: QR codes, parameter choice and range checks, health-check answers, and the
inclusion tracker fed with zwave-js-ui's controller events."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from zwave_mcp.errors import UserError
from zwave_mcp.gateway import admin as ga
from zwave_mcp.gateway.nodes import parse_value
from zwave_mcp.network.maintenance import health_summary
from zwave_mcp.network.parameters import parse_target, pick_parameter
from zwave_mcp.simulator.admin import make_qr, parse_qr
from zwave_mcp.simulator.samples import config_values

DSK = "34567-11111-22222-33333-44444-55555-66666-77777"


def test_qr_code_round_trip_and_checksum() -> None:
    qr = make_qr(DSK, [0, 1], version=0)
    parsed = parse_qr(qr)
    assert parsed["dsk"] == DSK and parsed["version"] == 0 and parsed["securityClasses"] == [0, 1]
    assert parsed["manufacturerId"] == 0xFFF0
    broken = qr[:20] + ("1" if qr[20] != "1" else "2") + qr[21:]
    with pytest.raises(RuntimeError, match="checksum"):
        parse_qr(broken)
    with pytest.raises(RuntimeError, match="Invalid QR code"):
        parse_qr("hello")


def _params() -> list[Any]:
    return [parse_value(v, 9) for v in config_values(9).values()]


def test_parameters_by_number_or_label_and_their_range() -> None:
    params = _params()
    device: Any = SimpleNamespace(name="Bulb")
    assert pick_parameter(params, "led indicator", device).property == 3
    assert pick_parameter(params, "2", device).label == "Motion clear delay"
    with pytest.raises(UserError, match="Its parameters are: 1 \\(Motion sensitivity\\)"):
        pick_parameter(params, "colour", device)
    delay, led = params[1], params[2]
    assert delay.default == 30 and delay.unit == "seconds"
    assert (
        parse_target(led, "Off") == 0 and parse_target(delay, "45") == 45 and parse_target(delay, 60.0) == 60
    )
    with pytest.raises(UserError, match="takes 5 to 600 seconds; 601 is out of range"):
        parse_target(delay, 601)
    with pytest.raises(UserError, match="Its options are: Off, On"):
        parse_target(led, "blinking")


def test_health_answer_says_what_was_measured() -> None:
    sentence, measured = health_summary(
        {
            "rating": 7,
            "targetNodeId": 1,
            "results": [
                {"latency": 12, "failedPingsNode": 0, "rating": 10},
                {"latency": 40, "failedPingsNode": 3, "rating": 7},
            ],
        },
        lifeline=True,
    )
    assert sentence == "rating 7 of 10 (2 rounds of 10 pings, latency 12 to 40 ms, 3 failed pings)"
    assert measured["failedPings"] == 3 and measured["targetNodeId"] == 1


class _Gateway:
    def __init__(self) -> None:
        self.inventory = SimpleNamespace(add_event_listener=self._listen)
        self.resyncs = 0
        self.listener: Any = None

    def _listen(self, cb: Any) -> None:
        self.listener = cb

    def resync(self) -> None:
        self.resyncs += 1


def test_inclusion_tracker_follows_the_controller_events() -> None:
    gateway = _Gateway()
    network = ga.NetworkAdmin(gateway)  # type: ignore[arg-type]
    feed = gateway.listener
    feed("controller", "inclusion_started", [True])
    feed("controller", "node_found", [{"id": 12}])
    feed("controller", "inclusion_stopped", [])
    assert network.progress.phase == ga.FOUND  # the stick stops inclusion mode once a node is found
    feed("controller", "grant_security_classes", [{"securityClasses": [1, 0], "clientSideAuth": False}])
    assert network.progress.pending_question == "grant" and network.progress.requested_classes == [1, 0]
    feed("controller", "validate_dsk", [DSK[5:]])
    assert network.progress.pending_question == "pin" and network.progress.partial_dsk == DSK[5:]
    feed("controller", "node_added", [{"id": 12, "name": ""}])
    feed("node", "node_interview_completed", [{"id": 12}])
    assert network.progress.phase == ga.READY and gateway.resyncs == 2
    assert (
        ga.security_words("S2_AccessControl") == "S2 access control" and ga.security_words("None") == "none"
    )


def test_a_health_answer_with_junk_counts_says_what_it_can() -> None:
    """A count that was text or an object, or a latency no float holds, made the health check raise."""
    sentence, _measured = health_summary(
        {
            "rating": 7,
            "results": [
                {"latency": 10**400, "failedPingsNode": "many", "rating": 10},
                {"latency": 40, "failedPingsNode": {"x": 1}, "rating": 7},
                {"failedPingsToTarget": [1], "failedPingsToSource": 10**400},
            ],
        },
        lifeline=True,
    )
    assert sentence.startswith("rating 7 of 10 (3 rounds of 10 pings, latency 40 to 40 ms"), sentence
    health_summary({"results": [{"failedPingsToTarget": "x", "failedPingsToSource": None}]}, lifeline=False)


@pytest.mark.parametrize(
    ("strategy", "requested", "security", "downgraded_from"),
    [
        (ga.STRATEGY["s2"], [1, 0], "S2_Authenticated", None),
        (ga.STRATEGY["s2"], [1, 0], "S2_Unauthenticated", 1),  # less than the best it asked for
        (ga.STRATEGY["s2"], [1, 0], "S0_Legacy", 1),
        (ga.STRATEGY["s2"], [1, 0], "None", 1),
        (ga.STRATEGY["default"], [2], None, 2),
        (ga.STRATEGY["s0"], [], "S0_Legacy", None),  # S0 asks no question: the strategy says what was asked
        (ga.STRATEGY["s0"], [], "None", 7),
        (ga.STRATEGY["insecure"], [], "None", None),  # nothing asked, nothing lost
        (ga.STRATEGY["default"], [], "None", None),
    ],
)
def test_an_inclusion_with_less_security_than_asked_is_a_downgrade(
    strategy: int, requested: list[int], security: str | None, downgraded_from: int | None
) -> None:
    progress = ga.InclusionProgress(phase=ga.READY, strategy=strategy, requested_classes=requested)
    assert progress.downgrade(security) == downgraded_from


def test_a_grant_question_lists_three_classes_as_spoken() -> None:
    from zwave_mcp.network.inclusion import grant_question

    asked = ga.InclusionProgress(phase=ga.READY, node_id=9, requested_classes=[2, 1, 0])
    assert grant_question(asked) == (
        "The new device (node 9) asks for S2 access control, S2 authenticated and S2 unauthenticated "
        "security. Grant it?"
    )
    assert "asks for no security" in grant_question(ga.InclusionProgress(phase=ga.READY, node_id=9))
