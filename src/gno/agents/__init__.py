"""Agent integration: how gno's protocol reaches coding agents.

Three deliveries, all plain files in places the harnesses already read (no runtime hooks):
the marker-bounded protocol block in each harness's global instruction file (`block`,
`targets`, `install`: `gno agents …`), the `gno` skill with its references and memory
recipes (`skill`: `gno skill …`), and the MCP server entry in an MCP client's JSON config
(`mcp_config`: `gno mcp config`). The CLI is the only caller.
"""
