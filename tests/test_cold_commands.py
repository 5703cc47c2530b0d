"""The lexical commands without a resident owner: the cold path prints what click prints, and imports little.

Every case runs the real `gno` executable twice on a real index over a small vault: as the console
script (`gno.cli.entry`: a cold handler when the invocation is plain) and forced through the click
CLI (`gno.cli.main.main`). stdout, stderr and the exit code must be byte-identical, whichever path
answered. The cases marked cold must also have been answered without click (checked on the
imported modules), and the import test holds which heavy modules a cold command may load.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from pydantic import BaseModel

from gno import change_reads, doc_reads, egress, memory_records, models, status_reads
from gno.cli.cold import Spec
from gno.cli.cold_memory import SPECS as MEMORY_SPECS
from gno.cli.cold_read import SPECS
from gno.cli.cold_search import search_spec
from gno.cli.cold_status import SPEC as STATUS_SPEC
from gno.cli.main import cli
from gno.contract import capability
from gno.engine import Engine
from gno.memory import propose
from gno.memory.remember import RememberRequest
from gno.models import memory_results as memory_models
from gno.settings import Settings
from test_cold_start import imported_modules

CLICK = "import sys; from gno.cli.main import main; main(sys.argv[1:])"

#: never imported by a cold lexical command: the click CLI, pydantic, YAML, the engine and the models,
#: model runtimes, vectors and servers (a cold command composes the core functions itself)
NEVER = (
    "click",
    "pydantic",
    "pydantic_core",
    "yaml",
    "typing",
    "dataclasses",
    "gno.cli.main",
    "gno.engine",
    "gno.models",
    "gno.config",
    "gno.contract",
    "gno.errors",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "wordllama",
    "faiss",
    "mcp",
    "fastapi",
    "starlette",
    "httpx",
    "gno.http",
    "gno.mcp",
    "gno.service",
    "gno.retrieve.vectors",
    "gno.embed",
    "gno.guard",
    "gno.evidence",
)


@pytest.fixture
def home(settings: Settings, corpus: Path, tmp_path: Path) -> dict[str, str]:
    """Notes with links and a memory collection with facts, no vectors; the environment to run gno in."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (corpus / "with space.md").write_text("# Spaced\n\nSee [[deploy]].\n" + "line\n" * 40, encoding="utf-8")
    e = Engine(settings)
    e.init()
    e.collection_add(str(corpus), name="notes")
    e.collection_add(str(memory), name="memory", memory_managed=True)
    e.update()
    for text in ("Deploys go out on Tuesdays.", "Rollbacks need a second reviewer."):
        e.remember(
            RememberRequest(text=text, scopes=["team"], caller="t", session="s", decision="add"),
            semantic=False,
        )
    e.close()
    return {**os.environ, "GNO_NO_DAEMON": "1"}


