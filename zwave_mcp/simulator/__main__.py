"""`python -m zwave_mcp.simulator` = `zwave-mcp simulate`."""

import sys

from zwave_mcp.simulator.cli import main

sys.exit(main())
