"""A history file an earlier zwave-mcp wrote holds every code of a keypad lock (issue 37: "the history file
holds every code"): opening it erases them, rows and bytes, and keeps every other row."""

from __future__ import annotations

import json
from pathlib import Path

from zwave_mcp.history.store import Store

CODES = ("8301946275", "7291046358", "9402718365")


def test_codes_an_earlier_version_kept_are_erased_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    store = Store.open(str(path), "home")
    code_1 = store.series_id("value", "12-99-0-userCode-1", 12)
    code_5 = store.series_id("value", "12-99-0-userCode-5", 12)
    admin = store.series_id("value", "12-99-0-adminCode", 12)
    status = store.series_id("value", "12-99-0-userIdStatus-1", 12)
    mode = store.series_id("value", "12-98-0-currentMode", 12)
    store.write(
        [
            (code_1, 1000, None, json.dumps(CODES[0]), None),
            (code_5, 1000, None, json.dumps(CODES[1]), None),
            (code_5, 2000, json.dumps(CODES[1]), json.dumps(""), None),
            (admin, 1000, None, json.dumps(CODES[2]), None),
            (status, 1000, None, "1", 1.0),
            (mode, 1000, None, "255", 255.0),
        ],
        [(code_1, 1000, json.dumps(CODES[0]), 1000), (mode, 1000, "255", 1000)],
        [],
    )
    store.close()
    assert all(code.encode() in b"".join(p.read_bytes() for p in tmp_path.iterdir()) for code in CODES)

    store = Store.open(str(path), "home")
    kept = {key for _kind, key in store.series_ids}
    assert kept == {"12-99-0-userIdStatus-1", "12-98-0-currentMode"}
    assert len(store.rows([store.series_ids[("value", "12-98-0-currentMode")]], 0, 10_000)) == 1
    store.close()
    on_disk = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert [code for code in CODES if code.encode() in on_disk] == []
