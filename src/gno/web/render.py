"""A note as HTML for the Web UI's document view, rendered on the server with markdown-it-py.

Notes are written in the CommonMark dialect of Obsidian-style vaults, so the renderer is
markdown-it-py (CommonMark, tables, strikethrough) with mdit-py-plugins (footnotes, task lists,
front matter, heading anchors), plus the vault syntax no plugin covers, each a small markdown-it
rule here:

- `[[Note]]`, `[[Note|label]]`, `[[Note#Heading]]`, `[[#Heading]]`, `[[Note#^block]]`: links,
  resolved through the index's own link graph (the same resolution as `gno links`); a target
  the index does not know links to a search for it;
- `![[Note#^block]]` embeds: a link card to what is embedded (nothing is fetched or inlined);
- `^block-id` at the end of a paragraph or list item: that element's id, so a block reference
  scrolls to it;
- `==highlight==`: `<mark>`;
- callouts, `> [!tip] Title` (`-` folded, `+` open): a titled box (`<details>` when foldable).

Safety: raw HTML in a note is shown as text (`html: False`), a link keeps only the schemes
http, https, mailto and gno:// or a path inside the collection, and images become links (the
page's Content-Security-Policy loads nothing from elsewhere anyway).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml as escape
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
BLOCK_ID_RE = re.compile(r"(?:^|\s)\^([A-Za-z0-9][A-Za-z0-9-]*)\s*$")
CALLOUT_RE = re.compile(r"^\[!([A-Za-z][\w-]*)\]([+-]?)[ \t]*(.*)$")
SAFE_SCHEME_RE = re.compile(r"^(?:https?:|mailto:)", re.I)
ANY_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    id: str


@dataclass(frozen=True)
class Rendered:
    html: str
    headings: list[Heading]


def slug(text: str) -> str:
    """A heading's id (the anchors plugin's slug, so `[[#Heading]]` finds it)."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def doc_href(uri: str, fragment: str = "") -> str:
    return "/doc?uri=" + quote(uri, safe="") + (f"#{quote(fragment, safe='^')}" if fragment else "")


def _search_href(words: str) -> str:
    return "/search?q=" + quote(words, safe="")


