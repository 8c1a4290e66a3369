"""`zwave-mcp explain` without --house: the live network, read with the usual ZWAVE_MCP_* settings."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.commands import explain
from zwave_mcp.server import app as app_module
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.integration


def _point_at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str, sim: Simulator) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("ZWAVE_MCP_MQTT_URL", url)
    monkeypatch.setenv("ZWAVE_MCP_PREFIX", sim.config.prefix)
    monkeypatch.setenv("ZWAVE_MCP_GATEWAY_NAME", sim.config.name)


def test_explain_reads_the_live_network(
    mosquitto: Any,
    simulator_factory: Callable[..., Simulator],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim = simulator_factory()
    _point_at(monkeypatch, tmp_path, mosquitto.url, sim)
    seen: list[Any] = []

    def build_app(settings: Any) -> Any:
        seen.append(settings)
        return real_build_app(settings)

    real_build_app = app_module.build_app
    monkeypatch.setattr(app_module, "build_app", build_app)
    assert explain.main(["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["source"] == "the live network"
    kinds = {d["kind"] for node in report["report"] for d in node["devices"]}
    assert {"lock", "thermostat", "dimmer"} <= kinds, kinds
    # A look, not a session: no history recorded, no write possible.
    assert seen and seen[0].history_path == "off" and seen[0].read_only is True


def test_an_unreachable_gateway_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ZWAVE_MCP_MQTT_URL", "mqtt://127.0.0.1:9")
    assert explain.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("zwave-mcp explain: ") and err.count("\n") == 1, err


def test_a_wrong_gateway_name_is_said_by_explain_not_still_loading(
    mosquitto: Any,
    simulator_factory: Callable[..., Simulator],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import time

    sim = simulator_factory()
    _point_at(monkeypatch, tmp_path, mosquitto.url, sim)
    started = time.monotonic()
    # The flags the README promises, over the environment.
    assert explain.main(["--gateway-name", "not-my-gateway"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not answering" in err and "'not-my-gateway'" in err, err
    assert "still loading" not in err
    assert time.monotonic() - started < 8  # not the API timeout and more
