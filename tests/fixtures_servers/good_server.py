"""A well-behaved MCP stdio server served through `zwave_mcp.stdio.transport`, for e2e tests.

Usage: good_server.py [DRAIN_TIMEOUT]. It prints at "import time", after `protect_stdout()`, the way a
chatty dependency would; none of it may reach stdout.
"""

from zwave_mcp.stdio.transport import protect_stdout

protect_stdout()
print("import-time noise from a chatty dependency")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from toy_server import build_toy_server  # noqa: E402

from zwave_mcp.stdio.transport import run_stdio  # noqa: E402

if __name__ == "__main__":
    drain = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    run_stdio(build_toy_server(), drain_timeout=drain)
    sys.exit(0)
