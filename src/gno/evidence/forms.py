"""Values with a form: what a sentence must contain to state a shortcut, a file, a port, a colour …

Some nouns a question asks for ("which *shortcut* …", "what *port* …", "which *environment variable*
…") name things that are written in a recognisable form: a key chord (`Ctrl-k`, `Cmd-Shift-p`,
`Alt-ArrowUp`), an upper-case identifier (`SB_INDEX_PAGE`), a file name with an extension
(`spaces.json`), a path or endpoint (`/space`, `/.runtime/lua`), a port number, a command-line flag
(`-p`, `--single`: "which *flag*", "which *switch*"), an option (a flag or a setting named in code:
`sync.ignore`), a command (a code span, a quoted `"Namespace: Name"`, a shell line). A sentence that
mentions "a custom keyboard shortcut" states no shortcut; one that says "press `Ctrl-k`" does. For
such a target the answer type is the form, and only a value of that form counts — a stricter check
than "some name or code span", and one that needs no vocabulary of the notes.

Values a sentence gives as an example of something else (`e.g. SB_PORT=1234`, "for example …")
are not stated as the answer: `examples_removed` drops them before any value is read.
"""

from __future__ import annotations

import re

from gno.evidence.passages import stem

_MOD = r"(?:ctrl|control|cmd|command|alt|option|opt|shift|meta|super|mod|win|fn)"
_KEY = r"(?:[a-z0-9]|f\d{1,2}|enter|return|tab|space|esc|escape|backspace|delete|del|home|end|insert|" \
    r"page ?up|page ?down|pgup|pgdn|arrow ?(?:up|down|left|right)|up|down|left|right|[,./;'\[\]\\=`-])"
KEY_CHORD_RE = re.compile(
    rf"(?<![\w-])({_MOD}(?:\s*[-+]\s*{_MOD})*\s*[-+]\s*{_KEY}(?:\s+(?:{_MOD}\s*[-+]\s*)?{_KEY}(?![\w-]))?)(?![\w])",
    re.I,
)
# one key written alone as code: "to `Cmd` on Mac", "press `Enter`"
SINGLE_KEY_RE = re.compile(rf"`({_MOD}|{_KEY})`", re.I)
ENV_RE = re.compile(r"(?<![\w$])([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,}[0-9]*)(?![\w])")
FILE_RE = re.compile(r"(?<![\w/.-])([\w.-]*\w\.(?:[a-z][a-z0-9]{0,5}))(?![\w/])")
PATH_RE = re.compile(r"(?<![\w])((?:\.{0,2}/|~/)[\w.-]+(?:/[\w.-]*)*|[\w.-]+/(?:[\w.-]+/?)*)(?![\w])")
NUMBER_RE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(?![\w])")
#: a command-line flag: `-p`, `--single`, tldr's `{{[-F|--fixed-strings]}}`; never a hyphenated word
FLAG_RE = re.compile(r"(?:^|(?<=[\s`\[|{(,=]))(--?[A-Za-z][\w-]*\w|-[A-Za-z])(?![\w-])")
#: a command as docs write it: a code span, a quoted name ("System: Reload"), or a line that is a shell
#: command (`./silverbullet upgrade`, `sb logs -f`: a lower-case program and its arguments, no prose)
CODE_SPAN_RE = re.compile(r"`([^`\n]{2,120})`|[\"“]([A-Z][\w ]*:[^\"”\n]{1,80})[\"”]")
SHELL_LINE_RE = re.compile(r"^(?:\$\s+)?((?:\./|~/|/)?[a-z][\w.-]*(?:\s+[^\s.,;]*[-\w./{}<>\[\]|\"'=:@~]+)+)\s*$")
SETTING_KEY_RE = re.compile(r"[A-Za-z_]\w*(?:[._-]\w+)+|[a-z]+(?:[A-Z][a-z0-9]*)+")
PORT_RE = re.compile(r"(?:(?<=:)|(?<=port )|(?<![\w.:]))(\d{2,5})(?![\w.])")
COLOURS = frozenset(
    "red green blue yellow orange purple violet pink black white grey gray brown cyan magenta teal".split()
)
# an example, not a statement: "e.g. `SB_PORT=1234`", "for example …" up to the clause's end
EXAMPLE_RE = re.compile(
    r"\b(?:e\.\s?g\.?|for example|for instance)[:,]?\s[^;,()—]*?(?=[;,()—]|\.\s|\.?$)"
    r"(?:,\s*(?:`[^`]*`|\"[^\"]*\"|\d[\w.%]*))*",
    re.I,
)

