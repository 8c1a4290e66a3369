"""LoadSchedule: when the network picture is (re)loaded after zwave-js-ui's restarts. Injected clock."""

from __future__ import annotations

from pytest import approx

from zwave_mcp.gateway.loader import DRIVER_NOT_READY_MESSAGE, LoadSchedule, Picture, assess
from zwave_mcp.gateway.model import ZNode, ZValue

EMPTY = Picture(devices=10, waiting=10)
PARTIAL = Picture(devices=10, waiting=3)
WHOLE = Picture(devices=10, waiting=0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make() -> tuple[LoadSchedule, Clock]:
    clock = Clock()
    return LoadSchedule(clock, first_retry_s=0.5, max_retry_s=8.0, nudge_delay_s=0.2, nudge_gap_s=1.0), clock


def loaded_at(schedule: LoadSchedule, clock: Clock, picture: Picture) -> None:
    assert schedule.delay() == approx(0.0)
    schedule.started()
    schedule.loaded(picture)


def test_assess_counts_devices_that_know_nothing_yet() -> None:
    value = ZValue("3-37-0-currentValue", 3, 37, "Binary Switch", 0, "currentValue")
    nodes = {
        1: ZNode(1, is_controller=True),  # the controller never counts
        2: ZNode(2, ready=False),  # not ready, no values: waiting
        3: ZNode(3, ready=False, values={value.value_id: value}),  # values from the cache: usable
        4: ZNode(4, ready=True),
        255: ZNode(255),  # the virtual broadcast node
    }
    assert assess(nodes) == Picture(devices=3, waiting=1)
    assert Picture(2, 2).empty and not Picture(2, 1).empty and not Picture(0, 0).empty
    assert Picture(0, 0).complete


def test_nothing_is_due_until_asked() -> None:
    schedule, _ = make()
    assert schedule.delay() is None and schedule.waiting_for() is None and schedule.problem() is None


def test_a_whole_picture_stays_loaded_and_nudges_do_nothing() -> None:
    schedule, clock = make()
    schedule.want("connected")
    loaded_at(schedule, clock, WHOLE)
    schedule.nudge("a node is ready")
    clock.now += 100
    assert schedule.delay() is None and schedule.loads == 1


def test_an_empty_picture_is_retried_with_backoff_and_health_says_so() -> None:
    schedule, clock = make()
    schedule.want("driver ready")
    loaded_at(schedule, clock, EMPTY)
    assert "none of its 10 devices is ready yet" in (schedule.problem() or "")
    assert schedule.waiting_for() == "10 of 10 devices to be ready"
    pauses = []
    for _ in range(6):
        pauses.append(schedule.delay())
        clock.now += pauses[-1] or 0
        loaded_at(schedule, clock, EMPTY)
    assert pauses == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0], "doubling up to the cap, never faster"


def test_nudges_while_waiting_are_debounced_and_spaced() -> None:
    schedule, clock = make()
    schedule.want("driver ready")
    loaded_at(schedule, clock, EMPTY)
    clock.now += 0.1
    for _ in range(50):  # a burst of node ready events
        schedule.nudge("a node is ready")
    # the retry (0.5 s after the load) is sooner than the nudge gap (1 s after it): it wins
    assert schedule.delay() == approx(0.4)
    clock.now += 0.4
    loaded_at(schedule, clock, PARTIAL)
    schedule.nudge("a value for an empty node")
    assert schedule.delay() == approx(1.0), "at most one nudged load per second"
    clock.now += 1.0
    loaded_at(schedule, clock, WHOLE)
    assert schedule.delay() is None and schedule.problem() is None and schedule.waiting_for() is None


def test_partial_picture_timer_retries_stop_at_the_cap_but_nudges_still_work() -> None:
    schedule, clock = make()
    schedule.want("connected")
    loaded_at(schedule, clock, PARTIAL)
    assert schedule.problem() is None, "a partly waiting picture is usable"
    assert schedule.waiting_for() == "3 of 10 devices to be ready"
    retries = 0
    while (delay := schedule.delay()) is not None:
        clock.now += delay
        loaded_at(schedule, clock, PARTIAL)
        retries += 1
    assert retries == 4  # 0.5, 1, 2, 4 s; then only news of the nodes reloads
    clock.now += 60
    schedule.nudge("a node is ready")
    assert schedule.delay() == approx(0.2)
    clock.now += 0.2
    loaded_at(schedule, clock, PARTIAL)  # a node that never finishes its interview
    schedule.nudge("a topic nobody can map")
    assert schedule.delay() == approx(8.0), "news no longer reloads every second"
    schedule.want("its Z-Wave driver is ready")  # zwave-js-ui restarted: a new episode
    loaded_at(schedule, clock, EMPTY)
    assert schedule.delay() == approx(0.5), "the pauses start short again"
    schedule.nudge("a node is ready")
    assert schedule.delay() == approx(0.5)
    clock.now += 0.5
    loaded_at(schedule, clock, WHOLE)
    assert schedule.delay() is None


def test_a_failed_load_backs_off_and_says_the_driver_is_not_ready() -> None:
    schedule, clock = make()
    schedule.want("connected")
    schedule.started()
    schedule.failed(f"it refused getNodes: {DRIVER_NOT_READY_MESSAGE}")
    assert schedule.driver_not_ready
    assert schedule.waiting_for() == "zwave-js-ui's Z-Wave driver to be ready"
    assert schedule.delay() == approx(0.5)
    clock.now += 0.5
    schedule.started()
    schedule.failed("zwave-js-ui did not answer getNodes within 10 s")
    assert not schedule.driver_not_ready and schedule.delay() == approx(1.0)
    schedule.want("its Z-Wave driver is ready")  # the event does not wait for the backoff
    assert schedule.delay() == approx(0.0)


def test_want_during_a_load_abandons_it_and_loads_again_at_once() -> None:
    schedule, _clock = make()
    schedule.want("connected")
    schedule.started()
    assert schedule.delay() is None and not schedule.restart_wanted()
    schedule.nudge("a node is ready")
    assert not schedule.restart_wanted(), "news of nodes waits for the running load"
    schedule.want("zwave-js-ui came back online")
    assert schedule.restart_wanted()
    schedule.abandoned()
    assert schedule.delay() == approx(0.0)
    assert schedule.started() == "zwave-js-ui came back online"


def test_disconnect_forgets_what_was_due() -> None:
    schedule, _clock = make()
    schedule.want("connected")
    schedule.started()
    schedule.disconnected()
    assert schedule.delay() is None and not schedule.loading
    schedule.want("connected")
    assert schedule.delay() == approx(0.0)
