"""Agent integration: how gno's protocol reaches coding agents.

Two deliveries, both plain files in places the harnesses already read (no runtime hooks):
the marker-bounded protocol block in each harness's global instruction file (`block`,
`targets`, `install`: `gno agents …`) and the `gno` skill with its references and memory
recipes (`skill`: `gno skill …`). The CLI in `gno.cli.commands_agents` is the only caller.
"""
