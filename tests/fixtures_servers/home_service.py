"""The home service without OAuth, for the tests: `home_service.py [HOST:]PORT`, settings from ZWAVE_MCP_*.

`zwave-mcp serve --http` always needs OAuth (no flag turns it off); the tests that are not about sign-in
start the same service through its Python API instead, with `auth=None`.
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
