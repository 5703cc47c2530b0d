"""`gno search` lists first the notes holding every word in one section, not scattered over a long page."""

from __future__ import annotations

from pathlib import Path

from gno.engine import Engine
from gno.store import sections

# a long page holding every word of the question, each in another section
CHANGES = "# Changelog\n\n" + "".join(
    f"## 0.{n}\n\n* fixed the {word} handling\n\n"
    for n, word in enumerate(["rename", "page", "links", "broken", "sidebar", "export"] * 6)
)
# the short note that answers it: every word in one section (its title counts for every section)
NAMER = (
    "# Page Namer\n\nRename a page and every link to it is updated, so no links are broken.\n\n"
    "## See also\n\nTemplates.\n"
)
# a note without headings is one section, as before
PLAIN = "Renaming: broken links to a page are listed by the doctor.\n"


def _search(engine: Engine, q: str) -> list[tuple[str, str | None]]:
    return [(h.rel_path, h.match) for h in engine.search(q, limit=10).results]


def test_scattered_words_rank_with_the_partial_matches(engine: Engine, corpus: Path) -> None:
    for name, text in (("CHANGELOG.md", CHANGES), ("Page Namer.md", NAMER), ("plain.md", PLAIN)):
        (corpus / name).write_text(text, encoding="utf-8")
    engine.update()
    got = _search(engine, "rename page broken links")
    assert got[:2] == [("Page Namer.md", "all"), ("plain.md", "all")] or got[:2] == [
        ("plain.md", "all"),
        ("Page Namer.md", "all"),
    ]
    assert ("CHANGELOG.md", "partial") in got  # still listed, after every full match
    # one word: nothing to scatter, the page is a full match as before
    assert ("CHANGELOG.md", "all") in _search(engine, "sidebar")
    # words that do meet in one of its sections keep it a full match
    assert _search(engine, "fixed export handling")[0] == ("CHANGELOG.md", "all")


def test_a_section_is_read_with_the_note_title_and_path(engine: Engine, corpus: Path) -> None:
    (corpus / "Page Namer.md").write_text(NAMER, encoding="utf-8")
    engine.update()
    # "namer" is only in the title and path, "templates" only in the last section
    assert _search(engine, "namer templates") == [("Page Namer.md", "all")]


def test_focused_keeps_notes_it_does_not_read(engine: Engine, corpus: Path) -> None:
    (corpus / "CHANGELOG.md").write_text(CHANGES, encoding="utf-8")
    (corpus / "plain.md").write_text(PLAIN, encoding="utf-8")
    engine.update()
    ids = {r[1]: int(r[0]) for r in engine.store.conn.execute("SELECT id, rel_path FROM documents")}
    expr = '("renam"* AND "broken"*)'
    pair = [ids["CHANGELOG.md"], ids["plain.md"]]
    assert sections.focused(engine.store, pair, expr) == {ids["plain.md"]}
    assert sections.focused(engine.store, [], expr) == set()
    # a note too long to read is judged as a whole
    engine.store.conn.execute(
        "UPDATE documents SET source_size = ? WHERE id = ?", (sections.MAX_SECTIONED_BYTES + 1, ids["CHANGELOG.md"])
    )
    assert sections.focused(engine.store, [ids["CHANGELOG.md"]], expr) == {ids["CHANGELOG.md"]}


def test_a_section_is_read_after_what_its_enclosing_sections_open_with() -> None:
    body = ["intro", "# A", "a text", "## A1", "a1 text", "### A1x", "deep", "## A2", "a2 text", "# B", "b text"]
    got = sections._sections(body, 1, [(2, 1), (4, 2), (6, 3), (8, 2), (10, 1)])
    assert got == [
        "intro",
        "intro\n# A\na text",
        "intro\n# A\na text\n## A1\na1 text",
        "intro\n# A\na text\n## A1\na1 text\n### A1x\ndeep",
        "intro\n# A\na text\n## A2\na2 text",  # a sibling's text is not enclosing
        "intro\n# B\nb text",
    ]
