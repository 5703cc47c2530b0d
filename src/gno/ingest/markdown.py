"""Markdown → what the index needs: canonical text, front matter, title, headings, tags, links.

A single line scanner (code-fence aware) instead of a full CommonMark parse: ingestion runs on
tens of thousands of files and only needs headings, inline tags and links, each with its line.
Line numbers always refer to the canonical text (CRLF → LF, NFC), which keeps the same line
count as the source, so a cited span points at the same lines in the user's file.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from urllib.parse import unquote

import yaml

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
SETEXT_RE = re.compile(r"^\s{0,3}(=+|-{2,})\s*$")
ATX_RE = re.compile(r"^\s{0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
TAG_RE = re.compile(r"(?<![\w/#&;:.\-])#([A-Za-z][\w\-/.]*[\w])|(?<![\w/#&;:.\-])#([A-Za-z])(?![\w])")
WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MDLINK_RE = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
TAG_VALID_RE = re.compile(r"^[a-z0-9][a-z0-9\-./_]*$")
EXTERNAL_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")


@dataclass
class Heading:
    level: int
    text: str
    line: int


@dataclass
class Link:
    link_type: str  # wiki | markdown
    target: str
    target_norm: str
    anchor: str | None
    text: str | None
    line: int


@dataclass
class ParsedDoc:
    canonical: str
    mirror_hash: str
    title: str
    body_start_line: int  # first line after front matter (1-based)
    frontmatter: dict[str, Any] | None
    frontmatter_error: str | None
    headings: list[Heading] = field(default_factory=list)
    tags: list[tuple[str, str]] = field(default_factory=list)  # (tag, source)
    links: list[Link] = field(default_factory=list)
    relations: list[tuple[str, str]] = field(default_factory=list)  # (edge_type, target uri)
    dates: list[tuple[str, str]] = field(default_factory=list)  # (field, iso)

    @property
    def body(self) -> str:
        lines = self.canonical.split("\n")
        return "\n".join(lines[self.body_start_line - 1 :])


def decode_source(data: bytes) -> tuple[str, str | None]:
    """Bytes → text. UTF-8 (BOM tolerated), else cp1252 so no byte is ever lost silently."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "not valid UTF-8; decoded as cp1252"


def canonicalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def normalize_ref(ref: str) -> str:
    """Key used to resolve a link target to a document: NFC, lowercase, no `.md`, no dirs."""
    r = unicodedata.normalize("NFC", ref.strip()).lower()
    r = r.split("#", 1)[0]
    if r.endswith(".md"):
        r = r[:-3]
    return r.rsplit("/", 1)[-1].strip()


def _split_frontmatter(lines: list[str]) -> tuple[str | None, int]:
    """(yaml text, index of first body line) when the file opens with a `---` block."""
    if not lines or lines[0].strip() != "---":
        return None, 0
    for i in range(1, min(len(lines), 2000)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), i + 1
    return None, 0


def _iso(v: Any) -> str | None:
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-\d{2}", v.strip()):
        return v.strip()
    return None


def _norm_tag(raw: str) -> str | None:
    t = unicodedata.normalize("NFC", raw.strip().lstrip("#")).lower()
    return t if t and TAG_VALID_RE.match(t) else None


def _fm_tags(fm: dict[str, Any]) -> list[str]:
    raw = fm.get("tags", fm.get("tag"))
    items: list[Any]
    if isinstance(raw, str):
        items = [x for x in re.split(r"[,\s]+", raw) if x]
    elif isinstance(raw, list):
        items = raw
    else:
        return []
    return [t for t in (_norm_tag(str(x)) for x in items if x is not None) if t]


def _relations(fm: dict[str, Any]) -> list[tuple[str, str]]:
    rel = fm.get("relations")
    out: list[tuple[str, str]] = []
    if not isinstance(rel, dict):
        return out
    for key, val in rel.items():
        edge = re.sub(r"[^a-z0-9_]+", "_", str(key).strip().lower()).strip("_")
        vals = val if isinstance(val, list) else [val]
        for v in vals:
            if isinstance(v, str) and v.strip():
                out.append((edge, v.strip()))
    return out


