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
    from gno.retrieve.search import LineSpan, SearchOptions

    assert SearchOptions() == (10, 0.0, False, False)
    assert pickle.loads(pickle.dumps(LineSpan(1, 2))) == LineSpan(start_line=1, end_line=2)
