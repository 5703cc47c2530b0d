"""The gno protocol block: its text, its stamp, and the marker grammar around it.

The block is how the retrieval ladder and the writing contract reach an agent: a short,
marker-bounded section inside a harness's global instruction file (CLAUDE.md, AGENTS.md, …),
next to the user's own rules. Everything here is pure text work so the installer can plan a
change, show it (`--dry-run`) and only then write:

- `BODY` is the protocol itself (under 1,500 characters: the retrieval ladder and the writing
  contract). Its SHA-256 prefix goes into the stamp line, so `verify` can tell a
  current block from an older version or a hand-edited one without guessing.
- `find_block` locates the block and fails closed on anything ambiguous (a begin without an
  end, two begins, an end before its begin): rewriting a file we cannot parse could destroy the
  user's text, so we refuse and name the file instead.
- `insert_block` / `remove_block` are exact inverses: text outside the markers is never touched,
  the file's line endings are kept, and the one blank line the installer adds is the one the
  uninstaller removes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gno.errors import ValidationError

BEGIN = "<!-- gno:agents:begin -->"
END = "<!-- gno:agents:end -->"
VERSION = 3
STAMP_PREFIX = "<!-- gno-agents block v"

#: The protocol (LF line endings; rendered with the target file's own line ending).
BODY = """\
## gno knowledge protocol

Indexed notes are the source of truth. Scope with `--collection` before rephrasing; cite by `gno://` URI.

Retrieval ladder (cheapest first; stop once answered):
1. Exact term, name, quote, error: `gno search "<text>"`
2. What do we know or believe about X: `gno recall "<query>" --scope <scope>`
3. A known entity or document: `gno query "<question>" --fast -n 10`
4. Evidence across documents for one goal: `gno context build "<goal>" --budget 12000`
5. What changed or depends on it: `gno changes`, `gno diff <doc>`, `gno impact <doc>`
6. A generated answer: `gno ask "<question>" --verify` (an abstention is a valid result)
7. An expected document is missing: `gno query diagnose "<query>" --target <doc>`, before any grep

Writing contract (retrieve first; answering a question never writes):
- An existing note is wrong or incomplete: edit the canonical file in place.
- A genuinely new note (meeting, idea, source): `gno capture`.
- One standalone fact: `gno remember "<fact>" --scope <scope>` only proposes. Decide from a recall:
  `--add`, or `--supersede <uri> --predecessor-hash <hash>`, and pass the saved recall back with
  `--receipt <recall.json>` so a recalled span is never stored as a new fact.
- After a write: reindex (`gno update`; not needed while `gno daemon`/`serve` runs), then verify.

Load the `gno` skill for workflows and memory recipes.
"""


def body_hash(body: str = BODY) -> str:
    """First 16 hex of SHA-256 over the LF body: the version fingerprint in the stamp."""
    return hashlib.sha256(body.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def stamp(body: str = BODY) -> str:
    return f"{STAMP_PREFIX}{VERSION} sha256:{body_hash(body)} -->"


def render_block(newline: str = "\n", body: str = BODY) -> str:
    """The whole block, markers included, without a trailing line ending."""
    lines = [BEGIN, stamp(body), *body.rstrip("\n").split("\n"), END]
    return newline.join(lines)


def detect_newline(text: str) -> str:
    """The file's line ending: CRLF when it has any, else LF (a new file gets LF)."""
    return "\r\n" if "\r\n" in text else "\n"


@dataclass(frozen=True)
class BlockSpan:
    """Where the block sits: `start` is its first character (the begin marker's line start);
    `end` is just past the end marker (its line ending, if any, is not included)."""

    start: int
    end: int

    def text(self, content: str) -> str:
        return content[self.start : self.end]


def malformed(path: Path | str, problem: str) -> ValidationError:
    return ValidationError(
        f"malformed gno block in {path}: {problem}; fix or remove the "
        f"{BEGIN} … {END} lines by hand, then run the command again",
        details={"file": str(path), "problem": problem},
    )


