"""The Python SDK: `gno.Client.open()` (in-process) or `gno.Client.connect(url)` (REST)."""

from gno.sdk.client import Client

__all__ = ["Client"]