#: target head noun (stemmed) -> the name of its form
FORM_OF = {
    **dict.fromkeys(("shortcut", "hotkey", "keybind", "keystrok", "chord", "combination"), "key"),
    **dict.fromkeys(("variabl", "env"), "env"),
    **dict.fromkeys(("file", "filenam"), "file"),
    **dict.fromkeys(("folder", "directory", "dir", "path", "endpoint", "url", "route"), "path"),
    "port": "port",
    **dict.fromkeys(("flag", "switch"), "flag"),
    # an "option" is a flag on a command line or a named setting (`sync.ignore`, `readOnly`)
    "option": "option",
    "command": "command",
    **dict.fromkeys(("color", "colour"), "colour"),
}


def form_of(target: tuple[str, ...]) -> str | None:
    """The form the target's head noun is written in ("keyboard shortcut" → `key`), else None."""
    if not target:
        return None
    head = target[-1].lower()
    form = FORM_OF.get(stem(head)) or FORM_OF.get(head)
    if form is None and head == "key" and len(target) == 1:
        return "key"  # "which key …": a key, not a cryptographic one ("key derivation function" ends elsewhere)
    return form


def examples_removed(text: str) -> str:
    return EXAMPLE_RE.sub(" ", text)


def formed_values(text: str, form: str, question: str) -> list[str]:
    """The values of `form` that `text` states (outside examples) and the question does not contain."""
    body = examples_removed(text)
    asked = question.lower()
    if form == "key":
        found = [m.group(1) for m in KEY_CHORD_RE.finditer(body)]
        found += [m.group(1) for m in SINGLE_KEY_RE.finditer(body) if len(m.group(1)) > 1]
        # a chord on a modifier the question names ("what does `Mod` stand for": `Mod-.`) restates its term
        named = {w.lower() for w in re.findall(rf"\b{_MOD}\b", question, re.I)}
        found = [v for v in found if not {p.lower() for p in re.split(r"[-+\s]+", v)} & named]
    elif form == "env":
        found = [m.group(1) for m in ENV_RE.finditer(body) if "_" in m.group(1) or f"`{m.group(1)}" in body]
    elif form == "file":
        found = [m.group(1) for m in FILE_RE.finditer(body) if not re.fullmatch(r"[\d.]+|e\.g|i\.e", m.group(1))]
    elif form == "path":
        found = [m.group(1) for m in PATH_RE.finditer(body) if re.search(r"[a-z]", m.group(1), re.I)]
    elif form == "flag":
        found = [m.group(1) for m in FLAG_RE.finditer(body)]
        # a flag the question writes restates it; `-l` inside its "command-line" is none (whole tokens only)
        return [v for v in found if not re.search(rf"(?<![\w-]){re.escape(v.lower())}(?![\w-])", asked)]
    elif form == "option":
        found = formed_values(text, "flag", question)
        # a setting is named in code as a compound key (`sync.ignore`, `read_only`, `readOnly`); a plain
        # word in a code span (`stdout`, `3xx`) names a stream or a value, not a setting
        found += [v for v in re.findall(r"`([A-Za-z_][\w.-]*)`", body) if SETTING_KEY_RE.fullmatch(v)]
    elif form == "command":
        found = [m.group(1) or m.group(2) for m in CODE_SPAN_RE.finditer(body)]
        # a shell line writes a path, a flag or a placeholder somewhere: "and then run it" is prose
        found += [m.group(1) for m in SHELL_LINE_RE.finditer(body.strip()) if re.search(r"[-./{}<>=@~|]", m.group(1))]
    elif form == "port":
        found = [m.group(1) for m in PORT_RE.finditer(body) if 1 <= int(m.group(1)) <= 65535]
    elif form == "colour":
        found = [w for w in re.findall(r"[a-z]+", body.lower()) if w in COLOURS]
    else:
        return []
    return [v for v in found if v.lower() not in asked]
