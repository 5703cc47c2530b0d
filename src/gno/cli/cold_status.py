"""`gno status` from a cold process, without click, pydantic or the model packages.

The handler reads what the configured models resolved to when the engine last reported the
status (`gno.config_snapshot.read_models`: trusted only for the same config, gno version and
installed packages), calls the engine's own `gno.status_reads.read_status` on the index the
config snapshot describes, and prints through the click command's renderer
(`gno.cli.render_docs.status_text`) or, with `--json`, the same wire shape. Anything else --
no record yet, a changed config or environment, a missing index file, a path the engine would
spell differently, any error -- raises, and click answers (`gno.cli.entry`).
"""

from __future__ import annotations

from gno.cli.cold import JSON, ColdIndex, Spec, json_body, parse

TYPE_CHECKING = False  # not typing's: a cold status does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.cli.render_docs import Text

SPEC = Spec(values={}, flags=JSON, ints={}, defaults={}, words=(0, 0))


def _plain(location: str) -> str:
    """`location` as `str(Path(location))` spells it, when it is already in that form; else `Unhandled`."""
    from gno.cli.entry import Unhandled

    if not location or "//" in location or "/./" in location or location.endswith(("/", "/.")):
        raise Unhandled("a path pathlib would respell")
    if location.startswith("./") or location == ".":
        raise Unhandled("a path pathlib would respell")
    return location


def cold_status(command: str, glob: dict[str, Any], rest: Sequence[str]) -> Text:
    """The complete `(stdout, stderr)` of a plain `gno status [--json]`, or `Unhandled`."""
    import os

    from gno import config_snapshot
    from gno.cli.entry import Unhandled
    from gno.cli.render_docs import status_text
    from gno.status_reads import Collection, Models, read_status
    from gno.version import __version__

    opts, _ = parse(SPEC, rest)
    index = ColdIndex(glob)
    settings = index.settings
    recorded = config_snapshot.read_models(settings, __version__)
    if recorded is None:
        raise Unhandled("models to resolve")
    db = _plain(settings.db_location)
    if not os.path.exists(db):
        raise Unhandled("no index yet")
    fp, reason, first, key = recorded
    models = Models(fp, reason, first, key)  # type: ignore[arg-type]  # checked by read_models
    colls = [Collection(str(r["name"]), str(r["path"]), bool(r["memory_managed"])) for r in index.collections.values()]
    try:
        result = read_status(
            index.store,
            index_name=settings.index_name,
            config_path=_plain(settings.config_location),
            db_path=db,
            db_exists=True,
            collections=colls,
            models=models,
        )
    finally:
        index.close()
    return (json_body(result), "") if opts.get("as_json") else status_text(result)
