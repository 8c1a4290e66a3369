"""Network care below the tools: a node's details, its configuration parameters, the planner that carries
every network change through the write gate (changes.py), the inclusion flow (inclusion.py), and long
operations (health checks, re-interviews, route rebuilds) run as jobs. Nothing here speaks MCP."""
