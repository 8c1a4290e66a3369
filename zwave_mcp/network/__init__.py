"""Network care below the tools: a node's details, its configuration parameters, and long operations
(health checks, re-interviews, route rebuilds) run as jobs with their progress. The admin tools
(`server/tools/admin*.py`) ask, and pass every change through the gate; nothing here speaks MCP."""
