"""The Web UI served by `gno serve` at `/`."""
