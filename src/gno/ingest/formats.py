"""gno's own converters, registered through the `gno.converters` entry point like any plugin.

Only records live here (importing this module imports no converter library); the functions they
name run in the conversion worker. The libraries were picked by measurement on real files
(bench/documents.py, docs/benchmarks.md): pypdfium2 for PDF (per-page text, so a citation can
say "page 3"), mammoth for Word, python-pptx for PowerPoint, openpyxl and xlrd for Excel, odfpy
for OpenDocument, striprtf for RTF, BeautifulSoup + markdownify for HTML and EPUB, olefile for
Outlook .msg, icalendar for calendars; e-mail, notebooks, CSV/JSON, subtitles and source code
need only the standard library. All of them come with `pip install 'gno[documents]'`: without
it, these files are listed in `gno status` as CONVERTER_MISSING with that command.
"""

from __future__ import annotations

from gno.ingest.converters import Converter

_O = "gno.ingest.convert_office:"
_W = "gno.ingest.convert_web:"
_T = "gno.ingest.convert_text:"
#: the stdlib converters come with the extra too, so that one install switches on one set of formats
_EXTRA = ("markdownify",)

#: source code read as text in a fenced block (chunk boundaries fall on blank lines between blocks)
CODE_EXTENSIONS = (
    ".py", ".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp",
    ".java", ".kt", ".rb", ".php", ".cs", ".scala", ".sh", ".sql", ".lua", ".r", ".jl", ".zig",
)  # fmt: skip


def _c(id_: str, exts: tuple[str, ...], target: str, label: str, requires: tuple[str, ...], *dists: str) -> Converter:
    return Converter(id_, "1", exts, target, label, requires, dists, builtin=True)


BUILTIN: tuple[Converter, ...] = (
    _c("pdf", (".pdf",), _O + "pdf", "PDF", ("pypdfium2",), "pypdfium2"),
    _c("docx", (".docx",), _O + "docx", "Word document", ("mammoth", "markdownify"), "mammoth", "markdownify"),
    _c("pptx", (".pptx",), _O + "pptx", "PowerPoint deck", ("pptx",), "python-pptx"),
    _c("xlsx", (".xlsx", ".xlsm"), _O + "xlsx", "Excel workbook", ("openpyxl",), "openpyxl"),
    _c("xls", (".xls",), _O + "xls", "Excel 97 workbook", ("xlrd",), "xlrd"),
    _c("odf", (".odt", ".ods", ".odp"), _O + "odf", "OpenDocument file", ("odf",), "odfpy"),
    _c("rtf", (".rtf",), _O + "rtf", "RTF document", ("striprtf",), "striprtf"),
    _c("msg", (".msg",), _O + "msg", "Outlook message", ("olefile",), "olefile"),
    _c("html", (".html", ".htm", ".xhtml"), _W + "html", "web page", ("bs4", "markdownify"), "markdownify"),
    _c("epub", (".epub",), _W + "epub", "EPUB book", ("bs4", "markdownify"), "markdownify"),
    _c("email", (".eml", ".mbox"), _T + "mail", "e-mail", _EXTRA),
    _c("ipynb", (".ipynb",), _T + "notebook", "Jupyter notebook", _EXTRA),
    _c("table", (".csv", ".tsv"), _T + "table", "CSV table", ("charset_normalizer", *_EXTRA), "charset-normalizer"),
    _c("json", (".json", ".jsonl", ".ndjson"), _T + "json_doc", "JSON file", _EXTRA),
    _c("ics", (".ics",), _T + "calendar", "calendar", ("icalendar",), "icalendar"),
    _c("subtitles", (".vtt", ".srt"), _T + "subtitles", "subtitles", _EXTRA),
    _c("code", CODE_EXTENSIONS, _T + "code", "source file", _EXTRA),
)
