"""What every cold handler shares: its command's options from one spec, and the index without pydantic.

A cold handler (`gno.cli.entry`) answers a plain invocation of a command without click: it
parses the arguments from the command's `Spec` (the options it takes, in click's spelling and
with the request model's bounds; a test holds each spec equal to the click command's options),
opens the index from the config snapshot that the last validation recorded
(`gno.config_snapshot`), calls the same core functions as the engine, and renders through the
same renderer. Anything outside the spec -- help, another option, a value out of bounds, a
config to validate again, an unknown collection, any error -- raises `Unhandled` and click
answers, exactly as before.
"""

from __future__ import annotations

from gno.cli.entry import Unhandled, options
from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold command does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.settings import Settings
    from gno.store.db import Store


class Spec(NamedTuple):
    """The options and arguments a cold handler takes, as click spells them.

    `values`/`flags`: option name → destination; `ints`: destination → (least, most) accepted
    (None: unbounded), as the click type and the request model's bounds allow; `multi`: repeatable
    destinations; `defaults`: what an option not given means; `words`: (fewest, most) arguments.
    """

    values: dict[str, str]
    flags: dict[str, str]
    ints: dict[str, tuple[int | None, int | None]]
    defaults: dict[str, Any]
    words: tuple[int, int | None]
    multi: frozenset[str] = frozenset()


JSON = {"--json": "as_json"}


def parse(spec: Spec, rest: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
    """The options (defaults filled in, integers converted and in bounds) and the arguments, or `Unhandled`."""
    opts, words, _ = options(rest, spec.values, spec.flags, stop_at_word=False, multi=spec.multi)
    fewest, most = spec.words
    if len(words) < fewest or (most is not None and len(words) > most):
        raise Unhandled("arguments")
    for dest, (least, top) in spec.ints.items():
        if dest not in opts:
            continue
        try:
            n = int(opts[dest])
        except ValueError:
            raise Unhandled(dest) from None
        if (least is not None and n < least) or (top is not None and n > top):
            raise Unhandled(dest)
        opts[dest] = n
    return {**spec.defaults, **opts}, words


class ColdIndex:
    """The index as a cold command sees it: settings, the recorded collections, the store.

    Only a config that validated unchanged since (its snapshot) is trusted; otherwise `Unhandled`,
    and click loads and validates it as the engine always does.
    """

    def __init__(self, glob: dict[str, Any]) -> None:
        from gno import config_snapshot
        from gno.settings import build_settings

        self.settings: Settings = build_settings(index_name=glob.get("index"), config_file=glob.get("config"))
        record = config_snapshot.read_record(self.settings)
        if record is None:
            raise Unhandled("config to validate")
        self.collections: dict[str, dict[str, Any]] = {str(r["name"]): r for r in record[0]}
        self.memory_guard = record[1]
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            from gno.store.db import Store

            self._store = Store(self.settings.db_location)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def name(self, collection: str) -> str:
        """The configured name `collection` refers to (case-insensitive); an unknown one is click's to report."""
        want = collection.lower()
        if want not in self.collections:
            raise Unhandled("unknown collection")
        return want

    def root(self, collection: str) -> str:
        """A configured collection's folder."""
        return str(self.collections[self.name(collection)]["path"])


def json_body(result: object) -> str:
    """`--json`: the result's wire shape, as `gno.cli.main.json_text` prints a model's dump."""
    import json

    from gno.wire import wire

    return json.dumps(wire(result), ensure_ascii=False, indent=2) + "\n"
