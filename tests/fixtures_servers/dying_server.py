"""A server that dies at start with a diagnostic on stderr, the way a missing dependency would."""

import sys

if __name__ == "__main__":
    print("fatal: cannot reach the MQTT broker at 127.0.0.1:1", file=sys.stderr)
    sys.exit(3)