def find_block(content: str, path: Path | str) -> BlockSpan | None:
    """Locate the one block; None when there is none; ValidationError when ambiguous."""
    begins = _positions(content, BEGIN)
    ends = _positions(content, END)
    if not begins and not ends:
        return None
    if len(begins) > 1:
        return _raise(path, f"{len(begins)} begin markers")
    if len(ends) > 1:
        return _raise(path, f"{len(ends)} end markers")
    if not ends:
        return _raise(path, "a begin marker without an end marker")
    if not begins:
        return _raise(path, "an end marker without a begin marker")
    if ends[0] < begins[0]:
        return _raise(path, "the end marker comes before the begin marker")
    start = content.rfind("\n", 0, begins[0]) + 1
    if content[start : begins[0]].strip():
        return _raise(path, "the begin marker does not start its line")
    end = ends[0] + len(END)
    rest = content[end : _line_end(content, end)]
    if rest.strip():
        return _raise(path, "text follows the end marker on its line")
    return BlockSpan(start, end + len(rest))


def _raise(path: Path | str, problem: str) -> BlockSpan:
    raise malformed(path, problem)


def _positions(content: str, marker: str) -> list[int]:
    out: list[int] = []
    i = content.find(marker)
    while i != -1:
        out.append(i)
        i = content.find(marker, i + len(marker))
    return out


def _line_end(content: str, pos: int) -> int:
    """Index of the line ending (`\\r\\n` or `\\n`) after `pos`, or len(content)."""
    nl = content.find("\n", pos)
    if nl == -1:
        return len(content)
    return nl - 1 if nl > pos and content[nl - 1] == "\r" else nl


def insert_block(content: str, path: Path | str) -> str:
    """`content` with the current block: replaced in place, or appended after one blank line.

    Appending keeps the file's own "ends with a newline" property: `abc\\n` becomes
    `abc\\n\\n<block>\\n` and `abc` becomes `abc\\n\\n<block>`, so `remove_block` can restore
    either byte for byte.
    """
    nl = detect_newline(content)
    block = render_block(nl)
    span = find_block(content, path)
    if span is not None:
        return content[: span.start] + block + content[span.end :]
    if not content:
        return block + nl
    if content.endswith("\n"):
        last = "\r\n" if content.endswith("\r\n") else "\n"  # the blank line matches the last line's ending
        return content + last + block + nl
    return content + nl + nl + block


def remove_block(content: str, path: Path | str) -> str | None:
    """`content` without the block and the one blank line `insert_block` put before it.

    None when there is no block. The block's own line ending goes with it; a blank line just
    above it goes too (it is the separator the installer added).
    """
    span = find_block(content, path)
    if span is None:
        return None
    before, after = content[: span.start], content[span.end :]
    if after.startswith("\r\n"):
        after = after[2:]
    elif after.startswith("\n"):
        after = after[1:]
    elif before.endswith(("\n\n", "\r\n\r\n")):
        # block at end of a file without a final newline: drop the two separators we added
        before = before[:-4] if before.endswith("\r\n\r\n") else before[:-2]
        return before + after
    for blank in ("\r\n\r\n", "\n\n"):
        if before.endswith(blank):
            before = before[: -len(blank) // 2]
            break
    return before + after


def block_state(content: str, path: Path | str) -> tuple[str, str]:
    """(state, detail) of the block in `content`: current | outdated | missing.

    Malformed markers raise (see `find_block`). The comparison ignores line endings, so a
    block in a CRLF file is as current as the same block in an LF file.
    """
    span = find_block(content, path)
    if span is None:
        return "missing", "no gno block"
    found = span.text(content).replace("\r\n", "\n")
    if found == render_block("\n"):
        return "current", f"v{VERSION} sha256:{body_hash()}"
    lines = found.split("\n")
    stamp_line = lines[1].strip() if len(lines) > 1 else ""
    if stamp_line.startswith(STAMP_PREFIX) and stamp_line != stamp():
        return "outdated", f"older block ({stamp_line[5:-4].strip()}); current is v{VERSION} sha256:{body_hash()}"
    return "outdated", "the block differs from the current text (edited by hand?)"