def parse_markdown(text: str, *, fallback_title: str) -> ParsedDoc:
    canonical = canonicalize(text)
    lines = canonical.split("\n")
    fm_text, body_idx = _split_frontmatter(lines)
    fm: dict[str, Any] | None = None
    fm_error: str | None = None
    if fm_text is not None:
        try:
            loaded = yaml.load(fm_text, Loader=_Loader) if fm_text.strip() else {}
            if loaded is None:
                loaded = {}
            if isinstance(loaded, dict):
                fm = {str(k): v for k, v in loaded.items()}
            else:
                fm_error = "front matter is not a mapping"
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 2}" if mark is not None else ""
            fm_error = f"invalid YAML front matter{where}: {getattr(exc, 'problem', None) or exc}"
    doc = ParsedDoc(
        canonical=canonical,
        mirror_hash=hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        title="",
        body_start_line=body_idx + 1,
        frontmatter=fm,
        frontmatter_error=fm_error,
    )
    seen_tags: set[str] = set()
    if fm:
        for t in _fm_tags(fm):
            if t not in seen_tags:
                seen_tags.add(t)
                doc.tags.append((t, "frontmatter"))
        doc.relations = _relations(fm)
        for key in ("date", "created", "updated", "modified"):
            iso = _iso(fm.get(key))
            if iso:
                doc.dates.append((key, iso))
    _scan_body(doc, lines, body_idx, seen_tags)
    fm_title = fm.get("title") if fm else None
    if isinstance(fm_title, str | int | float) and str(fm_title).strip():
        doc.title = str(fm_title).strip()
    else:
        h1 = next((h for h in doc.headings if h.level == 1), None)
        doc.title = h1.text if h1 else fallback_title
    return doc


def _scan_body(doc: ParsedDoc, lines: list[str], start: int, seen_tags: set[str]) -> None:
    fence: str | None = None
    for idx in range(start, len(lines)):
        line = lines[idx]
        lineno = idx + 1
        m = FENCE_RE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is not None or not line.strip():
            continue
        if (
            SETEXT_RE.match(line)
            and idx > start
            and lines[idx - 1].strip()
            and not ATX_RE.match(lines[idx - 1])
            and (line.lstrip().startswith("=") or not lines[idx - 1].lstrip().startswith(("-", "*", "|")))
        ):
            prev = lines[idx - 1].strip()
            doc.headings.append(Heading(1 if line.lstrip().startswith("=") else 2, prev, lineno - 1))
            continue
        h = ATX_RE.match(line)
        if h:
            text = h.group(2).strip()
            if text:
                doc.headings.append(Heading(len(h.group(1)), text, lineno))
        scan = INLINE_CODE_RE.sub(" ", line)
        if "#" in scan and not h:
            for tm in TAG_RE.finditer(scan):
                t = _norm_tag(tm.group(1) or tm.group(2))
                if t and not t.isdigit() and t not in seen_tags:
                    seen_tags.add(t)
                    doc.tags.append((t, "inline"))
        if "[[" in scan:
            for wm in WIKI_RE.finditer(scan):
                _add_wiki(doc, wm.group(2), lineno)
        if "](" in scan:
            for mm in MDLINK_RE.finditer(scan):
                target = mm.group(2)
                if EXTERNAL_RE.match(target) or target.startswith("#"):
                    continue
                path, _, anchor = target.partition("#")
                path = unquote(path)
                doc.links.append(
                    Link("markdown", path, normalize_ref(path), anchor or None, mm.group(1) or None, lineno)
                )


def _add_wiki(doc: ParsedDoc, inner: str, lineno: int) -> None:
    target, _, display = inner.partition("|")
    target, _, anchor = target.partition("#")
    target = target.strip()
    if not target:
        return
    doc.links.append(
        Link(
            "wiki",
            target,
            normalize_ref(target.split(":", 1)[-1]),
            anchor.strip() or None,
            display.strip() or None,
            lineno,
        )
    )
