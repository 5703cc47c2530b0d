"""The CLI builds the capability table's request models: every field has an option (or a
stated exemption), under the field's own name, with the model's default."""

from __future__ import annotations

import inspect
import re

import click
import pytest

from gno.cli.contract import DIRECT, EXEMPT, OUTSIDE
from gno.cli.main import cli
from gno.contract import CAPABILITIES, NO_CLI, Capability


def _command(path: str) -> click.Command:
    cmd: click.Command | None = cli
    for part in [*path.split(), "run"]:  # `gno query <text>` is the group's `run` command
        if not isinstance(cmd, click.Group):
            break
        cmd = cmd.get_command(click.Context(cmd), part)  # commands register lazily
        assert cmd is not None, path
    assert cmd is not None
    return cmd


WITH_CLI = [c for c in CAPABILITIES if c.cli is not None]


def test_a_capability_without_a_cli_command_says_why() -> None:
    assert {c.name for c in CAPABILITIES if c.cli is None} == set(NO_CLI)


@pytest.mark.parametrize("cap", WITH_CLI, ids=[c.name for c in WITH_CLI])
def test_every_request_field_has_a_cli_option_or_a_stated_exemption(cap: Capability) -> None:
    assert cap.cli is not None
    params = {p.name: p for p in _command(cap.cli).params}
    missing = [f for f in cap.request_model.model_fields if f not in params and (cap.name, f) not in EXEMPT]
    assert not missing, f"`gno {cap.cli}` has no option for {missing}: add one or state an exemption"


@pytest.mark.parametrize("cap", WITH_CLI, ids=[c.name for c in WITH_CLI])
def test_cli_defaults_are_the_request_defaults(cap: Capability) -> None:
    assert cap.cli is not None
    cmd = _command(cap.cli)
    params = {p.name: p for p in cmd.params}
    for name, field in cap.request_model.model_fields.items():
        p = params.get(name)
        raw = p.get_default(click.Context(cmd)) if p is not None else None
        raw = None if "UNSET" in repr(raw) else raw  # click's "no default" sentinel
        if raw is None or field.is_required() or (p is not None and getattr(p, "multiple", False)):
            continue
        default = list(raw) if isinstance(raw, tuple) else raw
        model_default = field.get_default(call_default_factory=True)
        assert default == model_default, (cap.name, name, default, model_default)


def _leaves(cmd: click.Command, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    if not isinstance(cmd, click.Group):
        return [(" ".join(path), cmd)]
    return [
        leaf
        for name in cmd.list_commands(click.Context(cmd))
        for leaf in _leaves(cmd.get_command(click.Context(cmd), name) or cmd, (*path, name))
    ]


def test_every_command_is_a_capability_or_outside_the_table_with_a_reason() -> None:
    by_cli = {c.cli: c for c in WITH_CLI}
    outside = []
    for path, cmd in _leaves(cli):
        cap = by_cli.get(path.removesuffix(" run"))  # `gno query <text>` is the group's hidden `run`
        if cap is None:
            assert path.split()[0] in OUTSIDE, f"`gno {path}` is neither a capability nor stated outside the table"
            outside.append(path)
            continue
        # a capability's command builds its request model and makes the one call (`invoke`)
        source = inspect.getsource(cmd.callback)  # type: ignore[arg-type]
        builds = re.search(r"invoke\(\s*ctx", source) or cap.name in DIRECT
        assert builds, f"`gno {path}` does not build its request model"
    assert {p.split()[0] for p in outside} == set(OUTSIDE)


def test_no_stale_exemption() -> None:
    fields = {(c.name, f) for c in CAPABILITIES for f in c.request_model.model_fields}
    assert set(EXEMPT) <= fields, set(EXEMPT) - fields


def test_the_cold_search_takes_the_request_models_defaults_and_limit() -> None:
    # the cold `gno search` reads these without pydantic; the request models declare them
    from gno.cli.hit_flags import DEFAULTS
    from gno.contract.retrieve import SearchRequest
    from gno.retrieve.search import MAX_LIMIT, SearchOptions

    fields = SearchRequest.model_fields
    assert DEFAULTS == {name: fields[name].default for name in DEFAULTS}
    assert (SearchOptions().limit, SearchOptions().min_score) == (fields["limit"].default, fields["min_score"].default)
    assert [m.le for m in fields["limit"].metadata if hasattr(m, "le")] == [MAX_LIMIT]


def test_the_hit_commands_spell_their_filters_and_output_flags_alike() -> None:
    """search, vsearch and query take one declaration (`gno.cli.hit_flags`), as the cold path does."""
    from gno.cli.hit_flags import FILTER_OPTIONS, OUTPUT_FLAGS

    dests = {dest for _, dest, _, _ in (*FILTER_OPTIONS, *OUTPUT_FLAGS)}

    def options(path: str) -> set[tuple[tuple[str, ...], bool, str | None]]:
        params = [p for p in _command(path).params if p.name in dests and isinstance(p, click.Option)]
        return {(tuple(p.opts), p.multiple, p.help) for p in params}

    assert len(options("search")) == len(dests)
    assert options("search") == options("vsearch") == options("query")
