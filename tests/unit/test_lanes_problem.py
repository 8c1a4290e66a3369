"""A broker that refuses one lane is said at once, even while the other lane's first attempt has not finished:
"not connected yet" tells nothing (a CI run's check-stdio summary once grouped the same outage under two
causes, because the value lane, asked first, had not failed yet)."""

from __future__ import annotations

from zwave_mcp.config import Settings
from zwave_mcp.gateway.lanes import Lanes
from zwave_mcp.gateway.mqtt import NOT_CONNECTED_YET
from zwave_mcp.gateway.topics import GatewayTopics


def _lanes() -> Lanes:
    def nothing(*_args: object) -> None:
        return None

    return Lanes(Settings(), GatewayTopics(), nothing, nothing, nothing, nothing, nothing, nothing)


def test_the_lane_that_failed_is_said_before_one_that_has_not_tried_yet() -> None:
    lanes = _lanes()
    lanes.values.last_error = NOT_CONNECTED_YET
    lanes.control.last_error = "[Errno 111] Connection refused"
    assert lanes.broker_failed()
    assert lanes.problem() == lanes.control.unavailable_text()
    assert "Connection refused" in (lanes.problem() or "")


def test_before_any_attempt_finished_it_says_not_connected_yet() -> None:
    lanes = _lanes()
    assert not lanes.broker_failed()
    assert (lanes.problem() or "").endswith(NOT_CONNECTED_YET)