class _Context:
    """What resolving a link needs: the document's place and the link graph's targets."""

    def __init__(self, collection: str, rel_path: str, targets: Mapping[str, str]) -> None:
        self.collection = collection
        self.folder = rel_path.rsplit("/", 1)[0] if "/" in rel_path else ""
        self.targets = {k.lower(): v for k, v in targets.items()}

    def wiki(self, target: str) -> str | None:
        name = target.strip().lower()
        return self.targets.get(name) or self.targets.get(name.removesuffix(".md"))

    def relative(self, href: str) -> str | None:
        """A markdown link's href as a document link (`other.md` → `/doc?uri=gno://coll/…`)."""
        from posixpath import normpath
        from urllib.parse import unquote

        path, _, fragment = href.partition("#")
        joined = normpath(f"{self.folder}/{unquote(path)}" if self.folder else unquote(path))
        if joined.startswith(("..", "/")):
            return None
        return doc_href(f"gno://{self.collection}/{quote(joined)}", fragment)


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[…]]` and `![[…]]` as one `wikilink` token (meta: target, fragment, label, embed)."""
    src, pos = state.src, state.pos
    if src[pos] not in "![" or not (m := WIKI_RE.match(src, pos)):
        return False
    if not silent:
        target, _, label = m.group(2).partition("|")
        name, _, fragment = target.partition("#")
        token = state.push("wikilink", "a", 0)
        token.meta = {
            "target": name.strip(),
            "fragment": fragment.strip(),
            "label": label.strip(),
            "embed": bool(m.group(1)),
        }
    state.pos = m.end()
    return True


def _highlight_rule(state: StateInline, silent: bool) -> bool:
    """`==text==` (on one line, not `== x ==`) as `<mark>`, its inside parsed as inline markdown."""
    src, start = state.src, state.pos
    if not src.startswith("==", start) or start + 2 >= state.posMax or src[start + 2] in " \n=":
        return False
    end = src.find("==", start + 2, state.posMax)
    if end < 0 or "\n" in src[start:end] or src[end - 1] == " ":
        return False
    if not silent:
        old_max = state.posMax
        state.push("mark_open", "mark", 1)
        state.pos, state.posMax = start + 2, end
        state.md.inline.tokenize(state)
        state.push("mark_close", "mark", -1)
        state.posMax = old_max
    state.pos = end + 2
    return True


def _callouts(state: StateCore) -> None:
    """`> [!type]± title` blockquotes become callouts (before inline parsing: edits the text)."""
    tokens = state.tokens
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type != "blockquote_open" or i + 2 >= len(tokens) or tokens[i + 2].type != "inline":
            i += 1
            continue
        inline = tokens[i + 2]
        first, _, rest = inline.content.partition("\n")
        m = CALLOUT_RE.match(first.strip())
        if m is None:
            i += 1
            continue
        kind, fold, title = m.group(1).lower(), m.group(2), m.group(3).strip() or m.group(1).capitalize()
        box, head = ("details", "summary") if fold else ("div", "p")
        ends = (j for j in range(i + 1, len(tokens)) if tokens[j].type == "blockquote_close")
        close = next(j for j in ends if tokens[j].level == tok.level)
        tok.tag, tokens[close].tag = box, box
        tok.attrSet("class", f"callout callout-{kind}")
        tok.attrSet("data-callout", kind)
        if fold == "+":
            tok.attrSet("open", "open")
        title_open = Token("callout_title_open", head, 1, level=tok.level + 1)
        title_open.attrSet("class", "callout-title")
        title_inline = Token("inline", "", 0, level=tok.level + 2, content=title, children=[])
        title_close = Token("callout_title_close", head, -1, level=tok.level + 1)
        inline.content = rest
        if not rest.strip():  # the title line was the whole first paragraph
            del tokens[i + 1 : i + 4]
        tokens[i + 1 : i + 1] = [title_open, title_inline, title_close]
        i += 1


def _block_ids(state: StateCore) -> None:
    """`… ^id` ending a paragraph: the id moves onto the paragraph (or its list item)."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or "^" not in tok.content or not (m := BLOCK_ID_RE.search(tok.content)):
            continue
        tok.content = tok.content[: m.start()].rstrip()
        holder = tokens[i - 1] if i else None
        if i >= 2 and tokens[i - 2].type == "list_item_open":
            holder = tokens[i - 2]
        if holder is not None:
            holder.attrSet("id", f"^{m.group(1)}")


class _Markdown(MarkdownIt):
    def validateLink(self, url: str) -> bool:  # noqa: N802 - markdown-it's name
        """A path, or one of the schemes a note may link to (not javascript:, data:, file:, …)."""
        return not ANY_SCHEME_RE.match(url) or bool(SAFE_SCHEME_RE.match(url) or url.lower().startswith("gno://"))


def build(ctx: _Context) -> MarkdownIt:
    md = _Markdown("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(tasklists_plugin)
    md.use(anchors_plugin, min_level=1, max_level=6, slug_func=slug)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.before("emphasis", "highlight", _highlight_rule)
    md.core.ruler.before("inline", "callouts", _callouts)
    md.core.ruler.before("inline", "block_ids", _block_ids)

    def wikilink(_self: object, tokens: list[Token], idx: int, _opts: object, _env: object) -> str:
        meta = tokens[idx].meta
        target, fragment, label = meta["target"], meta["fragment"], meta["label"]
        anchor = fragment if fragment.startswith("^") else slug(fragment) if fragment else ""
        shown = label or (f"{target} › {fragment}" if target and fragment else target or fragment)
        if not target:
            href, cls, nav = f"#{quote(anchor, safe='^')}", "wikilink", ""
        elif (uri := ctx.wiki(target)) is not None:
            href, cls, nav = doc_href(uri, anchor), "wikilink", " data-nav"
        else:
            href, cls, nav = _search_href(target), "wikilink missing", " data-nav"
        a = f'<a class="{cls}" href="{escape(href)}"{nav}>{escape(shown)}</a>'
        return f'<span class="embed">Embedded: {a}</span>' if meta["embed"] else a

    def link_open(renderer: RendererHTML, tokens: list[Token], idx: int, opts: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        href = str(tok.attrGet("href") or "")
        if href.lower().startswith("gno://"):
            tok.attrSet("href", doc_href(href))
            tok.attrSet("data-nav", "")
        elif SAFE_SCHEME_RE.match(href):
            tok.attrSet("target", "_blank")
            tok.attrSet("rel", "noopener noreferrer")
        elif not href.startswith("#") and not href.startswith("/"):
            local = ctx.relative(href)
            tok.attrSet("href", local or "#")
            if local:
                tok.attrSet("data-nav", "")
        return renderer.renderToken(tokens, idx, opts, env)

    def image(_self: object, tokens: list[Token], idx: int, _opts: object, _env: object) -> str:
        tok = tokens[idx]
        alt = escape(tok.content or str(tok.attrGet("src") or "image"))
        src = str(tok.attrGet("src") or "")
        if SAFE_SCHEME_RE.match(src):  # a link to it: the page loads nothing from elsewhere
            return f'<a class="image" href="{escape(src)}" target="_blank" rel="noopener noreferrer">{alt}</a>'
        return f'<span class="image">{alt}</span>'

    md.add_render_rule("wikilink", wikilink)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    return md


def render_note(content: str, *, collection: str, rel_path: str, targets: Mapping[str, str]) -> Rendered:
    """The note's HTML and its headings (for the outline); `targets`: wiki target → document uri."""
    md = build(_Context(collection, rel_path, targets))
    tokens = md.parse(content)
    headings: list[Heading] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and i + 1 < len(tokens):
            words = "".join(c.content for c in tokens[i + 1].children or [] if c.type in ("text", "code_inline"))
            headings.append(Heading(int(tok.tag[1]), words or tokens[i + 1].content, str(tok.attrGet("id") or "")))
    return Rendered(md.renderer.render(tokens, md.options, {}), headings)
