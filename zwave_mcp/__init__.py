"""zwave-mcp: an MCP stdio server for Z-Wave homes run by zwave-js-ui's MQTT gateway."""

__version__ = "0.1.0"
