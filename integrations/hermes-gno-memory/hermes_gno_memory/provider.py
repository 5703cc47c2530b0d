"""`GnoMemoryProvider`: gno's remember/recall contract behind Hermes's MemoryProvider slot.

What it does, per Hermes hook:

* `prefetch(query)` (before every turn, the first one included) runs `gno recall <query> --scope
  <each configured scope> --json` and returns the current facts as a short cited list; the full
  recall output is kept as the session's latest receipt.
* the model-invoked tool `gno_remember` runs `gno remember <text> --json` with `propose` (the
  default: nothing is written, candidates come back), `add`, or `supersede` (with the
  predecessor's `uri` and `contentHash` from a recall), and always presents the session's latest
  recall receipt, so a recalled fact is never stored again as a "new" one.
* `sync_turn`, `on_memory_write`, `on_session_end` and `on_pre_compress` do nothing: Hermes's own
  after-turn persistence never writes to gno. Every fact is an explicit `gno_remember` call.

Scopes come from the provider config only (`memory.gno.scopes` in `$HERMES_HOME/config.yaml`);
the model cannot choose them. When `gno` is missing, older than the pin, or prints something
that is not its JSON, the provider reports memory unavailable and the session goes on.
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from agent.memory_provider import MemoryProvider

try:  # a relative import inside Hermes's loader, a package import once pip-installed
    from .gnocli import GnoCli, GnoUnavailable
except ImportError:  # pragma: no cover - loaded as a top-level module
    from gnocli import GnoCli, GnoUnavailable  # type: ignore[no-redef]

logger = logging.getLogger(__name__)

PROVIDER_NAME = "gno"
TOOL_NAME = "gno_remember"
DECISIONS = ("propose", "add", "supersede")

REMEMBER_SCHEMA: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": (
        "Store one standalone fact in gno memory (one or two sentences). Start with decision "
        "'propose': nothing is written and likely matches come back. Then decide: 'add' stores it "
        "beside them; 'supersede' replaces a current fact, given its predecessor_uri (gno://…) "
        "and predecessor_hash (contentHash) from a recalled fact. Never store a fact you were "
        "just shown from memory. Scopes are configured, not chosen here."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The fact, at most 4096 bytes."},
            "decision": {"type": "string", "enum": list(DECISIONS), "description": "Default: propose."},
            "predecessor_uri": {"type": "string", "description": "For supersede: the fact's gno:// URI."},
            "predecessor_hash": {"type": "string", "description": "For supersede: the fact's contentHash."},
            "source": {"type": "string", "description": "Optional free-text evidence for the fact."},
        },
        "required": ["text"],
        "additionalProperties": False,
    },
}


def _provider_config() -> dict[str, Any]:
    try:
        from hermes_cli.config import cfg_get, load_config

        cfg = cfg_get(load_config(), "memory", PROVIDER_NAME, default={})
    except Exception:  # noqa: BLE001 - a broken config means "not configured"
        return {}
    return cfg if isinstance(cfg, dict) else {}


def _error(code: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "message": message, "details": {}}})


class GnoMemoryProvider(MemoryProvider):
    """Hermes memory provider backed by the `gno` CLI."""

    def __init__(self, config: dict[str, Any] | None = None, cli: GnoCli | None = None) -> None:
        self._config = _provider_config() if config is None else config
        self._cli = cli or GnoCli(
            str(self._config.get("binary") or "gno"), timeout=float(self._config.get("timeout", 20))
        )
        self._availability: tuple[bool, str] | None = None
        self._unavailable: str | None = None
        self._session = ""
        self._caller = "hermes"
        self._writes = True
        self._receipts = Path(tempfile.mkdtemp(prefix="hermes-gno-"))

    @property
    def name(self) -> str:
        return PROVIDER_NAME

    # -- configuration ---------------------------------------------------------------------
    @property
    def scopes(self) -> list[str]:
        raw = self._config.get("scopes") or []
        items = [raw] if isinstance(raw, str) else raw
        return [str(s).strip() for s in items if str(s).strip()]

    @property
    def collection(self) -> str | None:
        c = self._config.get("collection")
        return str(c) if c else None

    def _scope_args(self) -> list[str]:
        args = [a for s in self.scopes for a in ("--scope", s)]
        if self.collection:
            args += ["--collection", self.collection]
        return args + ["--caller", self._caller, "--session", self._session or "hermes"]

    def unavailable_reason(self) -> str | None:
        """Why memory is off (None when on): missing gno, below the pin, no scopes, bad JSON."""
        if self._unavailable:
            return self._unavailable
        if self._availability is None:
            if not self.scopes:
                self._availability = (False, f"no scopes configured: set memory.{PROVIDER_NAME}.scopes")
            else:
                try:
                    self._availability = (True, self._cli.check())
                except GnoUnavailable as exc:
                    self._availability = (False, str(exc))
        ok, why = self._availability
        return None if ok else why

    def is_available(self) -> bool:
        reason = self.unavailable_reason()
        if reason:
            logger.info("gno memory unavailable: %s", reason)
        return reason is None

    def get_config_schema(self) -> list[dict[str, Any]]:
        return [
            {"key": "scopes", "description": "Scopes to recall from and remember into (list)", "required": True},
            {"key": "collection", "description": "gno memory-managed collection (default: the only one)"},
        ]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        import yaml

        path = Path(hermes_home) / "config.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
        data = data if isinstance(data, dict) else {}
        memory = data.setdefault("memory", {})
        section = memory.setdefault(PROVIDER_NAME, {})
        scopes = values.get("scopes")
        if isinstance(scopes, str):
            values = {**values, "scopes": [s.strip() for s in scopes.split(",") if s.strip()]}
        section.update({k: v for k, v in values.items() if v not in (None, "")})
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    # -- lifecycle -------------------------------------------------------------------------
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._session = session_id
        identity = str(kwargs.get("agent_identity") or "default")
        self._caller = f"hermes:{identity}"
        # cron, subagent and flush turns read memory but never write it
        self._writes = str(kwargs.get("agent_context") or "primary") == "primary"

    def on_session_switch(self, new_session_id: str, **kwargs: Any) -> None:
        self._session = new_session_id

    def system_prompt_block(self) -> str:
        reason = self.unavailable_reason()
        if reason:
            return f"gno memory is unavailable ({reason}); continue without it."
        return (
            f"gno memory: facts recalled for scopes {', '.join(self.scopes)} appear in the memory "
            f"context, each with its gno:// URI; cite them by URI. To store a new standalone fact, "
            f"call {TOOL_NAME} (propose first, then add or supersede)."
        )

    # -- recall ----------------------------------------------------------------------------
    def _receipt_path(self) -> Path:
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in (self._session or "hermes"))
        return self._receipts / f"recall-{safe[:80]}.json"

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        if session_id and session_id != self._session:
            self._session = session_id
        if not query.strip() or self.unavailable_reason():
            return ""
        try:
            data = self._cli.run_json(["recall", query, *self._scope_args()])
        except GnoUnavailable as exc:
            self._unavailable = str(exc)
            logger.warning("gno memory unavailable: %s", exc)
            return ""
        if "error" in data:
            logger.warning("gno recall failed: %s", data["error"].get("message"))
            return ""
        facts = data.get("facts")
        if not isinstance(facts, list):
            self._unavailable = "gno recall returned no facts list"
            return ""
        self._receipt_path().write_text(json.dumps(data), encoding="utf-8")
        if not facts:
            return ""
        lines = [f"gno memory ({', '.join(self.scopes)}), current facts:"]
        for f in facts:
            if isinstance(f, dict) and f.get("text"):
                lines.append(f"- {f['text']} [{f.get('uri', '')} contentHash={f.get('contentHash', '')}]")
        return "\n".join(lines)

    # -- remember --------------------------------------------------------------------------
    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [REMEMBER_SCHEMA] if self._writes else []

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        if tool_name != TOOL_NAME:
            return _error("VALIDATION", f"unknown tool {tool_name!r}")
        if not self._writes:
            return _error("WRITE_DISABLED", "gno memory is read-only in this agent context")
        reason = self.unavailable_reason()
        if reason:
            return _error("MEMORY_UNAVAILABLE", f"gno memory is unavailable: {reason}")
        text = str(args.get("text") or "")
        decision = str(args.get("decision") or "propose")
        if decision not in DECISIONS:
            return _error("MEMORY_DECISION_INVALID", f"decision must be one of {', '.join(DECISIONS)}")
        cmd = ["remember", text, *self._scope_args()]
        if decision == "add":
            cmd.append("--add")
        elif decision == "supersede":
            cmd += ["--supersede", str(args.get("predecessor_uri") or ""),
                    "--predecessor-hash", str(args.get("predecessor_hash") or "")]
        if args.get("source"):
            cmd += ["--source", str(args["source"])]
        receipt = self._receipt_path()
        if receipt.exists():
            cmd += ["--receipt", str(receipt)]
        try:
            data = self._cli.run_json(cmd)
        except GnoUnavailable as exc:
            self._unavailable = str(exc)
            return _error("MEMORY_UNAVAILABLE", f"gno memory is unavailable: {exc}")
        return json.dumps(data, ensure_ascii=False)

    # -- Hermes's own persistence never reaches gno ------------------------------------------
    def sync_turn(self, user_content: str, assistant_content: str, **kwargs: Any) -> None:
        return None

    def on_memory_write(self, action: str, target: str, content: str, metadata: Any = None) -> None:
        return None

    def shutdown(self) -> None:
        import shutil

        shutil.rmtree(self._receipts, ignore_errors=True)
