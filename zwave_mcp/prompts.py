"""MCP prompts: ready-made questions a client can offer the person."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer

if TYPE_CHECKING:
    from zwave_mcp.app import App


MAX_MINUTES = 24 * 60


def register_prompts(server: MCPServer[App], app: App) -> None:
    @server.prompt(name="home_status_summary", title="Home status summary")
    def home_status_summary() -> str:
        """A short spoken summary of the home: what is on, open or unlocked, and anything wrong."""
        return (
            "Give me a short summary of my home. Call check_zwave_health, then list_zwave_devices. Mention "
            "anything unlocked or open, lights that are on, the temperatures, low batteries and devices that "
            "are not responding. Keep it to a few plain sentences I can listen to."
        )

    @server.prompt(name="what_changed", title="What changed in the last hour")
    def what_changed(minutes: str = "60") -> str:
        """What changed recently (minutes, 1-1440, default 60), from the server's event history."""
        # The argument lands in text the model reads: only a number gets through.
        digits = minutes.strip()
        minutes = str(min(max(int(digits), 1), MAX_MINUTES)) if digits.isdigit() and len(digits) < 6 else "60"
        return (
            f"What changed in my home in the last {minutes} minutes? Call get_recent_events with "
            f"minutes={minutes} and tell me the notable changes in plain sentences, newest first."
        )
