"""The home's memory: an SQLite store of what the live picture saw and what the write gate did.

- `recorder.py` — hears changes (inventory listener, load snapshots) and gate outcomes; a writer thread
  writes them in batches. Never on the path of a live call.
- `store.py` — the SQLite file: schema, writes, retention, queries (the only module that imports sqlite3);
  rows are kept per home, and `homes.py` says which home the gateway is.
- `service.py` — answers for the history tools: what is asked about (names, rooms, kinds; the hide policy),
  history and the last time something happened; `usage.py` answers energy questions and `batteries.py`
  battery ones. `periods.py` reads periods, `energy.py` counts kWh, `words.py` says changes, `chart.py`
  draws.

Importing this package is cheap: sqlite3 is imported by the writer thread when it opens the file, and
matplotlib only when a chart is asked for, so start-up does not pay for either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zwave_mcp.history.homes import home_key
from zwave_mcp.history.recorder import DEFAULT, Recorder

if TYPE_CHECKING:
    from zwave_mcp.config import Settings
    from zwave_mcp.devices.service import DeviceService
    from zwave_mcp.gateway.state import Inventory
    from zwave_mcp.history.service import HistoryService
    from zwave_mcp.history.writer import Writer

OFF = ("off", "none", "false", "no", "0", "")


def history_path(setting: str | None) -> str | None:
    """Where the store lives: None (off), ':memory:', a file path, or DEFAULT (the user state directory,
    found by the recorder's thread so that start-up does not pay for it)."""
    if setting is None:
        return DEFAULT
    text = setting.strip()
    if text.lower() in OFF:
        return None
    return text if text == ":memory:" else str(Path(text).expanduser())


def where_history_lives(setting: str | None) -> str:
    """What `zwave-mcp config` shows: the file (the default one resolved), ':memory:', or 'off'."""
    from zwave_mcp.history.recorder import default_path

    path = history_path(setting)
    if path is None:
        return "off"
    return default_path() if path == DEFAULT else path


def live_service(setting: str | None, now_ms: int) -> Writer | None:
    """The home service already writing the history file of this setting, if one is (see writer.py)."""
    from zwave_mcp.history.store import Store
    from zwave_mcp.history.writer import is_live

    if history_path(setting) is None:  # history off: no file to share
        return None
    holder = Store.writer_of(where_history_lives(setting))
    return holder if is_live(holder, now_ms) else None


@dataclass
class History:
    recorder: Recorder
    service: HistoryService


def build_history(
    settings: Settings,
    devices: DeviceService,
    inventory: Inventory,
    gateway_info: Callable[[], Mapping[str, Any]] = dict,
    *,
    service: bool = False,
) -> History:
    """The recorder wired to the inventory, and the service the tools ask. Nothing is opened here.
    `service`: the home service, the file's one writer (see writer.py).
    `gateway_info` is zwave-js-ui's `getInfo` of the last load: its home id says whose history it is."""
    from zwave_mcp.history.service import HistoryService

    # Hidden means hidden everywhere: with a hide list, the device service says what the file may keep (a
    # value by its device; a node's status by the node, hidden whole when any part of it is).
    visible = devices if devices.policy.config.hide else None
    recorder = Recorder(
        history_path(settings.history_path),
        keep_days=settings.history_days,
        max_bytes=int(settings.history_max_mb * 1024 * 1024),
        visible=visible,
        home=lambda: home_key(gateway_info(), settings),
        service=service,
    )
    if recorder.path is not None:
        inventory.add_listener(recorder.on_change)
        inventory.add_load_listener(recorder.on_load)
        if inventory.nodes:  # a picture loaded before the recorder existed (a shared gateway in tests)
            recorder.on_load(list(inventory.nodes.values()))
    return History(recorder, HistoryService(recorder, devices, inventory))
