"""Context hints steer `gno query` between scopes (vector signal) and never within one."""

from __future__ import annotations

from gno.engine import Engine

from .conftest import Build

TEXT = "# Release\n\nRun the release script with the version flag, then tag the commit.\n"
FILES = {"cli/release.md": TEXT, "gui/release.md": TEXT, "cli/other.md": "# Other\n\nUnrelated notes on tea.\n"}
QUERY = "release script for the desktop windows app"


def _order(e: Engine) -> list[str]:
    return [h.rel_path for h in e.query(QUERY, limit=5, depth="fast").results]


def test_a_hint_that_speaks_of_the_query_lifts_its_scope_and_a_shared_one_moves_nothing(build: Build) -> None:
    e = build({"kb": FILES})
    plain = _order(e)
    assert plain[:2] == ["cli/release.md", "gui/release.md"]  # a tie, broken by document id
    e.context_add("/", "Notes about desktop windows apps and release scripts")  # every candidate shares it
    assert _order(e) == plain
    e.context_add("gno://kb/gui", "Desktop windows app: the graphical client")
    hinted = e.query(QUERY, limit=5, depth="fast", explain=True)
    assert [h.rel_path for h in hinted.results][:2] == ["gui/release.md", "cli/release.md"]
    assert hinted.explain is not None
    stage = next(s for s in hinted.explain.stages if s.name == "hints")
    assert stage.top[0].uri == "gno://kb/gui/release.md" and stage.top[0].score > 0
    assert hinted.results[0].context == [
        "Notes about desktop windows apps and release scripts",
        "Desktop windows app: the graphical client",
    ]


def test_without_the_vector_leg_hints_do_not_steer(build: Build) -> None:
    e = build({"kb": FILES}, spec=None, embed=False)
    plain = _order(e)
    e.context_add("gno://kb/gui", "Desktop windows app: the graphical client")
    assert _order(e) == plain
