"""Which suffix decides how a file is read: the one answer, without the converter registry.

`extension` and `NATIVE_EXTENSIONS` live apart from `gno.ingest.converters` so that a read that
only asks "is this markdown?" (a cold `gno get`) does not load the registry, which reads package
metadata; the converters module re-exports both.
"""

from __future__ import annotations

#: the extensions read as they are (markdown and plain text), never through a converter
NATIVE_EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".txt"})


def extension(rel_path: str) -> str:
    """The file name's last suffix, lower-cased (`.pdf`); "" for none or a dotfile. The one answer to
    "which converter, if any, reads this file" starts here."""
    name = rel_path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""
