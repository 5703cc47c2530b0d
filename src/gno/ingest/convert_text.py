"""Converters for text-based formats: e-mail, notebooks, CSV/TSV, JSON/JSONL, calendars, subtitles,
source code. Standard library (plus charset-normalizer and icalendar); runs in the conversion worker.

Records become headings a citation can name: a message of an mbox, a JSONL record, an event of a
calendar. Source code is fenced by language and split where a top-level definition starts, so
chunks end between functions rather than in the middle of one.
"""

from __future__ import annotations

import csv
import email
import io
import json
import mailbox
import re
from email import policy
from email.message import EmailMessage, Message
from typing import Any

from gno.ingest.convert_office import md_table
from gno.ingest.converters import Budget, Refused
from gno.ingest.problems import IngestCode


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def decode(data: bytes) -> str:
    """UTF-8 (with or without BOM), else what charset-normalizer finds (Shift-JIS, cp1252, …)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return str(best) if best is not None else data.decode("latin-1")


def _message_md(msg: Message, level: int) -> str:
    subject = " ".join(str(msg.get("subject", "") or "(no subject)").split())
    lines = [f"{'#' * level} {subject}", ""]
    for key in ("From", "To", "Cc", "Date"):
        if msg.get(key):
            lines.append(f"**{key}:** {' '.join(str(msg[key]).split())}  ")
    body = ""
    if isinstance(msg, EmailMessage):
        part = msg.get_body(preferencelist=("plain", "html"))
        if part is not None:
            content = part.get_content()
            if part.get_content_subtype() == "html":
                from gno.ingest.convert_web import html_to_markdown

                content = html_to_markdown(content, keep_title=False)
            body = str(content)
    return "\n".join(lines) + "\n\n" + body.replace("\r\n", "\n").strip() + "\n"


def mail(path: str, budget: Budget) -> str:
    if path.lower().endswith(".mbox"):
        parts, spent = [], 0
        for raw in mailbox.mbox(path):
            part = _message_md(email.message_from_bytes(raw.as_bytes(), policy=policy.default), 2)
            parts.append(part)
            spent += len(part)
            if spent > budget.max_chars:
                break
        return "\n".join(parts)
    with open(path, "rb") as fh:
        return _message_md(email.message_from_binary_file(fh, policy=policy.default), 1)


def notebook(path: str, budget: Budget) -> str:
    try:
        nb = json.loads(_read(path))
    except ValueError as exc:
        raise Refused(IngestCode.CONVERT_FAILED, f"not a notebook (invalid JSON: {exc})") from None
    lang = str(nb.get("metadata", {}).get("kernelspec", {}).get("language") or "python")
    title = nb.get("metadata", {}).get("title")
    out = [f"# {title}"] if title else []
    for cell in nb.get("cells", []):
        src = "".join(cell.get("source", [])) if isinstance(cell.get("source"), list) else str(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            out.append(src.strip())
        elif cell.get("cell_type") == "code":
            out.append(f"```{lang}\n{src.rstrip()}\n```")
            for o in cell.get("outputs", []):
                text = o.get("text") or o.get("data", {}).get("text/plain")
                if text:
                    text = "".join(text) if isinstance(text, list) else str(text)
                    out.append(f"Output:\n\n```\n{text.rstrip()}\n```")
        elif src.strip():
            out.append(src.strip())
    return "\n\n".join(p for p in out if p) + "\n"


def table(path: str, budget: Budget) -> str:
    text = decode(_read(path))
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    return "\n".join(md_table(rows, budget.max_chars)) + "\n"


def _fenced(value: Any) -> str:
    return "```json\n" + json.dumps(value, ensure_ascii=False, indent=2) + "\n```"


def json_doc(path: str, budget: Budget) -> str:
    text = decode(_read(path))
    if path.lower().endswith((".jsonl", ".ndjson")):
        parts, spent = [], 0
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                part = f"## Record {n}\n\n" + _fenced(json.loads(line))
            except ValueError:
                part = f"## Record {n}\n\n```\n{line}\n```"
            parts.append(part)
            spent += len(part)
            if spent > budget.max_chars:
                break
        return "\n\n".join(parts) + "\n"
    try:
        return _fenced(json.loads(text)) + "\n"
    except ValueError as exc:
        raise Refused(IngestCode.CONVERT_FAILED, f"invalid JSON: {exc}") from None


_EVENT_FIELDS = (("DTSTART", "Start"), ("DTEND", "End"), ("LOCATION", "Location"), ("ORGANIZER", "Organizer"))


def calendar(path: str, budget: Budget) -> str:
    from icalendar import Calendar

    try:
        cal = Calendar.from_ical(_read(path))
    except ValueError as exc:
        raise Refused(IngestCode.CONVERT_FAILED, f"not an iCalendar file: {exc}") from None
    name = cal.get("X-WR-CALNAME")
    out = [f"# {name}"] if name else []
    for ev in cal.walk():
        if ev.name not in ("VEVENT", "VTODO", "VJOURNAL"):
            continue
        out.append(f"## {' '.join(str(ev.get('SUMMARY', '(untitled)')).split())}")
        for key, label in _EVENT_FIELDS:
            if ev.get(key) is not None:
                value = ev.get(key)
                shown = value.dt.isoformat() if hasattr(value, "dt") else str(value)
                out.append(f"**{label}:** {shown}  ")
        if ev.get("DESCRIPTION"):
            out.append(str(ev.get("DESCRIPTION")).strip())
    return "\n\n".join(out) + "\n"


_CUE_TIME = re.compile(r"^(\d{1,2}:)?\d{2}:\d{2}[.,]\d{3}\s*-->")


def subtitles(path: str, budget: Budget) -> str:
    """Cues as `**[start]** text` lines; cue numbers, styles and notes dropped."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", decode(_read(path)).replace("\r\n", "\n")):
        lines = [ln.strip() for ln in block.strip().split("\n") if ln.strip()]
        timing = next((i for i, ln in enumerate(lines) if _CUE_TIME.match(ln)), None)
        if timing is None:
            continue
        start = lines[timing].split("-->")[0].strip().replace(",", ".")
        text = " ".join(re.sub(r"<[^>]+>", "", ln) for ln in lines[timing + 1 :])
        if text:
            out.append(f"**[{start}]** {text}")
    return "\n\n".join(out) + "\n"


