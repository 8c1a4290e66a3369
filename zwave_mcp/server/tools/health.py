"""check_zwave_health: broker, zwave-js-ui, driver, nodes, and what to check when something is down."""

from __future__ import annotations

from collections import Counter

from mcp.server.mcpserver import Context

from zwave_mcp.answers import plural
from zwave_mcp.gateway.health import GatewayHealth
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.models import HealthReport, NoArgs
from zwave_mcp.server.tools.spec import tool

# Node statuses in words: zwave-js's own, lower-cased, except "Unknown" (it means "not heard from yet").
_STATUS_WORDS = {"Unknown": "not heard from yet"}


def advice_for(
    health: GatewayHealth, prefix: str, gateway_name: str, dead_devices: int | None = None
) -> list[str]:
    """What a person should check, given what is wrong."""
    if not health.broker_connected:
        return [
            f"Check that the MQTT broker at {health.broker_address} is running and reachable from here.",
            "Check ZWAVE_MCP_MQTT_URL, the user name and ZWAVE_MCP_MQTT_PASSWORD (or its _FILE).",
        ]
    advice = []
    if not health.zwave_js_ui_online:
        advice += [
            "Check that zwave-js-ui is running and that its MQTT gateway is enabled and uses this broker.",
            f"zwave-mcp listens on prefix '{prefix}' for the gateway named '{gateway_name}': these must match "
            "zwave-js-ui's Settings → MQTT → Prefix and Name (ZWAVE_MCP_PREFIX, ZWAVE_MCP_GATEWAY_NAME).",
        ]
    elif health.driver_ready is False:
        advice.append(
            "zwave-js-ui cannot reach its Z-Wave stick: check the serial port in its Z-Wave settings."
        )
    dead = health.nodes_by_status.get("Dead", 0) if dead_devices is None else dead_devices
    if dead:
        advice.append(
            f"{plural(dead, 'device')} not responding: check their power and range; zwave-js-ui can ping them."
        )
    return advice


def _first(unmatched: list[str]) -> str:
    """ "'Frnt Dor' on the deny list (ZWAVE_MCP_DENY) matches no device (and 2 more)" """
    more = len(unmatched) - 1
    return unmatched[0] + (f" (and {more} more entr{'y' if more == 1 else 'ies'} like it)" if more else "")


async def check_zwave_health(app: App, _args: NoArgs, _ctx: Context | None) -> HealthReport:
    # Just after start (a one-shot client's first call): the first load, as the other tools wait for it,
    # not "still loading" about a healthy gateway.
    """Is Z-Wave working? The MQTT broker link, zwave-js-ui, its Z-Wave driver, how many devices are alive,
    asleep or dead, how fresh the data is, and what to check when something is down."""
    await app.gateway.settle()
    health = app.devices.health()
    settings = app.settings
    problems = [health.problem] if health.problem else []
    # Counted in devices, as every other tool counts (a double switch is two devices, one node).
    by_status = (
        Counter(d.node.status for d in app.devices.devices()) if health.inventory_loaded else Counter()
    )
    devices = dict(sorted(by_status.items()))
    dead = devices.get("Dead", 0)
    if dead and not problems:
        problems.append(f"{plural(dead, 'device')} not responding (dead)")
    counts = ", ".join(f"{n} {_STATUS_WORDS.get(status, status.lower())}" for status, n in devices.items())
    total = sum(devices.values())
    if health.problem:
        summary = f"Z-Wave is not working: {health.problem}."
    else:
        but = f", but {plural(dead, 'device')} not responding" if dead else ""
        summary = (
            f"Z-Wave is working{but}: zwave-js-ui is {health.zwave_js_ui_state}, "
            f"{plural(total, 'device')} ({counts})."
        )
    if health.waiting_for and not health.problem:
        summary += f" Still waiting for {health.waiting_for}."
    advice = advice_for(
        health, settings.prefix, settings.gateway_name, dead if health.inventory_loaded else None
    )
    watching = _watching(app)
    if watching is not None:
        summary += f" {watching[1]}"
    unmatched = app.devices.unmatched_entries()
    if unmatched:
        # Said, not only logged: an entry written for a device that it does not cover protects nothing.
        summary = summary.removesuffix(".") + f"; the policy entry {_first(unmatched)}."
        advice.append(
            "Correct the policy entries that match no device (zwave-mcp config lists them): "
            "they protect nothing as written."
        )
    return HealthReport(
        summary=summary,
        healthy=not problems,
        watchingSince=watching[0] if watching is not None else None,
        broker={
            "connected": health.broker_connected,
            "address": health.broker_address,
            "error": health.broker_error,
            "mqttVersion": health.broker_protocol,
        },
        gateway={
            "online": health.zwave_js_ui_online,
            "state": health.zwave_js_ui_state,
            "driverReady": health.driver_ready,
            "inventoryLoaded": health.inventory_loaded,
            "waitingFor": health.waiting_for,
            "controllerStatus": health.controller_status,
            "lastDriverError": health.last_driver_error,
            "appVersion": health.app_version,
            "zwaveVersion": health.zwave_version,
            "homeId": health.home_id,
            "prefix": settings.prefix,
            "name": settings.gateway_name,
        },
        nodes=health.nodes_by_status,
        devices=devices,
        lastMessageAgeSeconds=None
        if health.last_message_age_s is None
        else round(health.last_message_age_s, 1),
        problems=problems,
        advice=advice,
        policyEntriesMatchingNoDevice=unmatched,
    )


TOOLS = [tool(check_zwave_health, needs_gateway=False, title="Z-Wave health")]


def _watching(app: App) -> tuple[str, str] | None:
    """(ISO time, sentence) of since when the home service has been watching the home: said by the service
    and by a server reading its history; None for a server keeping its own (or no) history."""
    recorder, history = app.history.recorder, app.history.service
    watch = recorder.writer or recorder.reading
    if watch is None:
        return None
    at = history.iso(watch.since_ms)
    when = history.since_words(watch.since_ms).split(",", 1)[0].removeprefix("since ")
    if recorder.writer is not None:
        return at, f"This home service has been watching the home since {when}."
    return at, f"History comes from the home service, watching the home since {when}."
