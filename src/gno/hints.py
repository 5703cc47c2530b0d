"""Context hints: short texts the user attaches to the whole index, a collection or a path prefix.

A hint says what a part of the vault *is* ("meeting notes of the platform team, newest first";
"vendored manuals, not our decisions"). It is configuration the user wrote, so it is trusted, but
it is never evidence: results carry the hints that apply to them (`context`, ordered global →
collection → path prefixes from broad to specific), Capsules list them apart from the evidence
(`guidance.configuredContexts`, each evidence item naming the ids that apply), and `ask` hands them
to its answerer as configuration that is never cited.

Scopes, as typed and as stored in `index.yml` (`contexts: [{scopeType, scopeKey, text}]`):

- `/`: every document (`global`);
- `name:`: every document of collection `name` (`collection`);
- `gno://name/some/folder`: documents at or below that path of the collection (`prefix`;
  segment-aware: `gno://notes/proj` covers `proj/a.md` and `proj.md`'s siblings never, and
  `project/x.md` never).

This module is pure: parsing, matching and the wire models. Reading and writing the config is
`gno.hint_admin`; how hints weigh in ranking is `gno.retrieve.hint_prior`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gno.errors import ErrorCode, ValidationError
from gno.models import ContextHint, GnoModel
from gno.refs import URI_SCHEME, make_uri, parse_uri

if TYPE_CHECKING:
    from gno.models import SearchResult

ScopeType = Literal["global", "collection", "prefix"]
GLOBAL_KEY = "/"
#: a hint is a sentence or a short paragraph, not a document
MAX_TEXT = 2000
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_ORDER = {"global": 0, "collection": 1, "prefix": 2}


def _scope_error(scope: str, why: str) -> ValidationError:
    return ValidationError(
        f"invalid context scope {scope!r}: {why}; use `/` (everything), `NAME:` (a collection) or "
        "`gno://NAME/path` (a folder or file prefix)",
        code=ErrorCode.CONTEXT_SCOPE_INVALID,
        details={"scope": scope},
    )


def parse_scope(scope: str) -> tuple[ScopeType, str]:
    """The scope type and its normalised key: `/`, `name:` or `gno://name/path` (no trailing `/`)."""
    s = scope.strip()
    if s == GLOBAL_KEY:
        return "global", GLOBAL_KEY
    if s.lower().startswith(URI_SCHEME):
        try:
            coll, path = parse_uri(URI_SCHEME + s[len(URI_SCHEME) :])
        except ValidationError:
            raise _scope_error(scope, "the URI names no collection") from None
        if not _NAME_RE.match(coll):
            raise _scope_error(scope, f"{coll!r} is not a collection name")
        parts = [p for p in path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise _scope_error(scope, "`.` and `..` are not path segments of a URI")
        return "prefix", make_uri(coll, "/".join(parts)).rstrip("/")
    if s.endswith(":") and _NAME_RE.match(s[:-1].lower()):
        return "collection", s[:-1].lower() + ":"
    if not s:
        raise _scope_error(scope, "it is empty")
    raise _scope_error(scope, "not a scope")


def check_text(text: str) -> str:
    """The hint text, stripped; CONTEXT_TEXT_INVALID when empty or longer than `MAX_TEXT`."""
    t = text.strip()
    if not t or len(t) > MAX_TEXT:
        why = "is empty" if not t else f"is {len(t)} characters (at most {MAX_TEXT})"
        raise ValidationError(
            f"context text {why}: a hint is a sentence or two saying what the scope holds",
            code=ErrorCode.CONTEXT_TEXT_INVALID,
            details={"length": len(t), "max": MAX_TEXT},
        )
    return t


class HintConfig(BaseModel):
    """One entry of `index.yml` `contexts`."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid", defer_build=True, frozen=True)

    scope_type: ScopeType = Field(alias="scopeType")
    scope_key: str = Field(alias="scopeKey")
    text: str

    @model_validator(mode="after")
    def _consistent(self) -> HintConfig:
        try:  # a hand-edited entry is held to the typed form (CONFIG_INVALID with its line)
            kind, key = parse_scope(self.scope_key)
            check_text(self.text)
        except ValidationError as err:
            raise ValueError(err.message) from None
        if kind != self.scope_type or key != self.scope_key:
            raise ValueError(f"scopeKey {self.scope_key!r} is a {kind} scope written {key!r}")
        return self

    @property
    def context_id(self) -> str:
        raw = "\0".join((self.scope_type, self.scope_key, self.text))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]

    @property
    def collection(self) -> str | None:
        """The collection the scope lies in (None for the global scope)."""
        if self.scope_type == "global":
            return None
        if self.scope_type == "collection":
            return self.scope_key[:-1]
        return parse_uri(self.scope_key)[0]

    @property
    def path(self) -> str:
        """A prefix scope's decoded path inside its collection ('' for the whole collection)."""
        return parse_uri(self.scope_key)[1] if self.scope_type == "prefix" else ""

    def applies(self, collection: str, rel_path: str) -> bool:
        if self.scope_type == "global":
            return True
        if self.collection != collection:
            return False
        p = self.path
        return not p or rel_path == p or rel_path.startswith(p + "/")

    def to_yaml_dict(self) -> dict[str, Any]:
        return {"scopeType": self.scope_type, "scopeKey": self.scope_key, "text": self.text}


