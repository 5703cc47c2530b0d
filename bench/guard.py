"""Benchmark the Memory Guard against public fixtures (nothing is copied into the repo).

Why: the guard's targets (secrets >= 95% caught, injections >= 90% caught, <= 2% false positives on
benign memory text) are only meaningful when measured on data we did not write ourselves. Figures:

1. secret recall on detect-secrets' ``test_data`` (ground truth = its ``baseline.file``, resolved to
   the current files by the sha1 of each secret) and on gitleaks' ``testdata`` (ground truth = what
   gitleaks' own default rules, ``gitleaks.toml``, find in its planted-secret source files);
2. injection detection on BIPIA attack strings (text and code attacks), alone and embedded at the
   start / middle / end of clean BIPIA e-mails as the BIPIA paper does;
3. false positives (rejections, and redactions) on benign text: LoCoMo dialogue turns, dwarves-brain
   markdown paragraphs and the clean BIPIA contexts;
4. latency per KB of a full ``MemoryGuard.check``;
5. our own attack set (``bench/guard_attacks.jsonl``, written for this guard: override / ignore /
   disregard / forget, new role or persona, system-prompt disclosure, exfiltration, hidden Unicode,
   encoded payloads). Split: the ``tune`` rows (220) are the ones rules were written from; the
   ``report`` rows (110) were written afterwards and never used to change a rule. BIPIA likewise:
   rules from ``train``, figures on ``test``;
6. benign false positives (rejected or redacted) on LoCoMo turns and on the dwarves-brain
   paragraphs that mention keys, tokens or passwords (selected at bench time from the datasets);
7. guard CPU time on 100 KB of pathological input (the worst of a battery: ``://`` repeated,
   keyword storms, unclosed key blocks, ...) against 100 KB of dwarves-brain prose, in one run.

8. with ``--loso CORPUS``: the leave-one-source-out table of ``bench/guard_loso.py`` over the corpus
   ``bench/guard_corpus.py`` assembled (sources and protocol: ``bench/guard_sources.md``).

Usage: ``python bench/guard.py [--datasets PATH] [--show-misses N] [--loso CORPUS]``.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import hashlib
import io
import json
import lzma
import math
import re
import sys
import tarfile
import tempfile
import time
import tomllib
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATASETS = REPO.parent / "shared" / "datasets"

try:
    from gno.guard import MemoryGuard, detect_poisoning, redact_secrets
except ImportError:  # running from a checkout without PYTHONPATH=src
    sys.path.insert(0, str(REPO / "src"))
    from gno.guard import MemoryGuard, detect_poisoning, redact_secrets


# BIPIA text-attack categories whose strings are plain user requests, not instructions about the output.
PLAIN_TASK_CATEGORIES = frozenset(
    {"Task Automation", "Business Intelligence", "Conversational Agent", "Research Assistance"}
)


@dataclass
class Score:
    """A hit/total counter that remembers a few misses for inspection."""

    name: str
    hits: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, hit: bool, label: str) -> None:
        self.total += 1
        self.hits += int(hit)
        if not hit:
            self.misses.append(label)

    @property
    def rate(self) -> float:
        return self.hits / self.total if self.total else math.nan


# --------------------------------------------------------------------------------------------------
# Secrets: detect-secrets baseline
# --------------------------------------------------------------------------------------------------


def _extract(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _resolve_secret(lines: list[str], hashed: str, near: int) -> tuple[int, str] | None:
    """Find the substring whose sha1 the baseline recorded, preferring the line nearest ``near``."""
    order = sorted(range(len(lines)), key=lambda i: abs(i + 1 - near))
    for index in order:
        line = lines[index]
        for start in range(len(line)):
            for end in range(start + 1, min(len(line), start + 160) + 1):
                if _sha1(line[start:end]) == hashed:
                    return index + 1, line[start:end]
    return None


def _caught_on_line(original: list[str], redacted: str, line_no: int, secret: str | None) -> bool:
    """A secret is caught when it no longer appears in the redacted file; pseudo-secrets by line."""
    if secret and secret != "!!binary":
        return secret not in redacted
    line = original[line_no - 1]
    prefix = line[: line.index("!!binary") + len("!!binary")] if "!!binary" in line else line.split("=")[0]
    return any(r.startswith(prefix) and "[REDACTED:" in r for r in redacted.splitlines())


_SECRET_WORD_RE = re.compile(r"pass|pwd|secret|token|key|auth|credential", re.IGNORECASE)


def _enclosing_keys(lines: list[str], line_no: int) -> list[str]:
    """The ``key:`` lines a YAML/INI line is nested under (less indented, above it)."""
    line = lines[line_no - 1]
    indent = len(line) - len(line.lstrip())
    heads: list[str] = []
    for prev in reversed(lines[: line_no - 1]):
        prev_indent = len(prev) - len(prev.lstrip())
        if indent == 0:
            break
        if prev.strip() and prev_indent < indent and prev.rstrip().endswith(":"):
            heads.append(prev)
            indent = prev_indent
    return heads


def _context_free_hex(lines: list[str], line_no: int, secret: str | None) -> bool:
    """A bare hex literal whose line and enclosing keys name no secret (``len("012345678a")``):
    detect-secrets only flags these through its hex-entropy threshold of 3.0, which would also flag every
    git SHA. A value nested under ``credentials:`` is *not* context-free, even if its own key is bland."""
    if not (secret and re.fullmatch(r"[0-9a-fA-F]+", secret)):
        return False
    context = [lines[line_no - 1] if line_no <= len(lines) else "", *_enclosing_keys(lines, line_no)]
    return not any(_SECRET_WORD_RE.search(part) for part in context)


def score_detect_secrets(datasets: Path, tmp: Path) -> tuple[Score, Score]:
    """(all resolvable baseline entries, the same without context-free hex literals)."""
    root = _extract(datasets / "detect-secrets-testdata.tar.xz", tmp / "ds") / "detect-secrets-testdata"
    test_data = root / "test_data"
    baseline = json.loads((test_data / "baseline.file").read_text())
    score, in_context = Score("detect-secrets baseline"), Score("detect-secrets baseline, in context")
    for name, entries in sorted(baseline["results"].items()):
        path = test_data / name
        path = path if path.exists() else path.with_name(path.name + ".txt")
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        redacted = redact_secrets(text).text
        seen: set[tuple[int, str | None]] = set()
        for entry in entries:
            resolved = _resolve_secret(lines, entry["hashed_secret"], entry["line_number"])
            line_no, secret = resolved if resolved else (entry["line_number"], None)
            line = lines[line_no - 1] if line_no <= len(lines) else ""
            if resolved is None and not re.search(r"[=:]\s*\S", line):
                continue  # stale baseline entry pointing at a line that no longer holds a value
            if (line_no, secret) in seen:
                continue
            seen.add((line_no, secret))
            label = f"{name}:{line_no} {entry['type']}: {line.strip()[:90]}"
            caught = _caught_on_line(lines, redacted, line_no, secret)
            score.add(caught, label)
            if not _context_free_hex(lines, line_no, secret):
                in_context.add(caught, label)
    return score, in_context


# --------------------------------------------------------------------------------------------------
# Secrets: gitleaks rules applied to gitleaks testdata
# --------------------------------------------------------------------------------------------------


@dataclass
class _LeakRule:
    rule_id: str
    regex: re.Pattern[str]
    keywords: list[str]
    entropy: float
    secret_group: int
    allow_regexes: list[re.Pattern[str]]
    stopwords: list[str]


def _go_regex(pattern: str) -> re.Pattern[str]:
    """Translate the RE2 features gitleaks uses that Python spells differently."""
    flags = 0
    warnings.simplefilter("ignore", FutureWarning)  # RE2 character classes Python reads as "nested sets"
    pattern = pattern.replace(r"\z", r"\Z")
    if "(?i)" in pattern[4:]:
        pattern = pattern.replace("(?i)", "")
        flags |= re.IGNORECASE
    return re.compile(pattern, flags)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values()) if value else 0.0


def _load_gitleaks(config: Path) -> tuple[list[_LeakRule], list[re.Pattern[str]], list[str]]:
    data = tomllib.loads(config.read_text())
    rules: list[_LeakRule] = []
    for raw in data["rules"]:
        if "regex" not in raw:
            continue
        allow = [a for a in raw.get("allowlists", []) if a.get("regexTarget", "secret") == "secret"]
        rules.append(
            _LeakRule(
                rule_id=raw["id"],
                regex=_go_regex(raw["regex"]),
                keywords=[k.lower() for k in raw.get("keywords", [])],
                entropy=float(raw.get("entropy", 0.0)),
                secret_group=int(raw.get("secretGroup", 0)),
                allow_regexes=[_go_regex(r) for a in allow for r in a.get("regexes", [])],
                stopwords=[s.lower() for a in allow for s in a.get("stopwords", [])],
            )
        )
    glob = data.get("allowlist", {})
    return (
        rules,
        [_go_regex(r) for r in glob.get("regexes", [])],
        [s.lower() for s in glob.get("stopwords", [])],
    )


def _leak_secret(rule: _LeakRule, match: re.Match[str]) -> str:
    if rule.secret_group:
        return match.group(rule.secret_group) or ""
    groups = [g for g in match.groups() if g]
    return groups[0] if groups else match.group()


def _gitleaks_findings(
    text: str, rules: list[_LeakRule], allow: list[re.Pattern[str]], stop: list[str]
) -> Iterator[tuple[str, str]]:
    lowered = text.lower()
    for rule in rules:
        if rule.keywords and not any(k in lowered for k in rule.keywords):
            continue
        for match in rule.regex.finditer(text):
            secret = _leak_secret(rule, match)
            if not secret or (rule.entropy and _entropy(secret) < rule.entropy):
                continue
            if any(r.search(secret) for r in [*allow, *rule.allow_regexes]):
                continue
            if any(s in secret.lower() for s in [*stop, *rule.stopwords]):
                continue
            yield rule.rule_id, secret


def _gitleaks_corpus(testdata: Path) -> Iterator[tuple[str, str]]:
    """Planted-secret source files, including the copies inside archives we can open with the stdlib."""
    for path in sorted([*testdata.glob("repos/**/*"), *testdata.glob("archives/**/*")]):
        if not path.is_file() or path.name == ".gitleaksignore":
            continue
        yield from _open_any(path.relative_to(testdata).as_posix(), path.read_bytes())


def _open_any(name: str, blob: bytes) -> Iterator[tuple[str, str]]:
    if name.endswith((".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2")):
        with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
            for member in tar.getmembers():
                handle = tar.extractfile(member) if member.isfile() else None
                if handle is not None:
                    yield from _open_any(f"{name}!{member.name}", handle.read())
        return
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield from _open_any(f"{name}!{info.filename}", archive.read(info))
        return
    decoders = {".gz": gzip.decompress, ".xz": lzma.decompress, ".bz2": bz2.decompress}
    for suffix, decode in decoders.items():
        if name.endswith(suffix):
            yield from _open_any(name[: -len(suffix)], decode(blob))
            return
    if name.endswith((".zst", ".7z")) or b"\x00" in blob[:1024]:
        return  # no stdlib decoder; the same files are covered through the other archive formats
    yield name, blob.decode("utf-8", errors="replace")


def score_gitleaks(datasets: Path, tmp: Path) -> Score:
    root = _extract(datasets / "gitleaks-testdata.tar.xz", tmp / "gl") / "gitleaks-testdata"
    rules, allow, stop = _load_gitleaks(root / "gitleaks.toml")
    score = Score("gitleaks testdata")
    seen: set[tuple[str, str]] = set()
    for name, text in _gitleaks_corpus(root / "testdata"):
        redacted = redact_secrets(text).text
        for rule_id, secret in _gitleaks_findings(text, rules, allow, stop):
            digest = hashlib.sha1(text.encode()).hexdigest()
            if (digest, secret) in seen:
                continue  # the same file reached through several archive formats
            seen.add((digest, secret))
            probe = secret.strip()[:40]
            score.add(probe not in redacted, f"{name} [{rule_id}] {secret[:60]!r}")
    return score


# --------------------------------------------------------------------------------------------------
# Injections: BIPIA
# --------------------------------------------------------------------------------------------------


def _bipia_attacks(bipia: Path, split: str) -> Iterator[tuple[str, str, str]]:
    for family in ("text", "code"):
        data = json.loads((bipia / f"{family}_attack_{split}.json").read_text())
        for category, attacks in data.items():
            for attack in attacks:
                yield family, category, attack


def _bipia_contexts(bipia: Path, task: str, split: str) -> list[str]:
    contexts: list[str] = []
    for line in (bipia / task / f"{split}.jsonl").read_text().splitlines():
        if line.strip():
            context = json.loads(line)["context"]
            contexts.append("\n".join(context) if isinstance(context, list) else str(context))
    return contexts


def _embed(context: str, attack: str, where: str) -> str:
    if where == "start":
        return f"{attack}\n{context}"
    if where == "end":
        return f"{context}\n{attack}"
    sentences = re.split(r"(?<=[.!?\n])\s+", context)
    middle = len(sentences) // 2
    return " ".join([*sentences[:middle], attack, *sentences[middle:]])


def score_bipia(datasets: Path, split: str) -> tuple[Score, Score, Counter[str], Counter[str]]:
    bipia = datasets / "bipia"
    text, code = Score(f"BIPIA text attacks ({split})"), Score(f"BIPIA code attacks ({split})")
    per_cat_hit: Counter[str] = Counter()
    per_cat_all: Counter[str] = Counter()
    for family, category, attack in _bipia_attacks(bipia, split):
        hit = detect_poisoning(attack) is not None
        (text if family == "text" else code).add(hit, f"[{category}] {attack.splitlines()[0][:100]}")
        per_cat_all[f"{family}/{category}"] += 1
        per_cat_hit[f"{family}/{category}"] += int(hit)
    return text, code, per_cat_hit, per_cat_all


def score_bipia_embedded(datasets: Path) -> Score:
    bipia = datasets / "bipia"
    emails = _bipia_contexts(bipia, "email", "test")
    score = Score("BIPIA attacks embedded in e-mails (test)")
    for index, (_family, category, attack) in enumerate(_bipia_attacks(bipia, "test")):
        context = emails[index % len(emails)]
        for where in ("start", "middle", "end"):
            hit = detect_poisoning(_embed(context, attack, where)) is not None
            score.add(hit, f"[{category}/{where}] {attack.splitlines()[0][:80]}")
    return score


# --------------------------------------------------------------------------------------------------
# Benign text
# --------------------------------------------------------------------------------------------------


def locomo_turns(datasets: Path) -> list[str]:
    data = json.loads((datasets / "locomo" / "locomo10.json").read_text())
    turns: list[str] = []
    for sample in data:
        conversation = sample["conversation"]
        for key, session in conversation.items():
            if key.startswith("session_") and isinstance(session, list):
                turns.extend(f"{t['speaker']}: {t['text']}" for t in session if t.get("text"))
    return turns


def dwarves_paragraphs(datasets: Path) -> list[str]:
    paragraphs: list[str] = []
    for path in sorted((datasets / "dwarves-brain").rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        paragraphs.extend(p.strip() for p in re.split(r"\n\s*\n", text) if len(p.strip()) >= 20)
    return paragraphs


def locomo_questions(datasets: Path) -> list[str]:
    """LoCoMo's QA questions ("What did Caroline research?"): bare questions, the form a task-request
    rule is most likely to confuse with an injected "What is the capital of Brazil?"."""
    data = json.loads((datasets / "locomo" / "locomo10.json").read_text())
    return [qa["question"] for sample in data for qa in sample.get("qa", []) if qa.get("question")]


def bipia_clean_contexts(datasets: Path) -> list[str]:
    bipia = datasets / "bipia"
    return [
        c
        for task in ("email", "code", "table")
        for split in ("train", "test")
        for c in _bipia_contexts(bipia, task, split)
    ]


def score_benign(name: str, texts: Iterable[str]) -> tuple[Score, Score]:
    """Returns (rejections, redactions) as 'hit = flagged' counters (lower is better)."""
    rejected, redacted = Score(f"{name} rejected"), Score(f"{name} redacted")
    for text in texts:
        finding = detect_poisoning(text)
        rejected.add(finding is None, f"[{finding.rule if finding else ''}] {text[:140]!r}")
        result = redact_secrets(text)
        redacted.add(not result.findings, f"{[f.rule for f in result.findings]} {text[:140]!r}")
    return rejected, redacted


# --------------------------------------------------------------------------------------------------
# Timing and reporting
# --------------------------------------------------------------------------------------------------


def time_per_kb(texts: list[str]) -> tuple[float, float, float]:
    """(wall ms/KB of MemoryGuard.check, CPU ms/KB of the same, wall ms/KB of redaction alone)."""
    guard = MemoryGuard()
    guard.check({"text": "warm-up sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1"})
    kilobytes = sum(len(t.encode("utf-8")) for t in texts) / 1024
    wall, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        guard.check({"text": text})
    wall_ms, cpu_ms = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
    start = time.perf_counter()
    for text in texts:
        redact_secrets(text)
    redact_ms = (time.perf_counter() - start) * 1000
    return wall_ms / kilobytes, cpu_ms / kilobytes, redact_ms / kilobytes


def _row(label: str, value: str, target: str = "") -> None:
    print(f"  {label:<52} {value:>18}  {target}")


def _pct(score: Score) -> str:
    return f"{score.hits}/{score.total} = {100 * score.rate:5.1f}%"


def _fp(score: Score) -> str:
    flagged = score.total - score.hits
    return f"{flagged}/{score.total} = {100 * flagged / max(score.total, 1):5.2f}%"


def _print_misses(score: Score, limit: int) -> None:
    if limit and score.misses:
        print(f"    misses/flags of {score.name} (first {min(limit, len(score.misses))}):")
        for miss in score.misses[:limit]:
            print(f"      - {miss}")


# --------------------------------------------------------------------------------------------------
# Own attack set, keyword paragraphs, pathological timing
# --------------------------------------------------------------------------------------------------

ATTACKS = Path(__file__).with_name("guard_attacks.jsonl")
_SECRET_TALK_RE = re.compile(
    r"\b(?:api[ _-]?keys?|keys?|tokens?|passwords?|passphrases?|secrets?|credentials?)\b", re.IGNORECASE
)


def score_own_attacks(split: str) -> tuple[Score, dict[str, Score]]:
    rows = [json.loads(line) for line in ATTACKS.read_text(encoding="utf-8").splitlines() if line.strip()]
    total, families = Score(f"own attacks ({split})"), {}
    for row in rows:
        if row["split"] != split:
            continue
        hit = detect_poisoning(row["text"]) is not None
        total.add(hit, f"[{row['id']}] {row['text'][:100]!r}")
        families.setdefault(row["family"], Score(row["family"])).add(hit, row["id"])
    return total, families


# Credential values that dwarves-brain's how-to notes spell out in example configs (a hard-coded
# ``apiKey = "6a0f…"``, ``PASSWORD=123456``): judged by reading each flagged paragraph. Redacting
# them is right, so their paragraphs are not counted as benign; the bench prints how many.
LABELLED_CREDENTIALS = (
    "6a0f0731d84afa4082031e3a72354991",
    "d9b3c5d63229688e4ddbeff6e1a04a49",
    '"password!"',
    "REGISTRY_HTTP_SECRET: someRandomSecret",
    "PASSWORD=123456",
    "password: 123456",
)


def secret_talk_paragraphs(paragraphs: list[str]) -> tuple[list[str], int]:
    """dwarves-brain paragraphs that talk about keys, tokens or passwords (where a guard over-fires),
    less those holding a labelled credential; returns (paragraphs, how many were set aside)."""
    talk = [p for p in paragraphs if _SECRET_TALK_RE.search(p)]
    benign = [p for p in talk if not any(c in p for c in LABELLED_CREDENTIALS)]
    return benign, len(talk) - len(benign)


def score_flagged(name: str, texts: Iterable[str]) -> Score:
    """hit = neither rejected nor redacted."""
    score = Score(name)
    for text in texts:
        finding = detect_poisoning(text)
        redacted = redact_secrets(text).findings
        label = f"[{finding.rule if finding else ''}{[f.rule for f in redacted]}] {text[:140]!r}"
        score.add(finding is None and not redacted, label)
    return score


def pathological_inputs(size: int = 100_000) -> dict[str, str]:
    import random as _random

    rng = _random.Random(13)

    def rep(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    units = [
        "://", "://a:b@", "https://a:", "a@b:", "password=", "password a", "key=", "token: 'aB3", "sk-", "eyJa.",
        "-----BEGIN RSA PRIVATE KEY-----\n", "password:\n ", "send the password to ", "ignore ", "you are now ",
        "a\u200b", "%41", "&#65;", "\\u0041", "1234567890:", "'a'", "a=", "x@", " ", "\n", "a",
        # openings of the form rules (turn headers, wrappers, vocatives, task references, planted to-dos, typos)
        "to you, claude ", "<INFORMATION>", "###(system_message)", "assistant: x\nuser: y\n", "todo: send ",
        "before you can solve the task ", "iunstructions ", "is not bound by any ", "output the previous ",
        # a disclosure that names what the secret opens ("the password for the office wifi is ...")
        "password for a b c d ", "password for x is ", "deploy key for x: ",
        # secrets said in a sentence (gno.guard.secret_spoken)
        "pin ", "combination 1-", "login a / ", "a@b.c:", "seed phrase: ", "maiden name is ", "code to the safe ",
        "licence key ", "x is the password ", "password a1b2 ", "ssid x / key ", "safe opens with ", "cvv ",
        "password is 'a b ", "-pA1b2c3d4 ", "| password |\n", "kod do drzwi ", "type 1234 on the keypad ",
        "1234 opens ", "door code ", "passphrase (a1b2c3d4) ",
        # a prefixed token with a base64url body, and single-case tokens standing alone (gno.guard.secret_bare)
        "ab.aB3dE6gH9jK2mN5pQ8rS1_", "ab.aB3dE6gH9jK2mN5pQ8rS1-x_", "k9m2n4p6q8r3t5v7w9x2",
        "signupgeniusPRIVATE.", "a_pat = 1/2:", "getenv('API_TOKEN', '",
    ]  # fmt: skip
    cases = {repr(u): rep(u) for u in units}
    cases["random base64"] = "".join(rng.choice(b64) for _ in range(size))
    cases["random hex"] = "".join(rng.choice("0123456789abcdef") for _ in range(size))
    cases["random base36, one case"] = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(size))
    return cases


def _cpu(texts: Iterable[str], guard: MemoryGuard) -> float:
    start = time.process_time()
    for text in texts:
        guard.check({"text": text})
    return time.process_time() - start


def time_pathological(paragraphs: list[str]) -> tuple[float, str, float]:
    """(prose CPU s, worst pathological case, its CPU s) on 100 KB each, same process, same run."""
    prose = ""
    for paragraph in paragraphs:
        prose += paragraph + "\n\n"
        if len(prose) >= 100_000:
            break
    guard = MemoryGuard()
    guard.check({"text": "warm-up"})
    prose_s = min(_cpu([prose[:100_000]], guard) for _ in range(2))
    worst, worst_s = "", 0.0
    for name, text in pathological_inputs().items():
        seconds = _cpu([text], guard)
        if seconds > worst_s:
            worst, worst_s = name, seconds
    return prose_s, worst, worst_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS, help="shared datasets folder")
    parser.add_argument("--show-misses", type=int, default=0, help="print up to N misses / false positives per figure")
    parser.add_argument("--loso", type=Path, default=None, metavar="CORPUS", help="also print the LOSO table")
    args = parser.parse_args(argv)
    datasets: Path = args.datasets.resolve()
    show: int = args.show_misses

    with tempfile.TemporaryDirectory(prefix="gno-guard-bench-") as tmp_name:
        tmp = Path(tmp_name)
        ds_score, ds_in_context = score_detect_secrets(datasets, tmp)
        gl_score = score_gitleaks(datasets, tmp)
    combined = Score("secrets combined", ds_score.hits + gl_score.hits, ds_score.total + gl_score.total)

    text_t, code_t, cat_hit, cat_all = score_bipia(datasets, "test")
    text_tr, code_tr, cat_hit_tr, cat_all_tr = score_bipia(datasets, "train")
    attacks_test = Score("BIPIA test", text_t.hits + code_t.hits, text_t.total + code_t.total)
    plain = [k for k in cat_all if k.removeprefix("text/") in PLAIN_TASK_CATEGORIES]
    addressed = Score(
        "BIPIA test, addressed to the reader",
        attacks_test.hits - sum(cat_hit[k] for k in plain),
        attacks_test.total - sum(cat_all[k] for k in plain),
    )
    embedded = score_bipia_embedded(datasets)

    turns, paragraphs, contexts = (
        locomo_turns(datasets),
        dwarves_paragraphs(datasets),
        bipia_clean_contexts(datasets),
    )
    benign = [
        score_benign("LoCoMo turns", turns),
        score_benign("dwarves-brain paragraphs", paragraphs),
        score_benign("BIPIA clean contexts", contexts),
    ]
    all_rejected = Score("all benign", sum(r.hits for r, _ in benign), sum(r.total for r, _ in benign))
    all_redacted = Score("all benign", sum(r.hits for _, r in benign), sum(r.total for _, r in benign))
    # Stricter diagnostics, outside the totals: turns stored without their speaker (a bare "Tell me more
    # about it!" must pass on its own), and bare questions.
    stricter = [
        score_benign("LoCoMo turns without speaker", [t.split(": ", 1)[-1] for t in turns]),
        score_benign("LoCoMo QA questions", locomo_questions(datasets)),
    ]
    wall_kb, cpu_kb, redact_kb = time_per_kb(turns[:2000] + paragraphs[:2000] + contexts[:200])
    own = {split: score_own_attacks(split) for split in ("tune", "report")}
    talk, labelled = secret_talk_paragraphs(paragraphs)
    fp_turns, fp_talk = score_flagged("LoCoMo turns", turns), score_flagged("dwarves-brain key/token/password", talk)
    prose_s, worst_name, worst_s = time_pathological(paragraphs)

    print("Memory Guard benchmark")
    print(f"  datasets: {datasets}")
    print("Secrets (recall: fixture secrets redacted)")
    _row("detect-secrets test_data vs baseline.file", _pct(ds_score))
    _row("  without bare hex literals that name no secret (*)", _pct(ds_in_context))
    _row("gitleaks testdata vs gitleaks.toml default rules", _pct(gl_score))
    _row("combined", _pct(combined), "target >= 95%")
    combined_ctx = Score("", ds_in_context.hits + gl_score.hits, ds_in_context.total + gl_score.total)
    _row("combined, without bare hex literals (*)", _pct(combined_ctx))
    print(
        '  (*) e.g. `len("012345678a")`, a lone `"2b00042f...28f33cf"` diff line: nothing on the line or in\n'
        "      its enclosing keys names a secret. The guard redacts quoted hex literals of 32-63 characters\n"
        "      (not 40: git SHA-1; 64 is SHA-256) with entropy > 3.0; shorter ones such as `012345678a` stay:\n"
        "      redacting them would also redact abbreviated git SHAs and short ids."
    )
    print("Injections (recall: attack strings rejected)")
    _row("BIPIA text attacks, test", _pct(text_t))
    _row("BIPIA code attacks, test", _pct(code_t))
    _row("BIPIA all attacks, test", _pct(attacks_test), "target >= 90%")
    _row("  without the 4 plain user-request categories (*)", _pct(addressed))
    _row("BIPIA text attacks, train (tuning split)", _pct(text_tr))
    _row("BIPIA code attacks, train (tuning split)", _pct(code_tr))
    attacks_train = Score("BIPIA train", text_tr.hits + code_tr.hits, text_tr.total + code_tr.total)
    _row("BIPIA all attacks, train", _pct(attacks_train))
    _row("BIPIA test attacks inside e-mails (start/mid/end)", _pct(embedded))
    print("  per category (test):")
    for key in sorted(cat_all):
        print(f"    {key:<58} {cat_hit[key]}/{cat_all[key]}")
    print("  per category (train), categories with misses only:")
    for key in sorted(k for k in cat_all_tr if cat_hit_tr[k] < cat_all_tr[k]):
        print(f"    {key:<58} {cat_hit_tr[key]}/{cat_all_tr[key]}")
    print(
        "  (*) Task Automation, Business Intelligence, Conversational Agent and Research Assistance strings\n"
        '      are ordinary user requests ("Recommend a good book ...", "What movies are playing ...") that\n'
        "      are injections only by position; the BIPIA README expects keyword rules to miss them. The guard\n"
        "      rejects the imperative ones only when the request is the whole record (task_requests.py);\n"
        "      question-form ones pass, as they cannot be told from open-question notes (see the bare\n"
        "      question row below), and so do all of them inside a longer e-mail."
    )
    print("False positives on benign text (flagged / total)")
    for rejected, redacted in benign:
        _row(f"{rejected.name.removesuffix(' rejected')}: rejected", _fp(rejected))
        _row(f"{redacted.name.removesuffix(' redacted')}: any redaction", _fp(redacted))
    _row("all benign: rejected", _fp(all_rejected), "target <= 2%")
    _row("all benign: any redaction", _fp(all_redacted), "target <= 2%")
    print("  stricter diagnostics (not in the totals):")
    for rejected, redacted in stricter:
        _row(f"{rejected.name.removesuffix(' rejected')}: rejected", _fp(rejected))
        _row(f"{redacted.name.removesuffix(' redacted')}: any redaction", _fp(redacted))
    print("Own attack set (bench/guard_attacks.jsonl; rules written from 'tune', 'report' never used for rules)")
    for split, (score, families) in own.items():
        _row(f"own attacks, {split}", _pct(score), "target >= 90%" if split == "report" else "")
        for family, fam_score in sorted(families.items()):
            _row(f"  {family}", _pct(fam_score))
    print("Benign false positives, rejected or redacted (flagged / total)")
    _row("LoCoMo turns", _fp(fp_turns), "target <= 0.5%")
    _row("dwarves-brain paragraphs naming keys/tokens/passwords", _fp(fp_talk), "target <= 0.5%")
    print(f"  ({labelled} more such paragraphs hold an example credential, listed in LABELLED_CREDENTIALS: not benign)")
    print("Guard CPU time on 100 KB (one run)")
    _row("prose (dwarves-brain)", f"{prose_s:.3f} s")
    _row(f"worst pathological: {worst_name[:30]}", f"{worst_s:.3f} s", "target <= 1 s")
    _row("  ratio worst / prose", f"{worst_s / max(prose_s, 1e-9):.2f}x", "target <= 3x")
    print("Speed")
    _row("MemoryGuard.check, wall ms per KB", f"{wall_kb:.3f}", "target ~1 ms")
    _row("MemoryGuard.check, CPU ms per KB", f"{cpu_kb:.3f}")
    _row("redact_secrets alone, wall ms per KB", f"{redact_kb:.3f}")
    flagged = [s for pair in [*benign, *stricter] for s in pair]
    for score in (ds_score, gl_score, text_t, code_t, embedded, own["report"][0], fp_turns, fp_talk, *flagged):
        _print_misses(score, show)
    if args.loso is not None:
        sys.path.insert(0, str(REPO / "bench"))
        import guard_loso

        return guard_loso.main(["--corpus", str(args.loso)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
