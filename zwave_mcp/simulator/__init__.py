"""A zwave-js-ui MQTT gateway simulator: try zwave-mcp without hardware, and test against it.

Public API: `Simulator`, `SimConfig` (+ `capture_config`, `FAST`, `RECORDED`), `generate_house`,
`captured_house`. Brokers live in `zwave_mcp.simulator.broker`.
"""

from zwave_mcp.simulator.house import captured_house, generate_house
from zwave_mcp.simulator.settings import FAST, RECORDED, SimConfig, capture_config
from zwave_mcp.simulator.simulator import Simulator

__all__ = [
    "FAST",
    "RECORDED",
    "SimConfig",
    "Simulator",
    "capture_config",
    "captured_house",
    "generate_house",
]
