"""The exception class is the code's kind: every code of the table is raised as its kind's class,
wherever the source names a class and a code together, so `except AuthError` or `except BusyError`
means the same thing in-process and through the remote SDK."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gno import errors
from gno.errors import ERROR_TABLE, ErrorCode, error_class_for, from_body, make_error

SRC = Path(errors.__file__).resolve().parent
KIND_CLASS = {
    "VALIDATION": errors.ValidationError,
    "NOT_FOUND": errors.NotFoundError,
    "CONFLICT": errors.ConflictError,
    "BUSY": errors.BusyError,
    "AUTH": errors.AuthError,
    "RUNTIME": errors.RuntimeFailure,
}
CLASSES = {cls.__name__ for cls in KIND_CLASS.values()}


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_is_raised_as_its_kind(code: ErrorCode) -> None:
    err = make_error(code, "m")
    assert type(err) is error_class_for(code) is KIND_CLASS[ERROR_TABLE[code].kind]
    assert type(from_body(err.to_body())) is type(err)  # the remote SDK rebuilds the same class


def test_the_source_never_raises_a_code_as_another_kind() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CLASSES):
                continue
            for kw in node.keywords:
                if kw.arg == "code" and isinstance(kw.value, ast.Attribute) and kw.value.attr in ErrorCode.__members__:
                    want = error_class_for(ErrorCode(kw.value.attr)).__name__
                    if want != node.func.id:
                        where = f"{path.relative_to(SRC)}:{node.lineno}"
                        wrong.append(f"{where} {node.func.id}(code={kw.value.attr}): {want}")
    assert not wrong, wrong
