"""Markdown → what the index needs: canonical text, front matter, title, headings, tags, links.

A single line scanner (code-fence aware) instead of a full CommonMark parse: ingestion runs on
tens of thousands of files and only needs headings, inline tags and links, each with its line.
Line numbers always refer to the canonical text (CRLF → LF, NFC), which keeps the same line
count as the source, so a cited span points at the same lines in the user's file.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from urllib.parse import unquote

FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
SETEXT_RE = re.compile(r"^\s{0,3}(=+|-{2,})\s*$")
ATX_RE = re.compile(r"^\s{0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
TAG_RE = re.compile(r"(?<![\w/#&;:.\-])#([A-Za-z][\w\-/.]*[\w])|(?<![\w/#&;:.\-])#([A-Za-z])(?![\w])")
WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MDLINK_RE = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# a code span: a run of backticks closed by a run of the same length (CommonMark)
INLINE_CODE_RE = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
INDENTED_CODE_RE = re.compile(r"^(?: {4}|\t)")
LIST_ITEM_RE = re.compile(r"^\s{0,3}(?:[-+*]|\d{1,9}[.)])(?:\s|$)")
HEX_COLOUR_RE = re.compile(r"^(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$")
# an HTML tag with its attributes (`<span style="color: #abc">`) and a CSS declaration
# (`color: #abc;` in a style block): colours and ids there are not tags
HTML_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>")
CSS_HEX_DECL_RE = re.compile(
    r"\b(?:[a-z-]*colou?r|background|border(?:-[a-z]+)*|fill|stroke|outline|[a-z-]*shadow)\s*:\s*[^;#]*"
    r"#[0-9A-Fa-f]{3,8}\b",
    re.I,
)
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
        """The text after the front matter (the whole text when there is none, as in most notes)."""
        at = 0
        for _ in range(self.body_start_line - 1):
            at = self.canonical.find("\n", at) + 1
            if at == 0:
                return ""
        return self.canonical[at:] if at else self.canonical


class NotText(ValueError):
    """The bytes are not a text file (a binary file with a text extension)."""


# C0 controls other than tab, newlines, form feed and the DOS end-of-file mark, DEL, and the five
# byte values cp1252 leaves undefined: legible 8-bit text has next to none of them
_TEXT_BYTES = bytes(b for b in range(256) if not (b < 32 and b not in b"\t\n\r\x0b\x0c\x1a"))
_TEXT_BYTES = bytes(b for b in _TEXT_BYTES if b not in b"\x7f\x81\x8d\x8f\x90\x9d")
MAX_CONTROL_RATIO = 0.01


def decode_source(data: bytes) -> tuple[str, str | None]:
    """Bytes → (text, warning), or `NotText`.

    UTF-8 (BOM tolerated) and BOM-marked UTF-16 are text. Otherwise a NUL byte anywhere means
    binary (as git decides). Bytes that are not UTF-8 are read as cp1252 only when they look like
    legible 8-bit text (at most 1 % control or undefined bytes), so a binary file renamed `.md`
    is skipped instead of indexed as noise, while a legacy Windows note is still indexed.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError as exc:
            raise NotText("starts with a UTF-16 mark but is not UTF-16 text; skipped") from exc
    if b"\0" in data:
        raise NotText("contains NUL bytes: a binary file, not text; skipped")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    controls = len(data.translate(None, _TEXT_BYTES))
    if controls > MAX_CONTROL_RATIO * len(data):
        raise NotText("neither UTF-8 nor legible 8-bit text (control bytes): a binary file; skipped")
    return data.decode("cp1252", errors="replace"), "not valid UTF-8; decoded as cp1252"


