"""The home service for the benchmark: `python -m bench.service_server HOST:PORT`, settings from ZWAVE_MCP_*.

The service's Python API with sign-in off (`zwave-mcp serve --http` always needs OAuth): the figures are the
transport's and the shared server's, not the bearer check's (a dictionary lookup per request).
"""

import sys

from zwave_mcp.config import load_settings
from zwave_mcp.logs import configure_logging
from zwave_mcp.service.http import exposure_for
from zwave_mcp.service.run import serve_http

if __name__ == "__main__":
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
    sys.exit(serve_http(settings, exposure_for(sys.argv[1]), auth=None))
