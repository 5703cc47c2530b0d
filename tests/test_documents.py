"""Documents beyond markdown, through the real engine, the real conversion worker and the real
converter libraries of the `documents` extra (CI installs it with `gno[dev]`).

The files are made here: an XLSX with openpyxl, a PPTX with python-pptx, a DOCX and a PDF written
byte by byte (the smallest files those formats allow). Plugins for the bad cases (a converter that
hangs, one that crashes the process, one whose version changes) are installed the way a
third-party package is: a module and a `.dist-info` with a `gno.converters` entry point on sys.path.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gno.config import Settings
from gno.engine import Engine
from gno.errors import ValidationError
from gno.ingest import converters
from gno.ingest.walker import walk_collection

# -- files ----------------------------------------------------------------------------------


def make_pdf(pages: list[str]) -> bytes:
    """A PDF with one line of Helvetica text per page (offsets in the xref are exact)."""
    n = len(pages)
    objs = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>")
    objs.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>"
        )
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objs.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def make_docx(path: Path, heading: str, paragraph: str) -> None:
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?><w:document {w}><w:body>'
        f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>{heading}</w:t></w:r></w:p>'
        f"<w:p><w:r><w:t>{paragraph}</w:t></w:r></w:p></w:body></w:document>"
    )
    ct = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Target="word/document.xml" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/></Relationships>'
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("[Content_Types].xml", ct)
        zf.writestr("_rels/.rels", rels)
        zf.writestr("word/document.xml", doc)


def make_xlsx(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Budget"
    ws.append(["Item", "Cost"])
    ws.append(["Zeppelin hangar rental", 4200])
    wb.save(path)


def make_pptx(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title, body in (("Kickoff", "Agenda for the week"), ("Roadmap", "Quarterly marmalade initiative")):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(path))


# -- plugins ----------------------------------------------------------------------------------

PLUGIN = """
import os, time
from gno.ingest.converters import Converter

def slow(path, budget):
    time.sleep(3600)

def crash(path, budget):
    os._exit(9)

def shout(path, budget):
    text = open(path, encoding="utf-8").read()
    return "# Shouted\\n\\n" + (text.upper() if VERSION == "2" else text) + "\\n"

