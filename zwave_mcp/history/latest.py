"""What the history writer last stored for each series, kept small.

The writer compares every report with the series' last stored value (an unchanged value only moves its
"last reported" time; an older one is ignored) and needs the old value for the change row. A house of
4,000 nodes has ~50,000 series: as a dict of tuples that was ~12 MB; here it is three arrays indexed by
series id (SQLite gives dense ids from 1) and value texts shared between series (most values are "0",
"true", "22.5" …), ~1.5 MB.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

_ABSENT = object()  # no value stored for this series yet (None is a stored value: JSON text may be None)
_NO_TIME = -1  # in the time arrays: no time
DENSE_MAX = 1 << 22  # series ids beyond it (a file written elsewhere) go to a plain dict
_SHARED_MAX = 4096  # distinct value texts shared
_SHARED_LEN = 24  # only short texts are worth sharing

Entry = tuple[str | None, int | None, int | None]  # (value as JSON, its time, last reported time)


class LatestValues:
    def __init__(self) -> None:
        self._text: list[object] = []
        self._at = array("q")
        self._seen = array("q")
        self._far: dict[int, Entry] = {}
        self._shared: dict[str, str] = {}

    def get(self, sid: int) -> Entry | None:
        if 0 <= sid < len(self._text):
            text = self._text[sid]
            if text is _ABSENT:
                return None
            at, seen = self._at[sid], self._seen[sid]
            return (text, None if at == _NO_TIME else at, None if seen == _NO_TIME else seen)  # type: ignore[return-value]
        return self._far.get(sid)

    def set(self, sid: int, text: str | None, at: int | None, seen: int | None) -> None:
        if not (0 <= sid < DENSE_MAX and _fits(at) and _fits(seen)):
            self._forget(sid)
            self._far[sid] = (text, at, seen)
            return
        self._far.pop(sid, None)
        if sid >= len(self._text):
            grow = sid + 1 - len(self._text)
            self._text.extend([_ABSENT] * grow)
            self._at.extend([_NO_TIME] * grow)
            self._seen.extend([_NO_TIME] * grow)
        self._text[sid] = self._share(text)
        self._at[sid] = _NO_TIME if at is None else at
        self._seen[sid] = _NO_TIME if seen is None else seen

    def _forget(self, sid: int) -> None:
        if 0 <= sid < len(self._text):
            self._text[sid] = _ABSENT

    def _share(self, text: str | None) -> str | None:
        if text is None or len(text) > _SHARED_LEN:
            return text
        shared = self._shared.get(text)
        if shared is None:
            if len(self._shared) >= _SHARED_MAX:
                return text
            self._shared[text] = shared = text
        return shared

    def __len__(self) -> int:
        return sum(1 for text in self._text if text is not _ABSENT) + len(self._far)

    @classmethod
    def of(cls, rows: Iterable[tuple[int, str | None, int | None, int | None]]) -> LatestValues:
        """From (series, value as JSON, its time, last reported time) rows."""
        latest = cls()
        for sid, text, at, seen in rows:
            latest.set(sid, text, at, seen)
        return latest


def _fits(time_ms: int | None) -> bool:
    """A time the arrays can hold (anything else is kept in the dict as it is)."""
    return time_ms is None or (type(time_ms) is int and 0 <= time_ms < 1 << 62)
