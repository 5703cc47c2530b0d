"""Routes of later rungs (query, context, changes, …), registered beside the core API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from gno.engine import Engine


def register_extra_routes(app: FastAPI, engine: Engine, run: Callable[..., Any]) -> None:
    """Add the routes of later rungs to `app` (no-op until those rungs land)."""
    _ = (app, engine, run)
