"""What ingestion records about a file or folder it could not take in as it is.

One table of ingest codes and their severity, shared by `update` (its counts) and `status`
(its listing), so both always say the same thing. Errors mean something the user asked to be
indexed is not (or not in its current version); warnings mean it was skipped by rule or
indexed with a caveat.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

Severity = Literal["error", "warning"]


class IngestCode(StrEnum):
    # errors
    READ_FAILED = "READ_FAILED"
    PARSE_FAILED = "PARSE_FAILED"
    COLLECTION_PATH_MISSING = "COLLECTION_PATH_MISSING"
    # warnings
    FRONTMATTER_INVALID = "FRONTMATTER_INVALID"
    ENCODING_FALLBACK = "ENCODING_FALLBACK"
    NOT_TEXT = "NOT_TEXT"
    FOLDER_UNREADABLE = "FOLDER_UNREADABLE"
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    NOT_A_FILE = "NOT_A_FILE"
    PATH_OUTSIDE_COLLECTION = "PATH_OUTSIDE_COLLECTION"


ERRORS = frozenset({IngestCode.READ_FAILED, IngestCode.PARSE_FAILED, IngestCode.COLLECTION_PATH_MISSING})


def severity(code: str) -> Severity:
    """Unknown codes (from an older index) count as errors: never hide a problem."""
    try:
        return "error" if IngestCode(code) in ERRORS else "warning"
    except ValueError:
        return "error"