_LANG = {".py": "python", ".js": "javascript", ".jsx": "jsx", ".ts": "typescript", ".tsx": "tsx", ".rs": "rust"}
_LANG.update({".rb": "ruby", ".kt": "kotlin", ".cs": "csharp", ".sh": "bash", ".h": "c", ".hpp": "cpp", ".cc": "cpp"})
_TOP_LEVEL = re.compile(
    r"^(?:def |class |async def |function |export |func |fn |pub |impl |struct |interface |type |@)"
)


def code(path: str, budget: Budget) -> str:
    """The source in fenced blocks, a new block where a top-level definition starts after a blank line."""
    text = decode(_read(path)).replace("\r\n", "\n")
    if "\x00" in text:
        raise Refused(IngestCode.CONVERT_FAILED, "binary content in a source file")
    ext = path[path.rfind(".") :].lower()
    lang = _LANG.get(ext, ext[1:])
    blocks: list[list[str]] = [[]]
    prev_blank = True
    for line in text.split("\n"):
        if prev_blank and _TOP_LEVEL.match(line) and len(blocks[-1]) >= 8:
            blocks.append([])
        blocks[-1].append(line)
        prev_blank = not line.strip()
    fence = "````" if "```" in text else "```"
    parts = []
    for b in blocks:
        body = "\n".join(b).strip("\n")
        if body:
            parts.append(f"{fence}{lang}\n{body}\n{fence}")
    return "\n\n".join(parts) + "\n"
