"""Rate limits: per device and overall, exact retry times, recovery, through the policy's messages."""

from __future__ import annotations

import pytest

from zwave_mcp.policy import RateLimiter
from zwave_mcp.policy.ratelimit import RateRefusal


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def admit(limiter: RateLimiter, device_key: str) -> RateRefusal | None:
    """One command to one device: counted if both limits allow it, else the refusal."""
    refused = limiter.admit_many([device_key])
    return None if refused is None else refused[1]


def test_per_device_limit_refuses_then_recovers():
    clock = Clock()
    limiter = RateLimiter(per_device=3, overall=100, window_s=60, clock=clock)
    for step in range(3):
        assert admit(limiter, "2") is None
        clock.now += 10  # commands at 50, 60, 70
        del step
    refusal = admit(limiter, "2")
    assert refusal is not None and refusal.scope == "device" and refusal.limit == 3
    assert refusal.retry_after_s == 30  # now 80; the command at 50 leaves the window at 110
    assert admit(limiter, "3") is None, "other devices are not affected"
    clock.now = 109.9
    assert admit(limiter, "2") is not None
    clock.now = 110.0
    assert admit(limiter, "2") is None


def test_overall_limit_spans_devices():
    clock = Clock()
    limiter = RateLimiter(per_device=10, overall=2, window_s=60, clock=clock)
    assert admit(limiter, "2") is None
    assert admit(limiter, "3") is None
    refusal = admit(limiter, "4")
    assert refusal is not None and refusal.scope == "overall" and refusal.retry_after_s == 60
    clock.now += 60
    assert admit(limiter, "4") is None


def test_a_refused_command_is_not_counted_and_check_counts_nothing():
    clock = Clock()
    limiter = RateLimiter(per_device=1, overall=100, window_s=60, clock=clock)
    for _ in range(5):
        assert limiter.check_many(["2"]) is None
    assert admit(limiter, "2") is None
    for _ in range(5):
        assert admit(limiter, "2") is not None
    clock.now += 60
    assert admit(limiter, "2") is None, "refusals did not extend the wait"


def test_zero_switches_a_limit_off():
    limiter = RateLimiter(per_device=0, overall=0, clock=Clock())
    assert all(admit(limiter, "2") is None for _ in range(1000))


def test_retry_time_is_at_least_one_second():
    clock = Clock()
    limiter = RateLimiter(per_device=1, overall=0, window_s=60, clock=clock)
    admit(limiter, "2")
    clock.now += 59.95
    refusal = admit(limiter, "2")
    assert refusal is not None and refusal.retry_after_s == 1


def test_idle_devices_are_forgotten():
    clock = Clock()
    limiter = RateLimiter(per_device=5, overall=0, window_s=60, clock=clock)
    for key in map(str, range(100)):
        admit(limiter, key)
    clock.now += 61
    admit(limiter, "x")
    assert set(limiter._by_device) == {"x"}


def test_invalid_limits():
    with pytest.raises(ValueError):
        RateLimiter(per_device=-1)
    with pytest.raises(ValueError):
        RateLimiter(window_s=0)


@pytest.mark.parametrize(("per_device", "overall"), [(0, 0), (0, 60), (10, 0)])
def test_a_limit_that_is_off_remembers_nothing(per_device: int, overall: int) -> None:
    """Issue 42: with a limit off its times were never pruned, one entry a change for as long as it ran."""
    clock = Clock()
    limiter = RateLimiter(per_device=per_device, overall=overall, window_s=59, clock=clock)
    for n in range(10_000):
        assert limiter.admit_many([f"device {n % 100}"]) is None  # one a second: within every limit
        clock.now += 1
    kept = sum(len(times) for times in limiter._by_device.values()) + len(limiter._all)
    assert kept <= 2 * 59
