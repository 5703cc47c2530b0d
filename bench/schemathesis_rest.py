"""Fuzz the REST surface against its own OpenAPI document with schemathesis, for a time budget.

Why: the OpenAPI document is generated from the capability table; this proves that what the
server answers is what it advertises. Every operation of `create_app(...)` (in-process ASGI, writes
enabled, over a small synced gno home) gets rounds of schema-conforming and schema-violating
requests until `--seconds` (default 300) are spent; each response goes through schemathesis' own
checks (`call_and_validate`: documented status, content type, response schema, schema-invalid
input rejected). Two of them are replaced: a documented 5xx of the error table (503
VECTORS_UNAVAILABLE on an index without vectors) is an answer, not a crash (a `RUNTIME` code,
an unexpected exception, is a crash); and schema-valid input may still be refused with a
documented 4xx code the schema cannot express (INVALID_QUERY for `-x`, INVALID_REF for `0.1.0`,
the MEMORY_* checks). Prints the examples run per operation and every violation found; exits 1
if there is one.

Usage: ``python bench/schemathesis_rest.py [--seconds 300] [--round 20]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def home(root: Path) -> dict[str, str]:
    notes, memory = root / "notes", root / "memory"
    notes.mkdir()
    memory.mkdir()
    (notes / "deploy.md").write_text("# Deploys\n\nWe deploy on Tuesdays from main. See [[handbook]].\n")
    (notes / "handbook.md").write_text("---\ntags: [team]\n---\n# Handbook\n\nOn-call rotates weekly.\n")
    env = {"HOME": str(root), "GNO_CONFIG_DIR": str(root / "config"), "GNO_DATA_DIR": str(root / "data"),
           "GNO_CACHE_DIR": str(root / "cache")}  # fmt: skip
    cfg = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(
        'version: "1.0"\ncollections:\n'
        f"  - {{name: notes, path: {notes}, pattern: '**/*.md'}}\n"
        f"  - {{name: memory, path: {memory}, pattern: '**/*.md', memoryManaged: true}}\n"
    )
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="total budget (default 300)")
    ap.add_argument("--round", type=int, default=20, help="examples per operation and round (default 20)")
    args = ap.parse_args(argv)

    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error
    from schemathesis.core.failures import FailureGroup
    from schemathesis.specs.openapi.checks import positive_data_acceptance

    from gno.config import build_settings
    from gno.engine import Engine
    from gno.http.app import create_app

    with tempfile.TemporaryDirectory(prefix="gno-fuzz-") as tmp:
        env = home(Path(tmp))
        engine = Engine(build_settings(env={**os.environ, **env}))
        engine.update()
        # schemathesis' ASGI client names the server `testserver`: allow it as an operator would
        app = create_app(engine, enable_write=True, allowed_hosts=["testserver"])
        app.openapi()  # generated once and cached, so the loader's request is answered at once
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        ops = [(m.upper(), p) for p, item in app.openapi()["paths"].items() for m in item]
        runs = dict.fromkeys(ops, 0)
        failures: list[tuple[str, str, str]] = []
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            for method, path in ops:
                if time.monotonic() >= deadline:
                    break
                op = schema[path][method.lower()]
                strategy = st.one_of(op.as_strategy(GenerationMode.POSITIVE), op.as_strategy(GenerationMode.NEGATIVE))

                key = (method, path)

                @given(case=strategy)
                @settings(max_examples=args.round, deadline=None, suppress_health_check=list(HealthCheck),
                          database=None)  # fmt: skip
                def check(case: Any) -> None:
                    runs[key] += 1  # noqa: B023 - run at once, in this iteration
                    try:
                        resp = case.call_and_validate(excluded_checks=[not_a_server_error, positive_data_acceptance])
                    except FailureGroup:
                        raise
                    except Exception as exc:  # the app raised (the test client re-raises it): a crash
                        what = f"{type(exc).__name__}: {exc}; {case.body!r} {case.query!r}"
                        raise AssertionError(f"crash {what}") from exc
                    if resp.status_code >= 500 and resp.json()["error"]["code"] == "RUNTIME":
                        raise AssertionError(f"crash: {case.method} {case.formatted_path} {resp.text[:200]}")

                try:
                    check()
                except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every violation (a FailureGroup too)
                    failures.append((method, path, str(exc).strip().splitlines()[0][:300]))
        engine.close()
    print(f"schemathesis over {len(ops)} operations for {args.seconds:.0f} s: {sum(runs.values())} examples")
    for (method, path), n in runs.items():
        print(f"  {method:<6} {path:<28} {n:>6}")
    print(f"violations: {len(failures)}")
    for f in failures:
        print("  " + " ".join(f))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
