"""gno memory for Hermes Agent: recall before every turn, `gno_remember` when the model decides.

Installed as a Hermes plugin folder (`$HERMES_HOME/plugins/gno/`, by `hermes plugins install
<repo>#integrations/hermes-gno-memory/hermes_gno_memory` or `python -m hermes_gno_memory install`) and selected with
`memory: {provider: gno}` in `$HERMES_HOME/config.yaml`; settings live under `memory.gno`.
"""

from __future__ import annotations

from typing import Any

from .provider import GnoMemoryProvider

__all__ = ["GnoMemoryProvider", "register"]
__version__ = "0.1.0"


def register(ctx: Any) -> None:
    """Hermes plugin entry point: one MemoryProvider."""
    ctx.register_memory_provider(GnoMemoryProvider())
