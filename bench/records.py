"""What a cold command pays for its records: building and dumping search hits, `Record` against `NamedTuple`.

The hits of a cold `gno search` are `gno.tuples.Record`s (the fields their pydantic model derives
from); before, they were NamedTuples of the same fields. This times, in one process, building
`--hits` hits with every field given by keyword and dumping them with `gno.wire.wire`, for the
shipped `gno.hit_records.Hit` and for a NamedTuple of its fields: the minimum of `--repeat`
runs of `--number` pages each, per page.

    nice -n 10 python bench/records.py [--hits 100] [--number 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import timeit
from collections import namedtuple
from typing import Any

from gno.hit_records import Hit, LineSpan
from gno.wire import wire

#: what `Hit` was: a NamedTuple of its fields and defaults (the defaulted ones are the last)
TupleHit = namedtuple("TupleHit", Hit._fields, defaults=list(Hit._field_defaults.values()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hits", type=int, default=100)
    ap.add_argument("--number", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    span = LineSpan(start_line=1, end_line=5)
    fields: dict[str, Any] = {"docid": "#abc123", "uri": "gno://notes/a.md", "title": "A", "collection": "notes"}
    fields.update(rel_path="a.md", score=0.5, line=3, snippet="some text", snippet_range=span, tags=["x"], match="all")
    for kind in (TupleHit, Hit):

        def build(kind: Any = kind) -> list[Any]:
            return [kind(**fields) for _ in range(args.hits)]

        hits = build()
        runs = {"build": build, "wire": lambda hits=hits: wire(hits)}
        best = {k: min(timeit.repeat(f, number=args.number, repeat=args.repeat)) for k, f in runs.items()}
        times = {k: t / args.number for k, t in best.items()}
        shown = "  ".join(f"{k} {t * 1e6:8.1f} us" for k, t in times.items())
        print(f"{kind.__name__:<9} {args.hits} hits: {shown}")


if __name__ == "__main__":
    main()
