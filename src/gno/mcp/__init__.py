"""The MCP surface (official MCP Python SDK): stdio and Streamable HTTP."""