def canonicalize(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def normalize_ref(ref: str) -> str:
    """Key used to resolve a link target to a document: NFC, lowercase, no `.md`, no dirs."""
    r = ref.strip()
    r = (r if r.isascii() else unicodedata.normalize("NFC", r)).lower()
    r = r.split("#", 1)[0]
    if r.endswith(".md"):
        r = r[:-3]
    return r.rsplit("/", 1)[-1].strip()


#: how far down the closing `---` / `...` of a front-matter block is looked for
FRONT_MATTER_MAX_LINES = 2000


def front_matter_close(lines: Sequence[str]) -> int | None:
    """Index of the line that closes the opening `---` block, None when the file has none.

    The one rule for what front matter is: the indexer reads it, and the writes that edit it in
    place (tags, a rename's references) find its end the same way."""
    if not lines or lines[0].strip() != "---":
        return None
    for i in range(1, min(len(lines), FRONT_MATTER_MAX_LINES)):
        if lines[i].strip() in ("---", "..."):
            return i
    return None


def _split_frontmatter(lines: list[str]) -> tuple[str | None, int]:
    """(yaml text, index of first body line) when the file opens with a `---` block."""
    close = front_matter_close(lines)
    if close is None:
        return None, 0
    return "\n".join(lines[1:close]), close + 1


def _iso(v: Any) -> str | None:
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-\d{2}", v.strip()):
        return v.strip()
    return None


def norm_tag(raw: str) -> str | None:
    """A tag as the index stores it (NFC, lowercase, no leading `#`), or None when it is not one."""
    t = unicodedata.normalize("NFC", raw.strip().lstrip("#")).lower()
    return t if t and TAG_VALID_RE.match(t) else None


def frontmatter_tags(fm: dict[str, Any]) -> list[str]:
    """The tags of a front matter mapping (`tags:` or `tag:`, a list or a comma/space separated string)."""
    raw = fm.get("tags", fm.get("tag"))
    items: list[Any]
    if isinstance(raw, str):
        items = [x for x in re.split(r"[,\s]+", raw) if x]
    elif isinstance(raw, list):
        items = raw
    else:
        return []
    return [t for t in (norm_tag(str(x)) for x in items if x is not None) if t]


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
        import yaml  # here, not at the top: a note without front matter (and a no-change sync) never needs it

        try:
            loaded = yaml.load(fm_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if fm_text.strip() else {}
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
        for t in frontmatter_tags(fm):
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


def _is_colour(tag: str) -> bool:
    """`#ff0000`, `#fff`, `#aabbcc`: a CSS colour, not a tag (`#cafe`, `#bad` stay tags)."""
    if not HEX_COLOUR_RE.match(tag):
        return False
    doubled = len(tag) >= 6 and all(tag[i] == tag[i + 1] for i in range(0, len(tag), 2))
    return any(c.isdigit() for c in tag) or len(set(tag)) == 1 or doubled


def _inline_tags(doc: ParsedDoc, scan: str, seen_tags: set[str]) -> None:
    # link targets and wiki links (`[[#Heading]]`, `[[Note #part]]`) name places, not topics; HTML
    # attributes and CSS values hold colours (`#abc`), not topics: tags are `#words` of the prose
    if "<" in scan:
        scan = HTML_TAG_RE.sub(" ", scan)
    if ":" in scan:
        scan = CSS_HEX_DECL_RE.sub(" ", scan)
    if "[[" in scan:
        scan = WIKI_RE.sub(" ", scan)
    if "](" in scan:
        scan = MDLINK_RE.sub(lambda m: f" {m.group(1)} ", scan)
    for tm in TAG_RE.finditer(scan):
        t = norm_tag(tm.group(1) or tm.group(2))
        if t and not t.isdigit() and not _is_colour(t) and t not in seen_tags:
            seen_tags.add(t)
            doc.tags.append((t, "inline"))


def _scan_body(doc: ParsedDoc, lines: list[str], start: int, seen_tags: set[str]) -> None:
    # hot: one pass over every line of every file; each regex runs only where its first character
    # says it can match
    fence: str | None = None  # the opening fence marker while inside a fenced block
    indented_ok = True  # an indented line here would open an indented code block
    in_list = False
    prev = ""
    for idx in range(start, len(lines)):
        line = lines[idx]
        stripped = line.lstrip()
        if not stripped:
            indented_ok = True
            prev = ""
            continue
        c = stripped[0]
        if c in "`~" and (m := FENCE_RE.match(line)):
            marker = m.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not stripped[len(marker) :].strip():
                fence = None
            prev = ""
            continue
        if fence is not None:
            continue
        if line[0] in " \t" and indented_ok and not in_list and INDENTED_CODE_RE.match(line):
            prev = ""
            continue  # indented code block: stays open while lines stay indented (or blank)
        indented_ok = False
        lineno = idx + 1
        if line[0] not in " \t":
            if line[0] == c and c in "-+*":  # LIST_ITEM_RE's bullet case, without a regex per list line
                in_list = len(line) == 1 or line[1].isspace()
            else:
                in_list = (c in "-+*" or c.isdigit()) and LIST_ITEM_RE.match(line) is not None
        if c in "=-" and prev and SETEXT_RE.match(line) and (c == "=" or prev.lstrip()[0] not in "-*|"):
            doc.headings.append(Heading(1 if c == "=" else 2, prev.strip(), lineno - 1))
            prev = ""
            continue
        h = ATX_RE.match(line) if c == "#" else None
        # a line under an ATX heading cannot make it a setext heading
        prev = "" if h else line
        if h:
            text = h.group(2).strip()
            if text:
                doc.headings.append(Heading(len(h.group(1)), text, lineno))
        has_tag = "#" in line and not h
        if not (has_tag or "[[" in line or "](" in line):
            continue  # most lines: nothing below can match, so code spans need not be blanked
        scan = INLINE_CODE_RE.sub(" ", line) if "`" in line else line
        if has_tag and "#" in scan:
            _inline_tags(doc, scan, seen_tags)
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
