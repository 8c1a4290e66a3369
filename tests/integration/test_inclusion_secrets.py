"""Issue 36, item 6: the inclusion PIN, the DSK (PIN first) and the QR text never appear in any output.

A known PIN goes through S2 inclusion as people type it (ASCII, full-width, Arabic-Indic digits, or the
whole DSK off the label), and a QR code through SmartStart provisioning and inclusion; then every output is
searched: the stderr lines as the server writes them (the tool-call line, the audit line, every other
record), the audit file, and the `notifications/message` the client hears.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp import Client

from tests.codes_in import shows_code
from tests.integration.mcp_harness import call, settings_for, wait_until_healthy
from zwave_mcp.logs import configure_logging
from zwave_mcp.server.build import build_server
from zwave_mcp.simulator import Simulator
from zwave_mcp.simulator.admin import NewDevice, make_qr
from zwave_mcp.simulator.samples import house_with_config

pytestmark = pytest.mark.integration

DSK = "52816-40391-22222-33333-44444-55555-66666-77777"
PIN = DSK[:5]
OTHER_DSK = "61829-40392-22222-33333-44444-55555-66666-77778"


def full_width(digits: str) -> str:
    return "".join(chr(0xFF10 + int(d)) if d.isdigit() else "－" for d in digits)


def arabic_indic(digits: str) -> str:
    return "".join(chr(0x0660 + int(d)) if d.isdigit() else d for d in digits)


def secrets_in(text: str) -> list[str]:
    """Every form of the PIN, the DSKs and the QR codes found in `text`."""
    found = []
    for dsk in (DSK, OTHER_DSK):
        pin = dsk[:5]
        for form in (pin, full_width(pin), arabic_indic(pin)):
            if shows_code(text, form):
                found.append(form)
        if dsk.replace("-", "") in text.replace("-", ""):
            found.append(dsk)
    for dsk in (DSK, OTHER_DSK):
        qr = make_qr(dsk, [1])
        if qr in text or qr[9:40] in text:
            found.append("QR " + qr[:12])
    return found


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(house=house_with_config(9))


@pytest.fixture
def stderr() -> Iterator[io.StringIO]:
    """The server's stderr, as it writes it (JSON lines, redaction filter and all), at debug level."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    configure_logging("debug", "json", stream)
    try:
        yield stream
    finally:
        for handler in list(root.handlers):
            handler.flush()
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


async def test_the_pin_dsk_and_qr_text_are_in_no_output(
    mosquitto: Any, sim: Simulator, stderr: io.StringIO, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    heard: list[str] = []

    async def hear(params: mcp_types.LoggingMessageNotificationParams) -> None:
        heard.append(json.dumps(params.model_dump(mode="json"), ensure_ascii=False))

    settings = settings_for(mosquitto, sim, admin=True, audit_file=audit, log_level="debug")
    server = build_server(settings)

    # The PIN asked through the client (elicitation), typed in full-width digits.
    async def person(_context: Any, params: Any) -> mcp_types.ElicitResult:
        fields = set((params.requested_schema or {}).get("properties", {}))
        if "pin" in fields:
            return mcp_types.ElicitResult(action="accept", content={"pin": full_width(PIN)})
        if "grant" in fields:
            return mcp_types.ElicitResult(action="accept", content={"grant": True})
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    sim.admin.press_button(NewDevice(name="Porch Motion Asked", location="Porch", dsk=DSK))
    async with Client(server, mode="legacy", logging_callback=hear, elicitation_callback=person) as client:
        await wait_until_healthy(client)
        await client.set_logging_level("debug")
        asked = await call(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 8})
        assert asked.result["security"] == "S2 authenticated", asked.text
    server = build_server(settings)
    typed = [PIN, full_width(PIN), arabic_indic(PIN), DSK, full_width(DSK), arabic_indic(DSK)]
    async with Client(server, mode="legacy", logging_callback=hear) as client:
        await wait_until_healthy(client)
        await client.set_logging_level("debug")
        for n, said in enumerate(typed):
            sim.admin.press_button(NewDevice(name=f"Porch Motion {n}", location="Porch", dsk=DSK))
            first = await call(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 5})
            token = first.result["confirmationToken"]
            await call(
                client,
                "start_zwave_inclusion",
                {"security": "s2", "waitSeconds": 5, "confirmationToken": token},
            )
            await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 5})
            done = await call(client, "answer_zwave_inclusion", {"pin": said, "waitSeconds": 5})
            assert done.result["security"] == "S2 authenticated", (said, done.text)
            assert not secrets_in(done.text), done.text
        qr = make_qr(OTHER_DSK, [1])
        args = {"qrCode": qr, "name": "Attic Sensor", "location": "Attic"}
        first = await call(client, "provision_zwave_device", args)
        provisioned = await call(
            client, "provision_zwave_device", {**args, "confirmationToken": first.result["confirmationToken"]}
        )
        assert provisioned.result["outcome"] == "provisioned", provisioned.text
        start = {"qrCode": make_qr(DSK, [1]), "waitSeconds": 0}
        first = await call(client, "start_zwave_inclusion", start)
        await call(
            client, "start_zwave_inclusion", {**start, "confirmationToken": first.result["confirmationToken"]}
        )
        await call(client, "stop_zwave_inclusion", {})
        bad = await call(client, "answer_zwave_inclusion", {"pin": PIN})  # nothing waits for one now
        assert bad.is_error

    for handler in logging.getLogger().handlers:
        handler.flush()
    outputs = {
        "stderr": stderr.getvalue(),
        "audit file": audit.read_text(encoding="utf-8"),
        "notifications/message": "\n".join(heard),
    }
    assert (
        '"tool": "answer_zwave_inclusion"' in outputs["stderr"]
        or "answer_zwave_inclusion" in outputs["stderr"]
    )
    assert "enter_pin" in outputs["audit file"] and "provision" in outputs["audit file"]
    assert heard, "the client heard the debug records"
    leaks = {where: secrets_in(text) for where, text in outputs.items() if secrets_in(text)}
    assert leaks == {}, {
        where: [line for line in outputs[where].splitlines() if secrets_in(line)][:3] for where in leaks
    }