def both(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `gno ARGS` both ways; assert the same bytes and exit code; the modules the console script imported."""
    mods, cold = imported_modules(*args, env=env)
    slow = subprocess.run(
        [sys.executable, "-c", CLICK, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    stderr = "".join(ln + "\n" for ln in cold.stderr.splitlines() if not ln.startswith("import time:"))
    assert (cold.returncode, cold.stdout, stderr) == (slow.returncode, slow.stdout, slow.stderr), args
    assert "Traceback" not in slow.stderr
    return slow, mods


def offenders(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if any(m == b or m.startswith(b + ".") for b in NEVER))


DOC = "gno://notes/deploy.md"
SPACED = "gno://notes/with%20space.md"
#: (arguments, answered cold: True, or the one module of NEVER it may import; False: by click)
READS = [
    (["get", DOC], True),
    (["get", DOC, "--json"], True),
    (["get", "notes/deploy.md:2", "-l", "2", "--line-numbers"], True),
    (["get", SPACED, "--from=3", "--limit", "2", "--json"], True),
    (["get", DOC, "--source"], False),
    (["get", "gno://notes/missing.md"], False),
    (["get", DOC, "--from", "0"], False),
    (["get", DOC, "--from", "999"], False),
    (["get", "nope"], False),
    (["get"], False),
    (["get", "--help"], False),
    (["multi-get", f"{DOC},{SPACED}", "--max-bytes", "40"], True),
    (["multi-get", DOC, SPACED, "--line-numbers", "--json"], True),
    (["multi-get", DOC, "gno://notes/missing.md", "bad"], "gno.errors"),  # failed refs: their codes
    (["multi-get", DOC, "--max-bytes", "0"], False),
    (["ls"], True),
    (["ls", "notes", "--json"], True),
    (["ls", "NOTES", "-n", "2", "--offset", "1"], True),
    (["ls", "gno://notes/projects/", "--json"], True),
    (["ls", "notes", "--offset", "99"], True),
    (["ls", "gno://notes/zzz"], True),
    (["ls", "nope"], False),
    (["ls", "-n", "0"], False),
    (["ls", "-n", "x"], False),
    (["links", DOC], True),
    (["links", DOC, "--json"], True),
    (["backlinks", DOC], True),
    (["backlinks", "#" + "0" * 8, "--json"], False),
    (["links", "gno://notes/missing.md", "--json"], False),
    (["--index", "default", "links", "notes/projects/runbook.md"], True),
    (["changes"], True),
    (["changes", "--limit", "2", "--json"], True),
    (["changes", "-c", "MEMORY", "--json"], True),
    (["changes", "--since", "c2", "--limit", "3"], True),
    (["changes", "--since", "2020-01-01T00:00:00Z", "--collection=notes"], True),
    (["changes", "--since", "yesterday"], False),
    (["changes", "--limit", "1001"], False),
    (["changes", "-c", "nope"], False),
    (["changes", "--follow", "--idle-exit", "0.1"], False),
]


@pytest.mark.parametrize(("args", "cold"), READS, ids=[" ".join(a) for a, _ in READS])
def test_reads_print_what_click_prints(home: dict[str, str], args: list[str], cold: bool | str) -> None:
    _, mods = both(args, home)
    assert ("gno.cli.main" not in mods) == bool(cold), "answered cold" if not cold else "fell through to click"
    if cold:
        assert offenders(mods) == ([cold] if isinstance(cold, str) else [])


def test_an_edited_config_sends_reads_to_click(home: dict[str, str], settings: Settings) -> None:
    settings.config_path.write_text(settings.config_path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    _, mods = both(["ls", "notes"], home)
    assert "gno.cli.main" in mods  # validated again (and recorded): the next read is cold
    _, mods = both(["ls", "notes"], home)
    assert "gno.cli.main" not in mods


# -- one spec per command: the cold parser takes exactly what the click command takes ---------------


def _click_options(command: str) -> dict[str, click.Option]:
    cmd = cli.get_command(click.Context(cli), command)
    assert cmd is not None
    return {name: p for p in cmd.params if isinstance(p, click.Option) for name in p.opts}


COLD_SPECS: dict[str, Spec] = {**SPECS, **MEMORY_SPECS, "status": STATUS_SPEC, "search": search_spec()}


@pytest.mark.parametrize("command", sorted(COLD_SPECS))
def test_each_cold_spec_agrees_with_its_click_command(command: str) -> None:
    spec = COLD_SPECS[command]
    opts = _click_options(command)
    for name, dest in {**spec.values, **spec.flags}.items():
        assert name in opts, f"{command} has no option {name}"
        opt = opts[name]
        assert opt.name == dest
        assert opt.is_flag == (name in spec.flags)
        assert opt.multiple == (dest in spec.multi)
        if dest in spec.ints:
            assert isinstance(opt.type, click.types.IntParamType)
        if dest in spec.defaults:
            assert opt.default == spec.defaults[dest], name
    cmd = cli.get_command(click.Context(cli), command)
    assert cmd is not None
    arg = next((p for p in cmd.params if isinstance(p, click.Argument)), None)
    fewest, most = spec.words
    if arg is None:
        assert spec.words == (0, 0)
        return
    assert (fewest > 0) == arg.required
    assert (most is None) == (arg.nargs == -1)


#: each cold command's capability (its request model states the bounds the spec must keep)
CAPABILITIES = {
    **{c: c.replace("-", "_") for c in ("get", "multi-get", "ls", "links", "backlinks", "changes", "recall")},
    "remember": "remember",
    "status": "status",
    "search": "search",
}


@pytest.mark.parametrize("command", sorted(COLD_SPECS))
def test_each_cold_spec_keeps_the_request_models_bounds(command: str) -> None:
    spec = COLD_SPECS[command]
    fields = capability(CAPABILITIES[command]).request_model.model_fields
    for dest, (least, most) in spec.ints.items():
        meta = {type(m).__name__: m for m in fields[dest].metadata}
        assert least == getattr(meta.get("Ge"), "ge", None), dest
        assert most == getattr(meta.get("Le"), "le", None), dest


#: each plain record of `gno.doc_reads` and the model it stands for: the same fields in the same order
RECORDS: list[tuple[type[tuple[object, ...]], type[BaseModel]]] = [
    (doc_reads.ReturnedLines, models.ReturnedLines),
    (doc_reads.Document, models.DocumentResult),
    (doc_reads.RefFailure, models.RefError),
    (doc_reads.Documents, models.MultiGetResult),
    (doc_reads.ListEntry, models.LsEntry),
    (doc_reads.Listing, models.LsResult),
    (doc_reads.LinkItem, models.LinkItem),
    (doc_reads.Links, models.LinksResult),
    (change_reads.ChangeEvent, models.ChangeEvent),
    (change_reads.ChangePage, models.ChangePage),
    (change_reads.Changes, models.ChangesResult),
    (egress.Source, models.EgressSource),
    (egress.Lineage, models.EgressLineage),
    (memory_records.Fact, memory_models.MemoryRecord),
    (memory_records.RecalledFact, memory_models.MemoryFact),
    (memory_records.Issued, memory_models.Receipt),
    (memory_records.Budget, memory_models.RecallBudget),
    (memory_records.Retrieval, memory_models.RetrievalInfo),
    (memory_records.Recalled, memory_models.RecallResult),
    (memory_records.Similar, memory_models.Candidate),
    (memory_records.Matching, memory_models.Matching),
    (propose.Proposal, memory_models.RememberResult),  # what a proposal has: the write's fields follow
    (status_reads.IngestErrorInfo, models.IngestErrorInfo),
    (status_reads.CollectionStatus, models.CollectionStatus),
    (status_reads.MemoryDiagnostic, models.MemoryDiagnostic),
    (status_reads.MemoryStatus, models.MemoryStatus),
    (status_reads.VectorStatus, models.VectorStatus),
    (status_reads.StatusResult, models.StatusResult),
]


@pytest.mark.parametrize(("record", "model"), RECORDS, ids=[r.__name__ for r, _ in RECORDS])
def test_each_plain_record_has_its_models_fields(record: type[tuple[object, ...]], model: type[BaseModel]) -> None:
    names: tuple[str, ...] = record._fields  # type: ignore[attr-defined]
    assert names == tuple(model.model_fields)[: len(names)]
    assert all(not f.is_required() for k, f in model.model_fields.items() if k not in names)
    defaults = {k: f.default for k, f in model.model_fields.items() if not f.is_required()}
    # a default the model has may be missing (a NamedTuple has no required field after a default one)
    assert record._field_defaults.items() <= defaults.items()  # type: ignore[attr-defined]


# -- recall in lexical mode ---------------------------------------------------------------------

#: what differs between two recalls a moment apart: when the receipt was issued, and so its digest
VOLATILE = re.compile(r'"(?:issuedAt|digest)": "[^"]*"|receipt [0-9a-f]{12}')

RECALLS = [
    (["recall", "deploys", "-s", "team"], True),
    (["recall", "deploys", "-s", "team", "--json"], True),
    (["recall", "reviewer rollbacks", "--scope=TEAM", "-s", "ops", "--max-facts", "1", "--json"], True),
    (["recall", "deploys", "-s", "team", "--max-tokens", "3"], True),
    (["recall", "nothing matches this", "-s", "team", "--caller", "c", "--session", "s", "--json"], True),
    (["recall", "deploys", "-s", "team", "-c", "Memory", "--as-of", "2020-01-01"], True),
    (["recall", "deploys"], False),  # no scope: MEMORY_SCOPES_REQUIRED
    (["recall", "deploys", "-s", "project:"], False),
    (["recall", "deploys", "-s", "team", "-c", "notes"], False),  # not a memory collection
    (["recall", "deploys", "-s", "team", "--max-facts", "0", "--json"], False),
    (["recall", "deploys", "-s", "team", "--as-of", "soon"], False),
    (["recall", "  ", "-s", "team"], False),
    (["recall", "-s", "team"], False),
]


@pytest.mark.parametrize(("args", "cold"), RECALLS, ids=[" ".join(a) for a, _ in RECALLS])
def test_lexical_recall_prints_what_click_prints(home: dict[str, str], args: list[str], cold: bool) -> None:
    env = {**home, "GNO_MEMORY_CALLER": "agent"}
    mods, fast = imported_modules(*args, env=env)
    slow = subprocess.run(
        [sys.executable, "-c", CLICK, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    stderr = "".join(ln + "\n" for ln in fast.stderr.splitlines() if not ln.startswith("import time:"))
    assert fast.returncode == slow.returncode and stderr == slow.stderr, (stderr, slow.stderr)
    assert VOLATILE.sub("~", fast.stdout) == VOLATILE.sub("~", slow.stdout)
    assert ("gno.cli.main" not in mods) == cold
    if cold:
        assert offenders(mods) == []
        assert "Traceback" not in fast.stderr
    if "--json" in args and cold:
        body = json.loads(fast.stdout)
        assert body["retrieval"] == {"mode": "lexical", "semanticUnavailable": "no vectors yet; run `gno embed`"}
        assert body["receipt"]["caller"] == ("c" if "--caller" in args else "agent")


def test_an_embedded_memory_is_recalled_by_click(home: dict[str, str], settings: Settings) -> None:
    """With vectors (of any model) the click command recalls hybrid: the cold path steps aside."""
    from gno.store.db import Store

    store = Store(settings.db_location)
    try:
        with store.conn:
            store.conn.execute(
                "INSERT INTO content_vectors(mirror_hash, seq, fingerprint, dim, embedding) "
                "SELECT d.mirror_hash, 0, 'other:1', 1, x'0000803f' FROM documents d WHERE d.collection = 'memory' "
                "LIMIT 1"
            )
    finally:
        store.close()
    mods, _ = imported_modules("recall", "deploys", "-s", "team", "--json", env=home)
    assert "gno.cli.main" in mods


# -- a remember proposal (nothing written); every write goes through click and the engine ---------

FACT = "Deploys go out on Tuesdays."
REMEMBERS = [
    (["remember", "Deploys go out on Fridays.", "-s", "team"], True),
    (["remember", "Deploys go out on Fridays.", "-s", "team", "--json"], True),
    (["remember", FACT, "--scope=team", "--json"], True),  # existing
    (["remember", FACT, "-s", "team"], True),
    (["remember", "Zebras are striped.", "-s", "team", "-s", "Zoo", "-c", "memory"], True),
    (["remember", "Zebras.", "-s", "team", "--valid-from", "2024-01-01", "--source", "chat", "--json"], True),
    (["remember", "Zebras.", "-s", "team", "--derived-from", "https://example.com", "--caller", "x"], True),
    (["remember", "Zebras.", "-s", "team", "--derived-from", "gno://notes/deploy.md"], False),
    (["remember", "Zebras.", "-s", "team", "--valid-from", "someday"], False),
    (["remember", "Zebras."], False),
    (["remember", "  ", "-s", "team"], False),
    (["remember", "Zebras.", "-s", "team", "-c", "notes"], False),
    (["remember", "Zebras.", "-s", "team", "--receipt", "-"], False),
]


@pytest.mark.parametrize(("args", "cold"), REMEMBERS, ids=[" ".join(a) for a in (r for r, _ in REMEMBERS)])
def test_a_remember_proposal_prints_what_click_prints(home: dict[str, str], args: list[str], cold: bool) -> None:
    _, mods = both(args, home)
    assert ("gno.cli.main" not in mods) == cold
    if cold:
        assert offenders(mods) == []


@pytest.mark.parametrize(
    "decision",
    [["--add"], ["--decision", "add"], ["--add", "--request-id", "r-1"], ["--add", "--no-wait"]],
    ids=lambda d: " ".join(d),
)
def test_every_remembered_write_goes_through_click(home: dict[str, str], decision: list[str]) -> None:
    args = ["remember", "Backups run nightly.", "-s", "team", *decision, "--json"]
    mods, proc = imported_modules(*args, env=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "gno.cli.main" in mods and json.loads(proc.stdout)["outcome"] == "added"
    _, again = imported_modules("remember", "Backups run nightly.", "-s", "team", "--json", env=home)
    assert json.loads(again.stdout)["outcome"] == "existing"


def test_the_memory_guard_sends_proposals_to_click(home: dict[str, str], settings: Settings) -> None:
    text = settings.config_path.read_text(encoding="utf-8")
    settings.config_path.write_text(text + "memoryGuard: true\n", encoding="utf-8")
    for _ in range(2):  # validated and recorded by the first, trusted by the second: both click's
        _, mods = both(["remember", "Deploys go out on Fridays.", "-s", "team"], home)
        assert "gno.cli.main" in mods


# -- status: the models named from the record the last click status made --------------------------

STATUSES = [(["status"], True), (["status", "--json"], True), (["status", "--help"], False), (["status", "x"], False)]


@pytest.mark.parametrize(("args", "cold"), STATUSES, ids=[" ".join(a) for a, _ in STATUSES])
def test_status_prints_what_click_prints(home: dict[str, str], args: list[str], cold: bool) -> None:
    _, mods = both(["status"], home)  # the first names the models through click and records them
    assert "gno.cli.main" in mods
    _, mods = both(args, home)
    assert ("gno.cli.main" not in mods) == cold
    if cold:
        assert offenders(mods) == []


def test_status_follows_index_writes_and_goes_to_click_when_the_record_is_stale(
    home: dict[str, str], settings: Settings, corpus: Path
) -> None:
    both(["status"], home)
    (corpus / "new.md").write_text("# New\n\nA note with a [[missing]] link.\n", encoding="utf-8")
    (corpus / "bad.md").write_bytes(b"# Bad\n\xff\xfe not utf-8 \x00\n")
    subprocess.run([sys.executable, "-m", "gno", "update"], env=home, capture_output=True, check=True, timeout=120)
    out, mods = both(["status", "--json"], home)  # the counts are the index's now, read cold
    assert "gno.cli.main" not in mods and json.loads(out.stdout)["documents"] >= 1
    both(["status"], home)
    record = Path(settings.cache_root) / "config-models.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps({**data, "environment": [["/elsewhere", 1]]}), encoding="utf-8")
    _, mods = both(["status"], home)  # another set of packages: named again through click
    assert "gno.cli.main" in mods
    assert json.loads(record.read_text(encoding="utf-8"))["models"] == data["models"]  # recorded anew
    _, mods = both(["status"], home)
    assert "gno.cli.main" not in mods
    settings.config_path.write_text(settings.config_path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    _, mods = both(["status", "--json"], home)  # an edited config: validated and named again
    assert "gno.cli.main" in mods
    _, mods = both(["status", "--json"], home)
    assert "gno.cli.main" not in mods


def test_status_of_an_embedded_index_with_another_model(home: dict[str, str], settings: Settings) -> None:
    text = settings.config_path.read_text(encoding="utf-8")
    settings.config_path.write_text(text + "models:\n  embed: fake:16\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "gno", "embed"], env=home, capture_output=True, check=True, timeout=300)
    both(["status"], home)
    out, mods = both(["status", "--json"], home)
    assert "gno.cli.main" not in mods
    vectors = json.loads(out.stdout)["vectors"]
    assert vectors["model"].startswith("fake") and vectors["embeddedChunks"] == vectors["totalChunks"] > 0
