"""Cold start of whole processes, as ratios measured in one interleaved run.

Against the floor of the interpreter (`python -c pass`, same interpreter as `gno`) and against
qmd's `search` on the same tldr-pages index (38,404 pages), every round runs, back to back:

* `python -c pass`
* `gno --version`
* `gno search QUERY -n 10`
* `qmd search QUERY -n 10` (when `--qmd` points at qmd; the same QUERY)

with a different QUERY each round (1-3 words from the pages' example descriptions,
deterministic with `--seed`). Interleaving keeps the machine's load the same for every
command, so the medians' ratios are fair even on a shared, noisy box. Reported: medians, p90,
and the ratios against the targets `gno --version` <= 3 x pass, `gno search` <= 4 x pass and
<= 1 x qmd.

Setup (cached under `--cache`, never in the repository): the tldr tarball is unpacked there,
a gno home indexes it, and qmd's index lives in `--qmd-home`. gno is measured byte-compiled, as
pip installs it: an editable checkout is compiled first (the run says so).

`--lexical` times instead, without a resident owner (`GNO_NO_DAEMON=1`), every lexical command an
agent runs in a fresh process -- `recall --json` (lexical: no vectors), `remember` (a proposal),
`get`, `multi-get`, `ls`, `status`, `changes`, `links`, `backlinks` -- on a small vault (the first
`--notes` notes of dwarves-brain and `--facts` memory facts), interleaved with `python -c pass`;
target: each <= 4 x pass.

Usage::

    python bench/cold_start.py [--rounds 25] [--cache DIR]
        [--qmd "bun /path/to/@tobilu/qmd/dist/cli/qmd.js" --qmd-home DIR]
    nice -n 10 python bench/cold_start.py --lexical [--rounds 15] [--notes 60] [--facts 40]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
TARGETS = {"version_over_pass": 3.0, "search_over_pass": 4.0, "search_over_qmd": 1.0, "lexical_over_pass": 4.0}
_EXAMPLE_RE = re.compile(r"^-\s+(.+?):?\s*$", re.M)
_WORD_RE = re.compile(r"[a-z]{4,}")
GNO_EXE = str(Path(sys.executable).with_name("gno"))


def unpack_tldr(datasets: Path, cache: Path) -> Path:
    root = cache / "tldr"
    if not (root / ".unpacked").exists():
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(datasets / "tldr-pages" / "tldr-pages-all.tar.gz") as tar:
            tar.extractall(root, filter="data")
        (root / ".unpacked").write_text("ok\n")
    return root


def queries(tldr: Path, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pages = sorted((tldr / "pages" / "common").glob("*.md"))
    out: list[str] = []
    while len(out) < n:
        text = rng.choice(pages).read_text(encoding="utf-8", errors="replace")
        lines = _EXAMPLE_RE.findall(text)
        words = _WORD_RE.findall(rng.choice(lines).lower()) if lines else []
        if words:
            out.append(" ".join(rng.sample(words, min(len(words), rng.choice([1, 2, 2, 3])))))
    return out


def gno_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(
        GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "cache")
    )
    return env


def qmd_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"), HOME=str(home / "home"))
    return env


TOPICS = ["deploys", "reviews", "releases", "backups", "oncall", "invoices", "hiring", "design", "tests", "docs"]
DAYS = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays"]


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {**gno_env(home), **extra}


def run(args: list[str], env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([GNO_EXE, *args], env=env, capture_output=True, text=True, input=stdin, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"gno {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-800:]}{proc.stdout[-800:]}")
    return proc


def build_home(home: Path, vault: Path, facts: int, embed: bool) -> None:
    if (home / "ready").exists():
        return
    shutil.rmtree(home, ignore_errors=True)
    memory = home / "memory"
    memory.mkdir(parents=True)
    env = env_for(home, GNO_NO_DAEMON="1")
    run(["init", str(vault), "--name", "notes"], env)
    run(["collection", "add", str(memory), "--name", "memory", "--memory"], env)
    run(["update"], env)
    for i in range(facts):
        text = f"Team {TOPICS[i % len(TOPICS)]} happen on {DAYS[i % len(DAYS)]} (rule {i})."
        run(["remember", text, "-s", "team", "--add"], env)
    if embed:
        run(["embed"], env)
    (home / "ready").write_text("ok\n")


def copy_vault(datasets: Path, vault: Path, notes: int) -> Path:
    """The first `notes` notes of dwarves-brain (sorted by path), copied once."""
    if not vault.exists():
        src = datasets / "dwarves-brain"
        for p in sorted(src.rglob("*.md"))[:notes]:
            dst = vault / p.relative_to(src)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dst)
    return vault


def lexical_commands(vault: Path) -> dict[str, list[str]]:
    """The lexical commands an agent runs in a fresh process, on that vault (no vectors needed)."""
    paths = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    doc = "gno://notes/" + paths[0]
    return {
        "recall (lexical)": ["recall", "deploys", "-s", "team", "--json"],
        "remember (proposal)": ["remember", "Team deploys happen on Mondays.", "-s", "team"],
        "get": ["get", doc],
        "multi-get": ["multi-get", ",".join("gno://notes/" + p for p in paths[:3])],
        "ls": ["ls", "notes"],
        "status": ["status"],
        "changes": ["changes", "--limit", "20"],
        "links": ["links", doc],
        "backlinks": ["backlinks", doc],
    }


def ensure_compiled(pkg: Path | None = None) -> str:
    """Bring gno's bytecode up to date (`pkg`: the package folder measured), as pip leaves it after
    an install.

    An editable checkout under PYTHONDONTWRITEBYTECODE (or with stale caches after an edit) would
    otherwise compile every module in every process, which is not what a user's install does.
    """
    if pkg is None:
        import gno

        pkg = Path(gno.__file__).parent
    stale = not compileall.compile_dir(str(pkg), quiet=1) or None
    return "byte-compiled as pip installs it" + (" (some files failed to compile)" if stale else "")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def p90(values: list[float]) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(0.9 * (len(s) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "gno-bench-cold")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--qmd", default=None, help="command that runs qmd (e.g. 'bun …/qmd.js'); omit to skip")
    ap.add_argument("--qmd-home", type=Path, default=None, help="qmd's isolated home (default: <cache>/qmd)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lexical", action="store_true", help="time the lexical commands on a small vault instead")
    ap.add_argument("--notes", type=int, default=60, help="--lexical: notes of dwarves-brain in the vault")
    ap.add_argument("--facts", type=int, default=40, help="--lexical: memory facts (no vectors)")
    args = ap.parse_args(argv)
    if args.lexical:
        return lexical(args)

    args.cache.mkdir(parents=True, exist_ok=True)
    tldr = unpack_tldr(args.datasets, args.cache)
    gno = str(Path(sys.executable).with_name("gno"))
    genv = gno_env(args.cache / "gno-home")
    if not (args.cache / "gno-home" / "config" / "index.yml").exists():
        subprocess.run([gno, "init", str(tldr), "--name", "tldr"], env=genv, check=True, capture_output=True)
        subprocess.run([gno, "update"], env=genv, check=True, capture_output=True)
    compiled = ensure_compiled()
    qmd = shlex.split(args.qmd) if args.qmd else None
    qenv = qmd_env(args.qmd_home or args.cache / "qmd")
    if qmd:
        listed = subprocess.run([*qmd, "collection", "list"], env=qenv, capture_output=True, text=True, check=False)
        if "tldr" not in listed.stdout:
            subprocess.run([*qmd, "collection", "add", str(tldr), "--name", "tldr"], env=qenv, check=True)

    qs = queries(tldr, args.rounds, args.seed)
    cmds: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], genv),
        "gno --version": ([gno, "--version"], genv),
        "gno search": ([gno, "search"], genv),
    }
    if qmd:
        cmds["qmd search"] = ([*qmd, "search"], qenv)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for name, (cmd, env) in cmds.items():  # one untimed warm-up each: page cache, bun's transpile cache
        timed([*cmd, qs[0], "-n", "10"] if name.endswith("search") else cmd, env)
    for q in qs:
        for name, (cmd, env) in cmds.items():
            times[name].append(timed([*cmd, q, "-n", "10"] if name.endswith("search") else cmd, env))

    med = {k: statistics.median(v) for k, v in times.items()}
    floor = med["python -c pass"]
    ratios = {
        "version_over_pass": med["gno --version"] / floor,
        "search_over_pass": med["gno search"] / floor,
    }
    if qmd:
        ratios["search_over_qmd"] = med["gno search"] / med["qmd search"]
    result = {
        "rounds": len(qs),
        "gno": compiled,
        "loadAverage1m": round(os.getloadavg()[0], 2),
        "medianMs": {k: round(v * 1000, 1) for k, v in med.items()},
        "p90Ms": {k: round(p90(v) * 1000, 1) for k, v in times.items()},
        "ratios": {k: round(v, 2) for k, v in ratios.items()},
        "targets": {k: v for k, v in TARGETS.items() if k in ratios},
        "met": {k: ratios[k] <= TARGETS[k] for k in ratios},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"cold start, {len(qs)} interleaved rounds on tldr-pages ({compiled})")
    print(f"machine load average (1 min): {result['loadAverage1m']} on {os.cpu_count()} cores")
    print(f"{'command':<18}{'median ms':>11}{'p90 ms':>9}")
    for k in cmds:
        print(f"{k:<18}{result['medianMs'][k]:>11.1f}{result['p90Ms'][k]:>9.1f}")
    for k, v in ratios.items():
        print(f"{k:<20} {v:5.2f}  (target <= {TARGETS[k]:g}: {'met' if result['met'][k] else 'MISSED'})")
    return 0


def lexical(args: argparse.Namespace) -> int:
    """Each lexical command without a resident owner, interleaved with `python -c pass`, as ratios."""
    vault = copy_vault(args.datasets, args.cache / "vault", args.notes)
    home = args.cache / f"lexical-{args.notes}-{args.facts}"
    build_home(home, vault, args.facts, embed=False)
    compiled = ensure_compiled()
    env = env_for(home, GNO_NO_DAEMON="1")
    cmds = {"python -c pass": [sys.executable, "-c", "pass"]}
    cmds.update({k: [GNO_EXE, *a] for k, a in lexical_commands(vault).items()})
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for cmd in cmds.values():  # one untimed warm-up each
        timed(cmd, env)
    for _ in range(args.rounds):
        for k, cmd in cmds.items():
            times[k].append(timed(cmd, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    floor = med["python -c pass"]
    ratios = {k: round(v / floor, 2) for k, v in med.items() if k != "python -c pass"}
    result = {
        "rounds": args.rounds,
        "gno": compiled,
        "loadAverage1m": round(os.getloadavg()[0], 2),
        "medianMs": {k: round(v * 1000, 1) for k, v in med.items()},
        "p90Ms": {k: round(p90(v) * 1000, 1) for k, v in times.items()},
        "ratios": ratios,
        "met": {k: v <= TARGETS["lexical_over_pass"] for k, v in ratios.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"lexical commands, no resident owner, {args.rounds} interleaved rounds ({compiled})")
    print(f"vault: {args.notes} notes, {args.facts} facts; load average (1 min) {result['loadAverage1m']}")
    print(f"{'command':<22}{'median ms':>10}{'p90 ms':>9}{'x pass':>8}  target")
    for k in cmds:
        r = ratios.get(k)
        verdict = "met" if r is not None and r <= TARGETS["lexical_over_pass"] else "MISSED"
        tail = "" if r is None else f"{r:>8.2f}  <= {TARGETS['lexical_over_pass']:g} {verdict}"
        print(f"{k:<22}{result['medianMs'][k]:>10.1f}{result['p90Ms'][k]:>9.1f}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
