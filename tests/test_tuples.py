"""`gno.tuples.NamedTuple` builds the same classes as `typing.NamedTuple` (without importing typing)."""

from __future__ import annotations

import pickle
import typing

import pytest

from gno import tuples

# the runtime shim itself, not what type checkers see
Shim: typing.Any = tuples.NamedTuple


def _pair(base: typing.Any) -> typing.Any:
    class Point(base):  # type: ignore[misc, valid-type]
        """A point."""

        x: int
        y: int = 0
        tags: list[str] | None = None

        @property
        def norm1(self) -> int:
            return abs(self.x) + abs(self.y)

        def moved(self, dx: int) -> typing.Any:
            return self._replace(x=self.x + dx)

    return Point


def test_the_shim_builds_what_typing_builds() -> None:
    ours, theirs = _pair(Shim), _pair(typing.NamedTuple)
    assert ours is not theirs and issubclass(ours, tuple) and not isinstance(ours, type(Shim))
    for cls in (ours, theirs):
        p = cls(3, -4)
        assert cls._fields == ("x", "y", "tags")
        assert cls._field_defaults == {"y": 0, "tags": None}
        assert p == (3, -4, None) and p.norm1 == 7 and p.moved(1) == (4, -4, None)
        assert repr(p) == "Point(x=3, y=-4, tags=None)" and p._asdict() == {"x": 3, "y": -4, "tags": None}
        assert cls.__doc__ == "A point." and cls.__module__ == __name__
        assert list(cls.__annotations__) == ["x", "y", "tags"]
    assert ours.__qualname__ == theirs.__qualname__


def test_the_shim_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field"):

        class Bad(Shim):  # type: ignore[misc]
            a: int = 1
            b: int

    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):

        class Worse(Shim):  # type: ignore[misc]
            a: int

            def _replace(self) -> None: ...


def test_records_of_the_search_path_pickle_and_compare() -> None:
    from gno.hit_records import LineSpan
    from gno.retrieve.search import SearchOptions

    assert SearchOptions() == (10, 0.0, False, False)
    assert pickle.loads(pickle.dumps(SearchOptions(5))) == SearchOptions(limit=5)
    assert pickle.loads(pickle.dumps(LineSpan(start_line=1, end_line=2))) == LineSpan(start_line=1, end_line=2)


class Base(tuples.Record):
    """A base record."""

    x: int
    tags: list[str] | None = None


class Point(Base):
    y: int = 0
    name: str


def test_a_record_is_built_by_keyword_and_read_like_a_namedtuple() -> None:
    p = Point(x=3, name="p")
    assert Point._fields == ("x", "tags", "y", "name")
    assert Point._field_defaults == {"tags": None, "y": 0}
    assert (p.x, p.tags, p.y, p.name) == (3, None, 0, "p")
    assert repr(p) == "Point(x=3, tags=None, y=0, name='p')"
    assert p._asdict() == {"x": 3, "tags": None, "y": 0, "name": "p"}
    assert p._replace(y=4) == Point(x=3, y=4, name="p") and p.y == 0
    assert p == Point(name="p", x=3) and p != Point(x=3, name="q") and p != Base(x=3)
    assert pickle.loads(pickle.dumps(p)) == p


def test_a_record_refuses_what_a_namedtuple_refuses() -> None:
    with pytest.raises(TypeError, match=r"missing fields \['name'\]"):
        Point(x=1)
    with pytest.raises(TypeError, match=r"unknown fields \['z'\]"):
        Point(x=1, name="p", z=2)
    with pytest.raises(AttributeError, match="make a new one with _replace"):
        Point(x=1, name="p").x = 2  # type: ignore[misc]
    with pytest.raises(TypeError, match="unhashable"):
        hash(Point(x=1, name="p"))


def test_a_model_takes_its_records_fields_in_order() -> None:
    from gno import hit_records, memory_records, models
    from gno.wire import fields, wire

    assert tuple(models.MemoryFact.model_fields) == memory_records.RecalledFact._fields
    assert tuple(models.SearchHit.model_fields) == hit_records.Hit._fields
    assert models.SearchHit.model_fields["tags"].default_factory is list  # restated: a list default
    span = hit_records.LineSpan(start_line=2, end_line=3)
    model = models.LineRange.model_validate(fields(span))
    assert isinstance(model, hit_records.LineSpan) and model.dump() == wire(span) == {"startLine": 2, "endLine": 3}
