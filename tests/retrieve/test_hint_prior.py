"""Context hints steer `gno query` between scopes (vector signal) and never within one, and only
for a query that speaks to a scope: one of its words in that scope's hints and not in every one's."""

from __future__ import annotations

import pytest

from gno.engine import Engine
from gno.retrieve import hint_prior
from gno.retrieve.hint_prior import speaking_sets

from .conftest import Build

TEXT = "# Release\n\nRun the release script with the version flag, then tag the commit.\n"
FILES = {"cli/release.md": TEXT, "gui/release.md": TEXT, "cli/other.md": "# Other\n\nUnrelated notes on tea.\n"}
QUERY = "release script for the desktop windows app"


def _order(e: Engine, query: str = QUERY) -> list[str]:
    return [h.rel_path for h in e.query(query, limit=5, depth="fast").results]


def test_a_hint_that_speaks_of_the_query_lifts_its_scope_and_a_shared_one_moves_nothing(build: Build) -> None:
    e = build({"kb": FILES})
    plain = _order(e)
    assert plain[:2] == ["cli/release.md", "gui/release.md"]  # a tie, broken by document id
    e.context_add("/", "Notes about release scripts")  # every candidate shares it
    assert _order(e) == plain
    e.context_add("gno://kb/gui", "Desktop windows app: the graphical client")
    hinted = e.query(QUERY, limit=5, depth="fast", explain=True)
    assert [h.rel_path for h in hinted.results][:2] == ["gui/release.md", "cli/release.md"]
    assert hinted.explain is not None
    stage = next(s for s in hinted.explain.stages if s.name == "hints")
    assert stage.top[0].uri == "gno://kb/gui/release.md" and stage.top[0].score > 0
    assert hinted.results[0].context == ["Notes about release scripts", "Desktop windows app: the graphical client"]


def test_a_hint_the_query_does_not_speak_to_moves_nothing(build: Build, monkeypatch: pytest.MonkeyPatch) -> None:
    e = build({"kb": FILES})
    query = "release script graphically"  # close to the hint below (fragments), but none of its words
    plain = _order(e, query)
    assert plain[:2] == ["cli/release.md", "gui/release.md"]  # a tie, broken by document id
    e.context_add("gno://kb/gui", "Graphical")
    assert _order(e, query) == plain
    monkeypatch.setattr(hint_prior, "LEXICAL_GATE", False)  # by the cosine alone, the gui scope is lifted
    assert _order(e, query)[:2] == ["gui/release.md", "cli/release.md"]


def test_only_a_word_of_one_scope_that_tells_the_scopes_apart_opens_the_gate() -> None:
    common = ("Cheat sheets of programs",)
    windows = (*common, "Programs found only on Windows")
    linux = (*common, "Programs found only on Linux distributions")
    assert speaking_sets("list disks on windows", [common, windows, linux]) == {windows}
    assert speaking_sets("list the disks of a program", [common, windows, linux]) == set()  # in every set
    assert speaking_sets("compress a folder", [common, windows, linux]) == set()
    assert speaking_sets("dump an X11 window to a file", [common, windows, linux]) == set()  # "Windows": a name
    assert speaking_sets("only on linux distribution", [windows, linux]) == {linux}  # "only": in both
    assert speaking_sets("what the indexer keeps", [common, (*common, "Objects of the index")]) == set()  # not a plural
    assert speaking_sets("copy disks from windows to linux", [common, windows, linux]) == set()  # which one?
    assert speaking_sets("anything", []) == set()


def test_without_the_vector_leg_hints_do_not_steer(build: Build) -> None:
    e = build({"kb": FILES}, spec=None, embed=False)
    plain = _order(e)
    e.context_add("gno://kb/gui", "Desktop windows app: the graphical client")
    assert _order(e) == plain
