"""Small PNG charts (matplotlib, the optional `charts` extra), imported only when a chart is asked for.

Each function returns the PNG bytes, or a sentence saying why there is none (matplotlib is not installed).
The object API with the Agg canvas, not pyplot: it keeps no global state and is safe in a worker thread.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from zwave_mcp.safetext import plain_text

MISSING = "charts need matplotlib: install zwave-mcp[charts]"
LABEL_MAX = 80  # a title, a line's name or a bar's label: longer ones would not fit the figure


def drawn(label: str) -> str:
    """A name from outside (a device's, a room's) as matplotlib draws it literally: one plain line, and
    every `$` escaped, because matplotlib reads text between two `$` as math ("Pool Pump $$ Saver" made
    the chart fail). Every text a chart draws passes here."""
    return plain_text(label, LABEL_MAX).replace("$", r"\$")


def _chart(title: str, draw: Callable[[Any, Any], None]) -> bytes | str:
    """`draw(figure, axes)` on a fresh figure under `title`, as PNG bytes."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return MISSING
    figure = Figure(figsize=(6.4, 3.2), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    draw(figure, axes)
    axes.set_title(drawn(title), fontsize=10)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


def lines(title: str, series: Sequence[tuple[str, Sequence[tuple[datetime, float]]]]) -> bytes | str:
    def draw(figure: Any, axes: Any) -> None:
        for name, points in series:
            axes.step([p[0] for p in points], [p[1] for p in points], where="post", label=drawn(name))
        axes.legend(fontsize=8)
        figure.autofmt_xdate()

    return _chart(title, draw)


def bars(title: str, labels: Sequence[str], values: Sequence[float]) -> bytes | str:
    def draw(_figure: Any, axes: Any) -> None:
        axes.bar(range(len(values)), values)
        axes.set_xticks(range(len(labels)), [drawn(label) for label in labels], rotation=45, fontsize=7)

    return _chart(title, draw)