def matching(hints: Sequence[HintConfig], collection: str, rel_path: str) -> list[HintConfig]:
    """The hints of one document: global, then collection, then prefixes broad to specific; a text
    already given by a broader scope is not repeated."""
    found = [h for h in hints if h.applies(collection, rel_path)]
    found.sort(key=lambda h: (_ORDER[h.scope_type], len(h.path.split("/")) if h.path else 0))
    seen: set[str] = set()
    out = []
    for h in found:
        if h.text not in seen:
            seen.add(h.text)
            out.append(h)
    return out


def texts_for(hints: Sequence[HintConfig], collection: str, rel_path: str) -> list[str] | None:
    """The `context` of a hit: its hints' texts in order, or None (no field) when none applies."""
    return [h.text for h in matching(hints, collection, rel_path)] or None


def in_scope(hints: Sequence[HintConfig], collections: Iterable[str]) -> list[HintConfig]:
    """The hints that can apply to documents of `collections` (all when empty)."""
    want = set(collections)
    return [h for h in hints if h.collection is None or not want or h.collection in want]


def hint_configs(wired: Sequence[dict[str, str]]) -> list[HintConfig]:
    """Hints back from their wire form (a Capsule's `configuredContexts`)."""
    return [HintConfig(scopeType=w["scopeType"], scopeKey=w["scopeKey"], text=w["text"]) for w in wired]  # type: ignore[arg-type]


# -- wire models -------------------------------------------------------------------------------------
def wire_hint(h: HintConfig) -> ContextHint:
    return ContextHint(context_id=h.context_id, scope_type=h.scope_type, scope_key=h.scope_key, text=h.text)


class ContextList(GnoModel):
    contexts: list[ContextHint]


class ContextAddResult(GnoModel):
    context: ContextHint
    #: False when the scope already held exactly this text (nothing was written)
    added: bool


class ContextRemoved(GnoModel):
    scope_key: str
    removed: list[ContextHint]


class ContextWarning(GnoModel):
    context_id: str
    scope_key: str
    code: str  # unknown_collection | no_documents
    message: str


class ContextCheckResult(GnoModel):
    ok: bool
    contexts: int
    warnings: list[ContextWarning]


# -- hints on results --------------------------------------------------------------------------------
def attach(result: SearchResult, hints: Sequence[HintConfig]) -> SearchResult:
    """Each hit of a vsearch/query result carries the hints that apply to its document."""
    for hit in result.results if hints else ():
        hit.context = texts_for(hints, hit.collection, hit.rel_path)
    return result


def attach_page(page: Any, hints: Sequence[HintConfig]) -> Any:
    """`attach` for the plain-data page of `search` (`gno.retrieve.search.SearchPage`, not imported:
    the config imports this module, and core layers below retrieval read the config)."""
    if not hints:
        return page
    hits = [h._replace(context=texts_for(hints, h.collection, h.rel_path)) for h in page.results]
    return page._replace(results=hits)
