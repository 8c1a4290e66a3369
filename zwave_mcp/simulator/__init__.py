"""A zwave-js-ui MQTT gateway simulator: try zwave-mcp without hardware, and test against it.

Public API: `Simulator`, `SimConfig` (+ `capture_config`, `Timing`, `FAST`, `RECORDED`),
`load_house`, `generate_house`, `captured_house`. Brokers live in `zwave_mcp.simulator.broker`.
"""

from zwave_mcp.simulator.house import captured_house, generate_house, load_house
from zwave_mcp.simulator.settings import FAST, RECORDED, SimConfig, Timing, capture_config
from zwave_mcp.simulator.simulator import Simulator

__all__ = [
    "FAST",
    "RECORDED",
    "SimConfig",
    "Simulator",
    "Timing",
    "capture_config",
    "captured_house",
    "generate_house",
    "load_house",
]
