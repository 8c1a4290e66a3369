"""`python -m zwave_mcp` is `zwave-mcp`."""

import sys

from zwave_mcp.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
