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
    # documents that are not markdown (converted to a markdown mirror)
    CONVERTER_MISSING = "CONVERTER_MISSING"  # a known format whose converter's extra is not installed
    ENCRYPTED = "ENCRYPTED"  # password-protected: skipped
    CONVERT_FAILED = "CONVERT_FAILED"  # corrupt, or the converter crashed: skipped
    CONVERT_TIMEOUT = "CONVERT_TIMEOUT"  # over the time budget: stopped and skipped
    CONVERT_TOO_LARGE = "CONVERT_TOO_LARGE"  # over the size or memory budget: skipped
    CONVERT_TRUNCATED = "CONVERT_TRUNCATED"  # indexed, the mirror cut at the budget
    NO_TEXT = "NO_TEXT"  # indexed empty (by name): e.g. a scan with no text layer


ERRORS = frozenset({IngestCode.READ_FAILED, IngestCode.PARSE_FAILED, IngestCode.COLLECTION_PATH_MISSING})


def severity(code: str) -> Severity:
    """Unknown codes (from an older index) count as errors: never hide a problem."""
    try:
        return "error" if IngestCode(code) in ERRORS else "warning"
    except ValueError:
        return "error"
