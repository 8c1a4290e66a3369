"""Every text a chart draws is drawn as it is written (issue 44 item 9): matplotlib reads text between two
`$` as math, so "Pool Pump $$ Saver" made `get_device_history(room, chart=true)` fail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

pytest.importorskip("matplotlib")

from matplotlib.text import Text

from zwave_mcp.history import chart
from zwave_mcp.safetext import plain_text

HOSTILE = ["Pool Pump $$ Saver", "Cost $5 to $10", r"$\frac{1}{0}$", "back\\$slash $x$", "line\nbreak\x1b[2J"]
START = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_line_chart_draws_any_name(name):
    points = [(START, 1.0), (START + timedelta(hours=1), 0.0)]
    png = chart.lines(f"{name}, today", [(name, points), ("Kitchen $$", points)])
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG"), png


@pytest.mark.parametrize("name", HOSTILE)
def test_a_bar_chart_draws_any_label(name):
    png = chart.bars(f"{name}: energy this week (kWh)", [name, "Pool $$"], [1.5, 2.0])
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG"), png


@pytest.mark.parametrize("name", HOSTILE)
def test_what_is_drawn_is_the_plain_name_not_math(name):
    text = Text(text=chart.drawn(name))
    shown, math = text._preprocess_math(text.get_text())
    assert math is False
    assert shown == plain_text(name, chart.LABEL_MAX), "drawn as written, on one plain line"
    assert "\n" not in shown and "\x1b" not in shown
