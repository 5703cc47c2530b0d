"""Converters for office documents: PDF, Word, PowerPoint, Excel, OpenDocument, RTF, Outlook.

Each function takes a path and the `Budget` and returns markdown; it runs in the conversion worker
(`gno.ingest.convert_worker`), which is why the libraries are imported inside the functions. Pages
of a PDF and slides of a deck become `## Page N` / `## Slide N` headings, so a hit's line range
falls under a heading that names the page. Spreadsheets become one markdown table per sheet and
stop at the budget's size (a million-cell sheet is cut, not converted whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from gno.ingest.converters import Budget, Refused
from gno.ingest.problems import IngestCode

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _ooxml_guard(path: str) -> None:
    """An Office file saved with a password is an OLE container, not the zip its name promises."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head == OLE_MAGIC:
        raise Refused(IngestCode.ENCRYPTED, "password-protected Office document (an encrypted OLE container)")
    if not head.startswith(b"PK"):
        raise Refused(IngestCode.CONVERT_FAILED, "not an Office Open XML file (no zip signature)")


def cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).split()).replace("|", "\\|")


def md_table(rows: Iterable[Iterable[Any]], max_chars: int) -> Iterator[str]:
    """Rows as a markdown table (the first row is the header), stopping once `max_chars` is spent."""
    spent = 0
    width = 0
    for i, row in enumerate(rows):
        cells = [cell_text(v) for v in row]
        while cells and not cells[-1]:
            cells.pop()
        if i > 0 and not cells:
            continue
        width = max(width, len(cells), 1)
        line = "| " + " | ".join(cells + [""] * (width - len(cells))) + " |"
        yield line
        if i == 0:
            yield "|" + " --- |" * width
        spent += len(line)
        if spent > max_chars:
            return


_MARKUP_LINE = re.compile(r"^(?:#|=+$|-{3,}$|```|~~~)")


def _plain(line: str) -> str:
    """A line of extracted text that markdown would read as a heading or a fence, escaped."""
    return "\\" + line if _MARKUP_LINE.match(line) else line


def pdf(path: str, budget: Budget) -> str:
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise Refused(IngestCode.ENCRYPTED, "password-protected PDF") from None
        raise Refused(IngestCode.CONVERT_FAILED, f"not a readable PDF ({exc})") from None
    parts: list[str] = []
    spent = 0
    try:
        for i in range(len(doc)):
            page = doc[i]
            try:
                textpage = page.get_textpage()
                text = textpage.get_text_range()
                textpage.close()
            finally:
                page.close()
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            text = text.replace("\ufffe\n", "").replace("\ufffe", "")  # pdfium marks a word hyphenated at a line end
            lines = [_plain(ln.rstrip()) for ln in text.split("\n")]
            body = "\n".join(lines).strip().replace("\x00", "")
            parts.append(f"## Page {i + 1}\n\n{body}\n" if body else f"## Page {i + 1}\n")
            spent += len(body)
            if spent > budget.max_chars:
                break
    finally:
        doc.close()
    return "\n".join(parts)


def docx(path: str, budget: Budget) -> str:
    import mammoth
    from markdownify import markdownify

    _ooxml_guard(path)
    with open(path, "rb") as fh:
        html = mammoth.convert_to_html(fh).value
    return str(markdownify(html, heading_style="ATX", bullets="-")).strip() + "\n"


def _shape_lines(shape: Any, title_id: int | None) -> Iterator[str]:
    if getattr(shape, "shape_id", None) == title_id:
        return
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = [[c.text for c in r.cells] for r in shape.table.rows]
        yield "\n".join(md_table(rows, 1 << 30)) + "\n"
    elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        text = shape.text_frame.text.strip()
        if text:
            yield text.replace("\x0b", "\n") + "\n"
    elif hasattr(shape, "shapes"):  # a group
        for sub in shape.shapes:
            yield from _shape_lines(sub, title_id)


def pptx(path: str, budget: Budget) -> str:
    from pptx import Presentation

    _ooxml_guard(path)
    deck = Presentation(path)
    out: list[str] = []
    for n, slide in enumerate(deck.slides, start=1):
        title = slide.shapes.title
        heading = f"## Slide {n}" + (f": {' '.join(title.text.split())}" if title is not None and title.text else "")
        out.append(heading + "\n")
        title_id = title.shape_id if title is not None else None
        for shape in slide.shapes:
            out.extend(_shape_lines(shape, title_id))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                out.append(f"### Notes\n\n{notes}\n")
    return "\n".join(out)


