"""A note's front-matter aliases and summary are searched at the title's weight, never shown as its title."""

from __future__ import annotations

from pathlib import Path

from gno.engine import Engine
from gno.store.fts_title import SUMMARY_MAX_WORDS, title_field

PALETTE = """---
description: The searchable popup for running commands.
aliases: [Launcher, "Quick actions"]
tags: glossary
---
The palette lists every command and runs the one you pick.
"""

# a long page that mentions the same words in passing, many times over
MENTIONS = "# Changelog\n\n" + "".join(
    f"* {n}: fixed a popup that was not searchable while running commands in the sidebar\n" for n in range(40)
)


def test_title_field_adds_aliases_and_summary_after_the_title() -> None:
    fm = {"description": "  The searchable\npopup. ", "aliases": ["Launcher", 3, None, {"x": 1}], "summary": 7}
    assert title_field("Command Palette", fm) == "Command Palette\nLauncher\n3\nThe searchable popup.\n7"
    assert title_field("Plain", None) == "Plain"
    assert title_field("Plain", {"tags": ["a"], "description": None, "alias": ""}) == "Plain"
    assert title_field("Same", {"alias": "Same"}) == "Same"  # nothing twice
    abstract = " ".join(["word"] * (SUMMARY_MAX_WORDS + 1))  # an abstract reads like body text
    assert title_field("Paper", {"description": abstract, "aliases": "P1"}) == "Paper\nP1"


def test_a_plain_question_finds_the_note_its_summary_answers(engine: Engine, corpus: Path) -> None:
    (corpus / "Command Palette.md").write_text(PALETTE, encoding="utf-8")
    (corpus / "CHANGELOG.md").write_text(MENTIONS, encoding="utf-8")
    engine.update()
    hits = engine.search("searchable popup running commands").results
    assert hits[0].title == "Command Palette"  # the summary is searched, not shown as the title
    assert engine.search("launcher").results[0].title == "Command Palette"
    ranked = [h.title for h in engine.query("searchable popup running commands", lexical_only=True).results]
    assert ranked[0] == "Command Palette"


def test_an_index_from_before_the_rule_gets_it_when_migrated(engine: Engine, corpus: Path) -> None:
    (corpus / "Command Palette.md").write_text(PALETTE, encoding="utf-8")
    engine.update()
    store = engine.store
    with store.write() as conn:  # what an older index held: the title alone
        conn.execute(
            "UPDATE documents_fts SET title = 'Command Palette' WHERE rowid = "
            "(SELECT id FROM documents WHERE rel_path = 'Command Palette.md')"
        )
        conn.execute("UPDATE schema_meta SET value = '5' WHERE key = 'schema_version'")
    assert not engine.search("launcher").results
    engine.close()
    again = Engine(engine.settings)
    assert [h.title for h in again.search("launcher").results] == ["Command Palette"]
    assert again.store.get_meta("schema_version") == "6"
    again.close()
