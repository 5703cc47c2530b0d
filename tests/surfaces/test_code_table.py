"""The coverage table of error codes cannot rot: every code has a row, and the cases match it.

A new `ErrorCode` without a row fails here; so does a row claiming a surface no case drives, a
case driving a surface the row exempts, or an exemption without its reason.
"""

from __future__ import annotations

from gno.errors import ERROR_TABLE, ErrorCode

from . import (
    test_contract,
    test_contract_cli_only,
    test_contract_codes,
    test_contract_http,
    test_contract_requests,
    test_contract_service,
)
from .code_table import ALL, TABLE, pairs
from .drive import DRIVEN

CASE_MODULES = (
    test_contract_codes,
    test_contract_cli_only,
    test_contract_http,
    test_contract_requests,
    test_contract_service,
)


def _driven() -> set[tuple[ErrorCode, str]]:
    """Every (code, surface) some contract case runs: this package's modules and the input table."""
    assert all(m.__name__ for m in CASE_MODULES)  # imported: their cases registered in DRIVEN
    inputs = {(c.code, s) for c in test_contract.CASES for s in test_contract.SURFACES if s not in c.skip}
    return DRIVEN | inputs


def test_every_code_has_a_row() -> None:
    assert set(TABLE) == set(ErrorCode), sorted(set(ErrorCode) ^ set(TABLE))
    assert set(ERROR_TABLE) == set(ErrorCode)


def test_every_surface_is_driven_or_exempt_with_a_reason() -> None:
    for code, row in TABLE.items():
        assert not set(row.covered) & set(row.exempt), code
        assert set(row.covered) | set(row.exempt) == set(ALL), (code, set(ALL) - set(row.covered) - set(row.exempt))
        assert all(reason.strip() and "\n" not in reason for reason in row.exempt.values()), code


def test_the_cases_drive_exactly_what_the_table_says() -> None:
    driven = _driven()
    assert not pairs() - driven, sorted(pairs() - driven)  # claimed, but no case runs it
    assert not driven - pairs(), sorted(driven - pairs())  # run, but the table calls it exempt


def test_every_code_is_driven_somewhere() -> None:
    assert {code for code, _ in _driven()} == set(ErrorCode)