def xlsx(path: str, budget: Budget) -> str:
    from openpyxl import load_workbook

    _ooxml_guard(path)
    wb = load_workbook(path, read_only=True, data_only=True)
    out: list[str] = []
    left = budget.max_chars
    try:
        for ws in wb.worksheets:
            table = list(md_table(ws.iter_rows(values_only=True), left))
            out.append(f"## {ws.title}\n\n" + "\n".join(table) + "\n")
            left -= sum(len(t) for t in table)
            if left <= 0:
                break
    finally:
        wb.close()
    return "\n".join(out)


def xls(path: str, budget: Budget) -> str:
    import xlrd

    try:
        book = xlrd.open_workbook(path, on_demand=True)
    except xlrd.XLRDError as exc:
        code = IngestCode.ENCRYPTED if "encrypt" in str(exc).lower() else IngestCode.CONVERT_FAILED
        raise Refused(code, str(exc)) from None
    out: list[str] = []
    left = budget.max_chars
    for sheet in book.sheets():
        rows = (sheet.row_values(r) for r in range(sheet.nrows))
        table = list(md_table(rows, left))
        out.append(f"## {sheet.name}\n\n" + "\n".join(table) + "\n")
        left -= sum(len(t) for t in table)
        if left <= 0:
            break
    return "\n".join(out)


def _odf_kind(node: Any) -> str | None:
    qname = getattr(node, "qname", None)
    return str(qname[1]) if qname else None


def _odf_lines(node: Any, state: dict[str, int]) -> Iterator[str]:
    from odf import teletype

    for child in node.childNodes:
        kind = _odf_kind(child)
        if kind == "h":
            level = int(child.getAttribute("outlinelevel") or 1)
            yield "#" * min(level + 1, 6) + " " + teletype.extractText(child).strip()
        elif kind == "p":
            text = teletype.extractText(child).strip()
            if text:
                yield text
        elif kind == "table":
            rows = [
                [teletype.extractText(c).strip() for c in row.childNodes if _odf_kind(c) == "table-cell"]
                for row in child.getElementsByType(_odf_row())
            ]
            yield "\n".join(md_table(rows, 1 << 30))
        elif kind == "page":
            state["page"] += 1
            name = child.getAttribute("name") or ""
            yield f"## Slide {state['page']}" + (f": {name}" if name and not name.startswith("page") else "")
            yield from _odf_lines(child, state)
        elif child.nodeType == child.ELEMENT_NODE:
            yield from _odf_lines(child, state)


def _odf_row() -> Any:
    from odf.table import TableRow

    return TableRow


def odf(path: str, budget: Budget) -> str:
    import zipfile

    from odf.opendocument import load

    if not zipfile.is_zipfile(path):
        raise Refused(IngestCode.CONVERT_FAILED, "not an OpenDocument file (no zip signature)")
    with zipfile.ZipFile(path) as zf:
        manifest = zf.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in zf.namelist() else b""
    if b"encryption-data" in manifest:
        raise Refused(IngestCode.ENCRYPTED, "password-protected OpenDocument file")
    doc = load(path)
    lines = list(_odf_lines(doc.body, {"page": 0}))
    return "\n\n".join(lines) + "\n"


def rtf(path: str, budget: Budget) -> str:
    from striprtf.striprtf import rtf_to_text

    with open(path, "rb") as fh:
        raw = fh.read()
    if not raw.lstrip().startswith(b"{\\rtf"):
        raise Refused(IngestCode.CONVERT_FAILED, "not an RTF file (no {\\rtf header)")
    text: str = rtf_to_text(raw.decode("latin-1"), errors="ignore")  # type: ignore[no-untyped-call]
    return text.strip() + "\n"


def msg(path: str, budget: Budget) -> str:
    import olefile

    if not olefile.isOleFile(path):
        raise Refused(IngestCode.CONVERT_FAILED, "not an Outlook message (no OLE signature)")
    with olefile.OleFileIO(path) as ole:

        def prop(code: str) -> str:
            for suffix, enc in (("001F", "utf-16-le"), ("001E", "latin-1")):
                name = f"__substg1.0_{code}{suffix}"
                if ole.exists(name):
                    return str(ole.openstream(name).read().decode(enc, errors="replace")).strip("\x00").strip()
            return ""

        subject, sender, to, body = prop("0037"), prop("0C1A") or prop("0065"), prop("0E04"), prop("1000")
    head = [f"# {subject or '(no subject)'}", ""]
    head += [f"**From:** {sender}"] if sender else []
    head += [f"**To:** {to}"] if to else []
    return "\n".join(head) + "\n\n" + body.replace("\r\n", "\n").strip() + "\n"
