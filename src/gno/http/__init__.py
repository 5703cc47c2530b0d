"""The REST surface (FastAPI): `/api/*`, MCP at `/mcp`, the Web UI at `/`."""
