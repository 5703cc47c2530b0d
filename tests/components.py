"""Real components the suite needs (a browser, PostgreSQL, faiss): absent ones skip locally, fail in CI.

A skipped suite in CI reads as green while whole surfaces go untested, so under `CI=true` a
missing component is a failure that names the install, never a silent skip.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing_component(reason: str, *, module_level: bool = False) -> NoReturn:
    """Skip (local run) or fail (CI) because a real component is not installed."""
    if in_ci():
        pytest.fail(f"CI=true and a required component is missing: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=module_level)
