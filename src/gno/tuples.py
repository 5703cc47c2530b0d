"""`NamedTuple` for the modules a cold `gno search` imports, without importing `typing`.

Importing `typing` costs a cold `gno search` about as much as the BM25 query itself, and the
search path uses it for one thing only: the class syntax of `typing.NamedTuple`. Type checkers
see `typing.NamedTuple` itself (the `TYPE_CHECKING` branch); at run time the same class
statement builds the same `collections.namedtuple` that `typing` would build (fields in
annotation order, defaults, docstring, methods and properties), keeping the annotations as the
strings `from __future__ import annotations` leaves them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing is what this module avoids
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple as _namedtuple

    #: what a NamedTuple class body may not redefine, and what it does not copy (as `typing`)
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace"}
        | {"_asdict", "_source"}
    )
    _SPECIAL = frozenset({"__annotations__", "__module__", "__name__"})

    class _RecordMeta(type):
        def __new__(mcls, typename, bases, ns):  # noqa: N804 - a metaclass's first argument
            if not bases:  # the `NamedTuple` base below
                return super().__new__(mcls, typename, bases, ns)
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            types = ns.get("__annotations__", {})
            defaults: list[str] = []
            for name in types:
                if name in ns:
                    defaults.append(name)
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {name} cannot follow default field(s)")
            cls = _namedtuple(typename, list(types), defaults=[ns[n] for n in defaults], module=ns["__module__"])
            cls.__annotations__ = cls.__new__.__annotations__ = dict(types)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in cls._fields:
                    setattr(cls, key, value)
            return cls

    class NamedTuple(metaclass=_RecordMeta):
        """Base of a record class: `class Hit(NamedTuple): docid: str …`."""
