"""6. The write gate's own cost: what `Gate.apply` adds to one write (target ≤ 0.3 ms).

In-process, no broker: the gateway's `write_value` answers at once with a supervised success (status 255),
so what is left is the gate itself: building the change (effects and their words), the policy on every
effect, rate limits, the evidence (a supervised write with `confirm_timeout` 0 is confirmed at once), the
sentence, the audit line (formatted as JSON, written to /dev/null) and the listeners. The baseline is the
same stubbed `write_value` awaited directly. Both alternate in blocks; the table shows the difference of the
medians.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

from bench.common import Row, p50, p99, say
from zwave_mcp.config import load_settings
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.gateway.api import SetValueStatus, WriteResult
from zwave_mcp.logs import configure_logging
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.app import build_app
from zwave_mcp.simulator import captured_house

TARGET_MS = 0.3


async def _measure(calls: int) -> tuple[list[float], list[float]]:
    settings = load_settings(
        {
            "mqtt_url": "mqtt://127.0.0.1:1",
            "confirm_timeout": 0,
            "rate_limit_device": 0,
            "rate_limit_total": 0,
        },
        environ={},
    )
    app = build_app(settings)
    app.gateway.inventory.load_nodes(captured_house())

    async def write_value(value: Any, target: Any, options: Any = None, timeout: Any = None) -> WriteResult:
        return WriteResult(status=SetValueStatus.SUCCESS, message="", value_id=None, target=target)

    app.gateway.write_value = write_value  # type: ignore[method-assign]
    device = app.devices.resolve("Kitchen Light", for_mutation=True)
    plans = [plan_control(device, "on"), plan_control(device, "off")]
    value = plans[0].writes[0].value
    ours: list[float] = []
    base: list[float] = []
    for block in range(max(1, calls // 100)):
        for i in range(100):
            t = time.perf_counter()
            await write_value(value, i % 2 == 0)
            base.append((time.perf_counter() - t) * 1000)
        for i in range(100):
            t = time.perf_counter()
            result = await app.gate.apply(control_change(plans[i % 2]))
            ours.append((time.perf_counter() - t) * 1000)
            if result.outcome is not Outcome.CONFIRMED:
                raise RuntimeError(f"gate bench: {result.outcome} {result.sentence}")
        del block
    return ours, base


def run(calls: int = 2000) -> list[Row]:
    say(f"6 gate: {calls} writes through the gate vs the bare stubbed write")
    # The audit line is part of the gate's cost: format it as the server does, but into /dev/null.
    with open(os.devnull, "w") as sink:
        configure_logging("warning", "json", stream=sink)
        try:
            ours, base = asyncio.run(_measure(calls))
        finally:
            configure_logging("warning")
            logging.getLogger("zwave_mcp.audit").handlers.clear()
    added = p50(ours) - p50(base)
    return [
        Row(
            "6 gate",
            f"added per write, p50 (n={len(ours)})",
            added,
            None,
            "ms",
            f"≤ {TARGET_MS} ms",
            added <= TARGET_MS,
            f"gate p50 {p50(ours):.3f} ms, p99 {p99(ours):.3f} ms; bare write p50 {p50(base):.4f} ms",
        )
    ]
