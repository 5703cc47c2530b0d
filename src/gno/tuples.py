"""`NamedTuple` and `Record` for the modules a cold `gno search` imports, without importing `typing`.

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
    from typing import Any, ClassVar, Self, dataclass_transform
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

    def dataclass_transform(**_: object) -> object:
        """Type checkers read the decorator's meaning; at run time it leaves the class as it is."""
        return lambda cls: cls


@dataclass_transform(kw_only_default=True)
class Record:
    """Base of a plain record whose fields a result model takes over: `class Fact(Record): uri: str …`.

    A record declares its fields once, as annotations (with defaults), and the pydantic result model
    of the same name derives from it (`class MemoryRecord(GnoModel, Fact)`): pydantic reads the
    inherited annotations as the model's fields, in the same order, so the two cannot drift apart,
    and a cold command builds and prints the record without importing pydantic. A record is built
    by keyword, compares by value and is not changed once built (`_replace` makes a new one), like
    the NamedTuples it stands beside; `_fields` and `_field_defaults` say the same as theirs, so
    `gno.wire` dumps both alike. A subclass adds fields after its base's.

    A model restates a field only to give it a model type (a nested record's model) or a list
    default, and never one the record gives a default (pydantic warns of the shadowed attribute).
    The record's module imports typing names (`Any`, `Literal`) for type checkers only, so pydantic
    resolves them in the model's module, which imports them.
    """

    __slots__ = ()
    if TYPE_CHECKING:  # set for each subclass; not annotations a model would take for fields
        _fields: ClassVar[tuple[str, ...]]
        _field_defaults: ClassVar[dict[str, Any]]
        _names: ClassVar[frozenset[str]]
        _required: ClassVar[frozenset[str]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: dict[str, None] = {}
        for base in reversed(cls.__mro__):
            if base is not Record and issubclass(base, Record):
                names.update(dict.fromkeys(base.__dict__.get("__annotations__", {})))
        cls._fields = tuple(names)
        cls._field_defaults = {n: getattr(cls, n) for n in names if hasattr(cls, n)}
        cls._names = frozenset(names)
        cls._required = cls._names - cls._field_defaults.keys()

    def __init__(self, **values: Any) -> None:
        if not self._required <= values.keys() <= self._names:
            missing, unknown = sorted(self._required - values.keys()), sorted(values.keys() - self._names)
            raise TypeError(f"{type(self).__name__}(): missing fields {missing}, unknown fields {unknown}")
        self.__dict__.update(values)  # a field left out reads its default from the class

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is a record: make a new one with _replace")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._fields)

    __hash__ = None  # type: ignore[assignment]  # equal by value, and its fields may be lists

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({shown})"

    def _asdict(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self._fields}

    def _replace(self, **changes: Any) -> Self:
        return type(self)(**{**self._asdict(), **changes})