VERSION = "{version}"
CONVERTERS = [
    Converter(id="slow", version="1", extensions=(".slow",), target="gno_test_plugin:slow", seconds=1.0),
    Converter(id="crash", version="1", extensions=(".crash",), target="gno_test_plugin:crash"),
    Converter(id="shout", version=VERSION, extensions=(".shout",), target="gno_test_plugin:shout"),
]
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Installs the test plugin (as a distribution with an entry point); call again to change its version."""
    site = tmp_path / "site"
    dist = site / "gno_test_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gno-test-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[gno.converters]\ntest = gno_test_plugin:CONVERTERS\n")
    monkeypatch.syspath_prepend(str(site))

    def install(version: str) -> None:
        import importlib
        import sys

        (site / "gno_test_plugin.py").write_text(PLUGIN.replace("{version}", version))
        sys.modules.pop("gno_test_plugin", None)
        importlib.invalidate_caches()
        converters.registry.cache_clear()

    install("1")
    yield install
    converters.registry.cache_clear()


@pytest.fixture
def make_engine(settings: Settings) -> Iterator[Callable[[Path], Engine]]:
    made: list[Engine] = []

    def _make(root: Path) -> Engine:
        e = Engine(settings)
        e.init()
        e.collection_add(str(root), name="c")
        made.append(e)
        return e

    yield _make
    for e in made:
        e.close()


def problems(e: Engine) -> dict[str, str]:
    return {p.rel_path: p.code for p in e.status().ingest_errors}


# -- tests ------------------------------------------------------------------------------------


def test_documents_are_converted_searched_and_cited(tmp_path: Path, make_engine: Callable[[Path], Engine]) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "note.md").write_text("# Note\n\nPlain markdown about gardening.\n")
    (root / "report.pdf").write_bytes(make_pdf(["Quarterly overview", "The flamingo budget was approved"]))
    make_docx(root / "spec.docx", "Specification", "The turbine must spin counterclockwise")
    make_xlsx(root / "sheet.xlsx")
    make_pptx(root / "deck.pptx")
    e = make_engine(root)
    r = e.update()
    assert r.collections[0].added == 5 and problems(e) == {}

    hit = e.search("flamingo budget").results[0]
    assert hit.uri == "gno://c/report.pdf"
    doc = e.get("gno://c/report.pdf")
    lines = doc.content.split("\n")
    assert lines[hit.line - 1].startswith("The flamingo") or "flamingo" in hit.snippet
    page = max(i for i, ln in enumerate(lines[: hit.line]) if ln.startswith("## Page "))
    assert lines[page] == "## Page 2"  # the citation can say "page 2"

    assert e.search("turbine counterclockwise").results[0].uri == "gno://c/spec.docx"
    assert e.get("gno://c/spec.docx").title == "Specification"
    assert e.search("zeppelin hangar").results[0].uri == "gno://c/sheet.xlsx"
    deck = e.search("marmalade").results[0]
    assert deck.uri == "gno://c/deck.pptx"
    assert "## Slide 2: Roadmap" in e.get("gno://c/deck.pptx").content

    # unchanged bytes are not converted again; new bytes are
    assert e.update().collections[0].unchanged == 5
    (root / "report.pdf").write_bytes(make_pdf(["Quarterly overview", "The pelican budget was rejected"]))
    assert e.update().collections[0].updated == 1
    assert e.search("pelican").results[0].uri == "gno://c/report.pdf"
    assert not e.search("flamingo").results


def test_bad_files_are_skipped_with_a_reason(tmp_path: Path, make_engine: Callable[[Path], Engine]) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nStill indexed.\n")
    (root / "corrupt.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    (root / "locked.docx").write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 512)  # an encrypted OOXML
    (root / "scan.pdf").write_bytes(make_pdf([""]))  # a page with no text layer
    (root / "empty.xlsx").write_bytes(b"")
    e = make_engine(root)
    e.update()
    assert problems(e) == {
        "corrupt.pdf": "CONVERT_FAILED",
        "locked.docx": "ENCRYPTED",
        "scan.pdf": "NO_TEXT",
        "empty.xlsx": "CONVERT_FAILED",
    }
    indexed = {d.rel_path for d in e.ls("c").entries}
    assert indexed == {"good.md", "scan.pdf"}  # the scan is found by name
    assert all(p.severity == "warning" for p in e.status().ingest_errors)


def test_a_hanging_or_crashing_converter_is_stopped(
    tmp_path: Path, make_engine: Callable[[Path], Engine], plugin: Callable[[str], None]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.slow").write_text("never converted")
    (root / "b.crash").write_text("kills its process")
    (root / "c.shout").write_text("converted after both")
    (root / "d.md").write_text("# D\n\nmarkdown\n")
    e = make_engine(root)
    r = e.update()
    got = {p.rel_path: (p.code, p.message) for p in e.status().ingest_errors}
    assert got["a.slow"][0] == "CONVERT_TIMEOUT" and "1 s" in got["a.slow"][1]
    assert got["b.crash"][0] == "CONVERT_FAILED" and "exit 9" in got["b.crash"][1]
    assert r.collections[0].added == 2
    assert {d.rel_path for d in e.ls("c").entries} == {"c.shout", "d.md"}


def test_a_new_converter_version_reconverts(
    tmp_path: Path, make_engine: Callable[[Path], Engine], plugin: Callable[[str], None]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "memo.shout").write_text("quiet words")
    e = make_engine(root)
    e.update()
    assert "quiet words" in e.get("c/memo.shout").content
    assert e.update().collections[0].unchanged == 1
    plugin("2")
    r = e.update()
    assert r.collections[0].updated == 1
    assert "QUIET WORDS" in e.get("c/memo.shout").content
    kinds = [c.kind for c in e.changes().changes]
    assert kinds.count("update") == 1
    assert e.update().collections[0].unchanged == 1  # recorded: the next run converts nothing


def test_without_the_converter_a_file_is_listed_with_the_extra(
    tmp_path: Path, make_engine: Callable[[Path], Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "report.pdf").write_bytes(make_pdf(["text"]))
    (root / "n.md").write_text("# N\n")
    real = converters._installed
    monkeypatch.setattr(converters, "_installed", lambda m: m != "pypdfium2" and real(m))
    converters.registry.cache_clear()
    try:
        e = make_engine(root)
        e.update()
        (info,) = e.status().ingest_errors
    finally:
        converters.registry.cache_clear()
    assert (info.rel_path, info.code, info.severity) == ("report.pdf", "CONVERTER_MISSING", "warning")
    assert "pip install 'gno[documents]'" in info.message


def test_markdown_only_never_looks_up_a_converter(
    tmp_path: Path, make_engine: Callable[[Path], Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# A\n")
    (root / "sub" / "b.md").write_text("# B\n")

    def boom() -> converters.Registry:
        raise AssertionError("a markdown-only walk looked up the converters")

    monkeypatch.setattr("gno.ingest.walker.registry", boom)
    monkeypatch.setattr("gno.ingest.sync.registry", boom)
    e = make_engine(root)
    assert e.update().collections[0].added == 2
    walk = walk_collection(e.config.collections[0])
    assert walk.documents == 0 and len(walk.files) == 2


def test_include_and_pattern_scope_documents(tmp_path: Path, settings: Settings) -> None:
    for name in ("one", "two"):
        root = tmp_path / name
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "a.pdf").write_bytes(make_pdf(["alpha"]))
        (root / "b.pdf").write_bytes(make_pdf(["beta"]))
        (root / "c.csv").write_text("x,y\n1,2\n")
        (root / "d.md").write_text("# D\n")
    e = Engine(settings)
    try:
        e.init()
        e.collection_add(str(tmp_path / "one"), name="one", pattern="docs/**/*.md")  # `.md` stands for any format
        e.collection_add(str(tmp_path / "two"), name="two", include=[".csv", ".md"])  # an explicit list is the list
        e.update()
        assert {d.rel_path for d in e.ls("one").entries} == {"docs/a.pdf"}
        assert {d.rel_path for d in e.ls("two").entries} == {"c.csv", "d.md"}
        assert e.search("alpha").results[0].uri == "gno://one/docs/a.pdf"
    finally:
        e.close()


def test_get_source_returns_the_original_bytes(tmp_path: Path, make_engine: Callable[[Path], Engine]) -> None:
    from click.testing import CliRunner

    from gno.cli.main import cli

    root = tmp_path / "vault"
    root.mkdir()
    pdf = make_pdf(["Original bytes travel unchanged"])
    (root / "report.pdf").write_bytes(pdf)
    (root / "n.md").write_text("# N\n\nnote\n")
    e = make_engine(root)
    e.update()
    doc = e.get("gno://c/report.pdf", source=True)
    assert doc.source_bytes() == pdf and doc.content.startswith("## Page 1")
    assert doc.converter is not None and doc.converter.startswith("pdf@1+pypdfium2-")
    plain = e.get("c/n.md")
    assert plain.source_base64 is None and plain.converter is None

    runner = CliRunner()
    res = runner.invoke(cli, ["get", "--source", "c/report.pdf"])
    assert res.exit_code == 0 and res.stdout_bytes == pdf
    res = runner.invoke(cli, ["get", "c/report.pdf", "--line-numbers"])
    assert res.exit_code == 0 and "## Page 1" in res.stdout and "Original bytes travel unchanged" in res.stdout


TEXT_FORMATS = {
    "mail.eml": "From: ada@example.org\nTo: bob@example.org\nSubject: Lunch plans\n\nThe quokka cafe opens at noon.\n",
    "box.mbox": "From ada@example.org Mon Jan  1 00:00:00 2024\nSubject: First\n\nThe narwhal memo.\n\n"
    "From bob@example.org Mon Jan  1 00:00:00 2024\nSubject: Second\n\nThe axolotl reply.\n",
    "cal.ics": "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:1\nDTSTART:20240101T100000Z\n"
    "SUMMARY:Pangolin review\nDESCRIPTION:Bring the pangolin figures\nEND:VEVENT\nEND:VCALENDAR\n",
    "talk.vtt": "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nWelcome to the capybara keynote\n",
    "talk.srt": "1\n00:00:01,000 --> 00:00:04,000\nThe wombat subtitle line\n",
    "memo.rtf": r"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0 The ocelot clause applies.\par}",
    "rows.jsonl": '{"animal": "tapir", "n": 1}\n{"animal": "okapi", "n": 2}\n',
    "grid.tsv": "name\tcolour\nflamingo\tpink\n",
    "page.html": "<html><head><title>Lemur page</title><script>var x</script></head>"
    "<body><p>The lemur appendix.</p></body></html>",
    "tool.py": "import os\n\n\ndef meerkat_helper():\n    return 'meerkat'\n",
    "nb.ipynb": '{"cells": [{"cell_type": "markdown", "source": ["# Gecko notebook"]}, '
    '{"cell_type": "code", "source": ["print(1)"], "outputs": [{"text": ["gecko output"]}]}], '
    '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
}


@pytest.mark.parametrize(
    ("name", "query", "needle"),
    [
        ("mail.eml", "quokka", "# Lunch plans"),
        ("box.mbox", "axolotl", "## Second"),
        ("cal.ics", "pangolin", "## Pangolin review"),
        ("talk.vtt", "capybara", "**[00:00:01.000]**"),
        ("talk.srt", "wombat", "**[00:00:01.000]**"),
        ("memo.rtf", "ocelot", "The ocelot clause applies."),
        ("rows.jsonl", "okapi", "## Record 2"),
        ("grid.tsv", "flamingo", "| flamingo | pink |"),
        ("page.html", "lemur appendix", "# Lemur page"),
        ("tool.py", "meerkat", "```python"),
        ("nb.ipynb", "gecko output", "# Gecko notebook"),
    ],
)
def test_text_formats_convert(
    tmp_path: Path, make_engine: Callable[[Path], Engine], name: str, query: str, needle: str
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / name).write_text(TEXT_FORMATS[name], encoding="utf-8")
    e = make_engine(root)
    e.update()
    assert problems(e) == {}
    assert e.search(query).results[0].uri == f"gno://c/{name}"
    assert needle in e.get(f"c/{name}").content


def test_the_size_budget_cuts_a_huge_sheet(tmp_path: Path, settings: Settings) -> None:
    from gno.ingest.converters import Budget
    from gno.ingest.sync import Syncer

    root = tmp_path / "vault"
    root.mkdir()
    (root / "huge.csv").write_text("a,b\n" + "".join(f"{i},row{i}\n" for i in range(50_000)))
    e = Engine(settings)
    try:
        e.init()
        e.collection_add(str(root), name="c")
        syncer = Syncer(e.store, budget=Budget(max_chars=2_000))
        try:
            syncer.sync_collection(e.config.collections[0])
        finally:
            syncer.close()
        assert problems(e) == {"huge.csv": "CONVERT_TRUNCATED"}
        assert len(e.get("c/huge.csv").content) <= 2_000
        assert e.search("row7").results[0].uri == "gno://c/huge.csv"
    finally:
        e.close()


def test_capture_writes_markdown_only(tmp_path: Path, make_engine: Callable[[Path], Engine]) -> None:
    from gno.writes.capture import CaptureRequest

    root = tmp_path / "vault"
    root.mkdir()
    e = make_engine(root)
    got = e.capture(CaptureRequest(content="a note about the pdf", collection="c", path="report.pdf"))
    assert got.uri == "gno://c/report.pdf.md"  # a note, never bytes under a converted format's name
    assert not (root / "report.pdf").exists()
    assert e.search("note about").results[0].uri == "gno://c/report.pdf.md"


def test_a_converted_file_is_never_overwritten_by_an_edit(
    tmp_path: Path, make_engine: Callable[[Path], Engine]
) -> None:
    """Its mirror is not the file: an edit (engine, REST's editor source) refuses it and the bytes stay."""
    import hashlib

    from gno.web.pages import doc_source

    root = tmp_path / "vault"
    root.mkdir()
    pdf = make_pdf(["Quarterly figures stay a PDF"])
    (root / "report.pdf").write_bytes(pdf)
    e = make_engine(root)
    e.update()
    with pytest.raises(ValidationError) as err:
        e.update_doc("gno://c/report.pdf", "# overwritten\n", hashlib.sha256(pdf).hexdigest())
    assert "converted from a .pdf file" in err.value.message and err.value.code == "VALIDATION"
    assert (root / "report.pdf").read_bytes() == pdf
    src = doc_source(e, "gno://c/report.pdf")
    assert not src.editable and src.reason is not None and "converted" in src.reason and src.content == ""
