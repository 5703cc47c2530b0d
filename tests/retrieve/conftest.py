"""Fixtures for the hybrid-retrieval tests (issue 5): embeddings, vectors, query, diagnose, bench.

Every test runs in the isolated gno home of the root conftest. The embedder is chosen by
`models: {embed: <spec>}` in index.yml; these tests use the deterministic hashing embedder
`fake:64` (word + character-trigram feature hashing): it is not semantic, but texts that share
word fragments get close vectors, which lets a crafted corpus tell vectors from BM25. One test
(marked `slow`) uses the real MiniLM model.

- `set_embed(engine, spec)` rewrites `models.embed` and drops the engine's cached config;
- `fake_engine`: the fixture corpus (collection `notes`) with `fake:64` configured, not embedded;
- `embedded`: the same, embedded;
- `build(...)`: a fresh engine over hand-written collections (dicts of relative path → text);
- `cli(...)`: `gno …` in-process through click's runner, same code path as the console script.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gno.config import Settings, load_config, save_config
from gno.engine import Engine
from gno.errors import ERROR_TABLE, ErrorCode, GnoError

FAKE = "fake:64"

#: Crafted corpus where vectors help: each query below shares only word *fragments* (character
#: trigrams) with its relevant document, so BM25 (porter stemming + prefix match) cannot find it
#: while the fake embedder's trigram features can.
TECH: dict[str, str] = {
    "postgres.md": "# Database\n\nOur primary store is postgres with streaming replicas.\n",
    "kafka.md": "# Queue\n\nEvents flow through kafka topics consumed by workers.\n",
    "kubernetes.md": "# Cluster\n\nServices run on kubernetes with autoscaling enabled.\n",
    "grafana.md": "# Dashboards\n\nMetrics are charted in grafana panels.\n",
    "terraform.md": "# Infrastructure\n\nCloud resources are declared in terraform modules.\n",
    "redis.md": "# Cache\n\nHot keys live in redis with a short expiry.\n",
    "misc.md": "# Misc\n\nThe postgresql conference and kubernetes meetup notes.\n",
}
#: query → its one relevant document in TECH; "grafana" is a control BM25 already gets right.
TECH_QUERIES: dict[str, str] = {
    "kafkaesque": "kafka.md",
    "kubernetesclusters": "kubernetes.md",
    "rediscache": "redis.md",
    "autoscaler": "kubernetes.md",
    "postgresql": "postgres.md",
    "grafana": "grafana.md",
}

#: A small linked graph: `incident` links to `remediation`; `reviews` links back to `incident`.
#: Only `incident` contains the word "outage".
GRAPH: dict[str, str] = {
    "incident.md": (
        "---\ntags: [ops]\n---\n\n# Incident\n\nThe outage was caused by a bad migration.\n\n"
        "Follow-up work is in [[remediation]].\n"
    ),
    "remediation.md": "# Remediation\n\nAdd a canary stage and freeze schema changes on Fridays.\n",
    "reviews.md": "---\ntags: [ops]\n---\n\n# Reviews\n\nSee [[incident]] for the details.\n",
}
#: another collection that links into GRAPH's `incident` (a cross-collection backlink)
SIDE: dict[str, str] = {
    "side.md": "# Side\n\nBackground reading: [[incident]].\n",
    "kafka-ops.md": "# Kafka ops\n\nBroker restarts for kafka are scripted.\n",
}


def set_embed(engine: Engine, spec: str | None) -> None:
    """Point `models.embed` at `spec` (None removes it) and make the engine re-read index.yml."""
    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    save_config(engine.settings, cfg)
    engine._config = None  # never rely on mtime granularity between rewrites


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def expect_code(exc: BaseException, code: ErrorCode) -> GnoError:
    assert isinstance(exc, GnoError), repr(exc)
    assert exc.code == code, (exc.code, exc.message)
    return exc


@pytest.fixture
def fake_engine(engine: Engine) -> Engine:
    """The fixture corpus (`notes`, 5 documents, 5 chunks) with `fake:64`, not embedded yet."""
    set_embed(engine, FAKE)
    return engine


@pytest.fixture
def embedded(fake_engine: Engine) -> Engine:
    r = fake_engine.embed()
    assert r.embedded == 5, r
    return fake_engine


Build = Callable[..., Engine]


@pytest.fixture
def build(settings: Settings, tmp_path: Path) -> Iterator[Build]:
    """`build({"kb": {...}, "side": {...}}, spec="fake:64", embed=True)` → a synced engine."""
    made: list[Engine] = []

    def _build(collections: Mapping[str, Mapping[str, str]], *, spec: str | None = FAKE, embed: bool = True) -> Engine:
        e = Engine(settings)
        e.init()
        for name, files in collections.items():
            root = tmp_path / "src" / name
            root.mkdir(parents=True)
            write_files(root, files)
            e.collection_add(str(root), name=name)
        set_embed(e, spec)
        e.update()
        if embed:
            e.embed()
        made.append(e)
        return e

    yield _build
    for e in made:
        e.close()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def expect_error(self, code: ErrorCode) -> dict[str, Any]:
        assert self.exit_code == ERROR_TABLE[code].exit_code, (self.exit_code, self.stdout, self.stderr)
        err = self.json["error"]
        assert err["code"] == code.value, err
        return dict(err)


Cli = Callable[..., CliResult]


@pytest.fixture
def cli() -> Cli:
    from gno.cli.main import cli as gno_cli

    def _run(*args: str) -> CliResult:
        r = CliRunner().invoke(gno_cli, list(args), catch_exceptions=False)
        return CliResult(r.exit_code, r.stdout, r.stderr)

    return _run
