// gno Web UI: a dependency-free single-page app over gno's REST API.
//
// Why this shape: no build step and no network, so the whole UI is this file, app.css and
// index.html, served by `gno serve`. Every read and write goes through the public /api routes
// (same security middleware, same error envelope {error: {code, message}}); the two helpers
// the helpers
// under /api/web/ are read-only. User text is only ever inserted with textContent, except the
// rendered markdown, built on the server by markdown-it-py with the note's own HTML escaped.
"use strict";

(() => {
  const main = document.getElementById("main");
  const form = document.getElementById("search-form");
  const q = document.getElementById("q");
  const modeSel = document.getElementById("mode");
  const collSel = document.getElementById("collection");
  const tagsIn = document.getElementById("tags");
  const flashBox = document.getElementById("flash");
  let seq = 0; // navigation counter: a slow response never paints over a newer page
  let currentKey = "";
  let collections = null;
  let dirty = false;

  // -- helpers -------------------------------------------------------------------------------
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return node;
  }

  class ApiError extends Error {
    constructor(status, body) {
      const err = (body && body.error) || {};
      super(err.message || `HTTP ${status}`);
      this.status = status;
      this.code = err.code || "HTTP_" + status;
      this.details = err.details || {};
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }

  function docHref(uri) { return "/doc?uri=" + encodeURIComponent(uri); }
  function editHref(uri) { return "/edit?uri=" + encodeURIComponent(uri); }
  function searchHref(params) { return "/search?" + new URLSearchParams(params).toString(); }

  function flash(text, kind) {
    flashBox.textContent = text;
    flashBox.className = "flash " + (kind || "ok");
    flashBox.hidden = false;
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => { flashBox.hidden = true; }, 5000);
  }

  function notice(err, kind) {
    const text = err instanceof ApiError ? `${err.code}: ${err.message}` : String(err.message || err);
    return el("div", { class: "notice " + (kind || "error"), role: "alert", text });
  }

  function page(title, ...kids) {
    document.title = title ? `${title} · gno` : "gno";
    main.replaceChildren(...kids.filter((k) => k !== null && k !== undefined && k !== false));
  }

  // A URI as people read it (`Linking notes.md`, not `Linking%20notes.md`); links and Copy keep it exact.
  function shownUri(uri) {
    try { return decodeURI(uri); } catch (_) { return uri; }
  }

  // A snippet is the note's own text; shown as it reads: `[[Note|label]]` → label, `[[Note#Part]]`
  // → Note › Part, no heading hashes, quote or callout markers, highlight or emphasis marks.
  function readable(snippet) {
    return String(snippet)
      .replace(/!?\[\[([^\[\]|\n]*?)(?:\|([^\[\]\n]*))?\]\]/g, (_, target, label) =>
        (label || target.replace(/^#\^?/, "").replace(/#\^?/, " › ")).trim())
      .replace(/!?\[\[([^\[\]|\n`]+)(?:\|([^\[\]\n]*))?(…?)$/gm, (_, target, label, cut) => (label || target) + cut) // cut short
      .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, "")
      .replace(/^[ \t]{0,3}(?:>[ \t]?)+(?:\[![\w-]+\][+-]?[ \t]*)?/gm, "")
      .replace(/==([^=\n]+)==/g, "$1")
      .replace(/\*\*([^*\n]+)\*\*/g, "$1");
  }

  function tagChip(tag, on, onclick) {
    return el("button", { type: "button", class: "tag" + (on ? " on" : ""), text: "#" + tag, onclick });
  }

  let collectionsPromise = null;
  function loadCollections() {
    // one request shared by every caller; a failed or invalidated load is retried next time
    if (collections) return Promise.resolve(collections);
    if (!collectionsPromise) {
      collectionsPromise = api("GET", "/api/collections").then((data) => {
        collections = data.collections || [];
        const keep = collSel.value;
        collSel.replaceChildren(el("option", { value: "", text: "All collections" }),
          ...collections.map((c) => el("option", { value: c.name, text: c.name })));
        collSel.value = keep;
        return collections;
      }).finally(() => { collectionsPromise = null; });
    }
    return collectionsPromise;
  }

  // -- pages ---------------------------------------------------------------------------------
  function renderHome() {
    page("", el("section", { class: "empty" },
      el("h1", { text: "Search your notes" }),
      el("p", {}, "Press ", el("kbd", { text: "/" }), " to search, or ",
        el("a", { href: "/browse", "data-nav": true, text: "browse the collections" }), ".")));
  }

  function searchParams(params) {
    const n = Math.min(50, Math.max(1, Number(params.get("n")) || 10)); // 10 first, like `gno search`
    return { q: params.get("q") || "", mode: params.get("mode") || "lexical",
      c: params.get("c") || "", tags: params.get("tags") || "", n };
  }

  async function renderSearch(params, my) {
    const p = searchParams(params);
    q.value = p.q; modeSel.value = p.mode; tagsIn.value = p.tags;
    collSel.value = p.c;
    if (p.c && collSel.value !== p.c) loadCollections().then(() => { collSel.value = p.c; }).catch(() => null);
    if (!p.q.trim()) {
      if (!p.tags) return renderHome();
      page("Search", el("section", { class: "empty" }, el("h1", { text: "Tag filter: " + p.tags }),
        el("p", {}, "Type a query to search the notes with ", el("strong", { text: p.tags }), ".")));
      q.focus();
      return;
    }
    const startMark = performance.getEntriesByName("gno:search:submit", "mark").length ? "gno:search:submit" : "gno:search:start";
    performance.mark("gno:search:start");
    delete document.body.dataset.searchMs;
    const tags = p.tags.split(",").map((t) => t.trim()).filter(Boolean);
    const body = { query: p.q, limit: p.n };
    if (p.c) body.collection = p.c;
    if (tags.length) body.tagsAll = tags;
    page(`Search: ${p.q}`, el("p", { class: "meta-line", text: "Searching…" }));
    let data;
    try {
      data = await api("POST", p.mode === "hybrid" ? "/api/query" : "/api/search", body);
    } catch (err) {
      if (my === seq) page("Search", notice(err));
      return;
    }
    if (my !== seq) return;
    const hits = data.results || [];
    const counts = new Map();
    for (const h of hits) for (const t of h.tags || []) counts.set(t, (counts.get(t) || 0) + 1);
    const toggle = (t) => {
      const set = new Set(tags);
      if (set.has(t)) set.delete(t); else set.add(t);
      const next = { ...p, tags: [...set].join(",") };
      delete next.n;
      navigate(searchHref(next));
    };
    const facets = el("div", { class: "facets" },
      [...new Set([...tags, ...[...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a))])].slice(0, 24)
        .map((t) => tagChip(counts.has(t) ? `${t} (${counts.get(t)})` : t, tags.includes(t), () => toggle(t))));
    const meta = data.meta || {};
    const where = p.c ? ` in ${p.c}` : "";
    const list = hits.length
      ? el("ol", { class: "results" }, hits.map((h) => el("li", { class: "result" },
        el("span", { class: "score", text: Number(h.score).toFixed(2) }),
        el("h3", {}, el("a", { href: docHref(h.uri), "data-nav": true, text: h.title || h.relPath }),
          h.match === "partial" ? el("span", { class: "match-partial", title: "matches some of the words, not all", text: "partial match" }) : null,
          h.supersededBy ? el("span", { class: "superseded", title: "a newer fact replaced this one; recall returns only the newer", text: "superseded" }) : null),
        el("div", { class: "uri", text: `${shownUri(h.uri)}${h.line ? ":" + h.line : ""}` }),
        h.supersededBy ? el("div", { class: "superseded-by" }, "superseded by ",
          el("a", { href: docHref(h.supersededBy), "data-nav": true, text: shownUri(h.supersededBy) })) : null,
        h.snippet ? el("p", { class: "snippet", text: readable(h.snippet) }) : null,
        (h.tags || []).length ? el("div", { class: "facets" }, h.tags.map((t) => tagChip(t, tags.includes(t), () => toggle(t)))) : null)))
      : el("div", { class: "empty", text: `No results for “${p.q}”${where}.` });
    page(`Search: ${p.q}`,
      el("p", { class: "meta-line", id: "result-count",
        text: `${hits.length} of ${meta.totalResults ?? hits.length} results${where} · ${data.mode || p.mode}` +
          (meta.elapsedMs !== undefined ? ` · ${Number(meta.elapsedMs).toFixed(1)} ms` : "") }),
      counts.size || tags.length ? facets : null,
      list,
      (meta.totalResults ?? 0) > hits.length && p.n < 50
        ? el("p", {}, el("a", { href: searchHref({ ...p, n: 50 }), "data-nav": true, class: "button secondary", id: "more", text: "Show more results" }))
        : null);
    // rAF runs just before the frame that shows the results; the task after it runs once it is painted
    requestAnimationFrame(() => setTimeout(() => {
      if (my !== seq) return;
      performance.mark("gno:search:painted");
      const m = performance.measure("gno:search", startMark, "gno:search:painted");
      performance.clearMarks("gno:search:submit");
      document.body.dataset.searchMs = m.duration.toFixed(1);
    }, 0));
  }

  async function renderBrowse(params, my) {
    const name = params.get("c") || "";
    let colls;
    try { colls = await loadCollections(); } catch (err) { page("Browse", notice(err)); return; }
    if (my !== seq) return;
    const pills = el("div", { class: "colls" }, colls.map((c) => el("a", {
      href: "/browse?c=" + encodeURIComponent(c.name), "data-nav": true, class: c.name === name ? "on" : "",
      text: `${c.name}${c.memoryManaged ? " · memory" : ""}${c.documents !== undefined ? ` (${c.documents})` : ""}` })));
    if (!colls.length) {
      page("Browse", el("h1", { text: "Browse" }), el("p", { class: "empty" },
        "No collections yet: ", el("code", { text: "gno collection add <folder> --name <name>" })));
      return;
    }
    if (!name) { page("Browse", el("h1", { text: "Browse" }), pills, el("p", { class: "muted", text: "Pick a collection." })); return; }
    let data;
    try { data = await api("GET", "/api/ls?scope=" + encodeURIComponent(name)); } catch (err) {
      if (my === seq) page("Browse", el("h1", { text: "Browse" }), pills, notice(err));
      return;
    }
    if (my !== seq) return;
    const folders = new Map();
    for (const e of data.entries || []) {
      const dir = e.relPath.includes("/") ? e.relPath.slice(0, e.relPath.lastIndexOf("/")) : "";
      if (!folders.has(dir)) folders.set(dir, []);
      folders.get(dir).push(e);
    }
    const tree = el("ul", { class: "tree" });
    for (const dir of [...folders.keys()].sort()) {
      tree.append(el("li", { class: "folder", text: (dir || ".") + "/" }));
      for (const e of folders.get(dir).sort((a, b) => a.relPath.localeCompare(b.relPath))) {
        tree.append(el("li", { class: "file" }, el("a", { href: docHref(e.uri), "data-nav": true, text: e.title || e.relPath }),
          " ", el("span", { class: "muted", text: e.relPath.slice(dir ? dir.length + 1 : 0) })));
      }
    }
    page(`Browse ${name}`, el("h1", { text: "Browse" }), pills,
      el("p", { class: "meta-line", text: `${data.total} documents in ${name}` }), tree);
  }

  function copyButton(text) {
    const b = el("button", { type: "button", class: "secondary", id: "copy-uri", text: "Copy" });
    b.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(text); } catch (_) {
        const t = el("textarea", {}); t.value = text; document.body.append(t); t.select();
        document.execCommand("copy"); t.remove();
      }
      b.textContent = "Copied"; setTimeout(() => { b.textContent = "Copy"; }, 1500);
    });
    return b;
  }

  // each linked document once (its first link): a note that links a page four times lists it once
  function onePerDoc(items) {
    const seen = new Set();
    return items.filter((l) => !seen.has(l.uri) && seen.add(l.uri));
  }

  function linkList(title, all, empty) {
    const items = onePerDoc(all);
    return el("section", {}, el("h2", { text: title }), items.length
      ? el("ul", {}, items.map((l) => el("li", {}, el("a", { href: docHref(l.uri), "data-nav": true, text: l.title }),
        l.edgeType && l.edgeType !== "wiki" && l.edgeType !== "markdown"
          ? el("span", { class: "muted", text: ` (${l.edgeType})` }) : null)))
      : el("p", { class: "muted", text: empty }));
  }

  async function renderDoc(params, my) {
    const uri = params.get("uri") || "";
    let doc;
    let md;
    const none = { links: [] };
    let out = none;
    let back = none;
    const q = "?uri=" + encodeURIComponent(uri);
    const ref = "?ref=" + encodeURIComponent(uri);
    try {
      [doc, md, out, back] = await Promise.all([api("GET", "/api/doc" + q), api("GET", "/api/web/render" + q),
        api("GET", "/api/links" + ref).catch(() => none), api("GET", "/api/backlinks" + ref).catch(() => none)]);
    } catch (err) { if (my === seq) page("Not found", notice(err)); return; }
    if (my !== seq) return;
    const body = el("article", { class: "md", id: "doc-body" });
    body.innerHTML = md.html; // rendered by the server (markdown-it-py): the note's raw HTML is escaped there
    const outline = md.headings.filter((h) => h.level <= 4);
    const side = el("aside", { class: "side" },
      el("section", { class: "outline" }, el("h2", { text: "Outline" }), outline.length
        ? el("ul", {}, outline.map((h) => el("li", { class: "l" + h.level }, el("a", { href: "#" + h.id, text: h.text }))))
        : el("p", { class: "muted", text: "No headings." })),
      linkList("Links", out.links, "No outgoing links."),
      linkList("Backlinks", back.links, "Nothing links here."));
    page(doc.title, el("div", { class: "doc" },
      el("div", {},
        el("div", { class: "doc-head" }, el("h1", { text: doc.title }),
          el("div", { class: "uri-row" }, el("code", { id: "doc-uri", text: shownUri(doc.uri) }), copyButton(doc.uri),
            el("span", { class: "muted", text: doc.docid })),
          doc.tags.length ? el("div", { class: "facets" },
            doc.tags.map((t) => tagChip(t, false, () => navigate(searchHref({ tags: t }))))) : null,
          el("div", { class: "actions" },
            doc.converter ? null :  // a converted file (PDF, deck, code) is shown as its mirror and edited in its own app
              el("a", { href: editHref(doc.uri), "data-nav": true, id: "edit-link", class: "button", text: "Edit" }),
            el("a", { href: "/graph?uri=" + encodeURIComponent(doc.uri), "data-nav": true, id: "graph-link",
              class: "button secondary", text: "Graph" }))),
        body),
      side));
    if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }

  async function renderEdit(params, my) {
    const uri = params.get("uri") || "";
    let src;
    try { src = await api("GET", "/api/web/source?uri=" + encodeURIComponent(uri)); } catch (err) {
      if (my === seq) page("Edit", notice(err)); return;
    }
    if (my !== seq) return;
    const area = el("textarea", { id: "editor", spellcheck: "false", "aria-label": "Note source" });
    area.value = src.content;
    area.addEventListener("input", () => { dirty = true; });
    const status = el("div", { id: "edit-status" });
    const save = el("button", { type: "button", id: "save", text: "Save" });
    const base = { hash: src.sourceHash };
    function showConflict() {
      status.replaceChildren(el("div", { class: "notice conflict", role: "alert", id: "conflict" },
        el("strong", { text: "Conflict: " }),
        "this note changed on disk after you opened it. Nothing was saved and the file was not overwritten. ",
        "Copy your text, then reload the current version and apply your edit again. ",
        el("button", { type: "button", class: "secondary", text: "Reload current version", onclick: () => {
          dirty = false; render(true);
        } })));
    }
    async function doSave() {
      save.disabled = true;
      status.replaceChildren();
      let content = area.value;
      if (src.lineEnding === "\r\n") content = content.replace(/\r?\n/g, "\r\n");
      try {
        await api("PUT", "/api/docs/" + encodeURIComponent(src.docid.replace(/^#/, "")),
          { content, expectedSourceHash: base.hash });
        dirty = false;
        flash("Saved " + src.uri);
        navigate(docHref(src.uri));
      } catch (err) {
        if (err.status === 409 && err.code === "CONFLICT") showConflict();
        else if (err.status === 404) {
          // a docid follows the content: once a changed note is re-indexed its old id is gone
          const now = await api("GET", "/api/web/source?uri=" + encodeURIComponent(src.uri)).catch(() => null);
          if (now && now.sourceHash !== base.hash) showConflict(); else status.replaceChildren(notice(err));
        } else status.replaceChildren(notice(err));
      } finally { save.disabled = false; }
    }
    save.addEventListener("click", doSave);
    area.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") { e.preventDefault(); doSave(); }
    });
    page(`Edit ${src.title}`, el("div", { class: "editor" },
      el("h1", { text: `Edit: ${src.title}` }),
      el("div", { class: "uri-row" }, el("code", { text: src.uri }),
        el("span", { class: "muted", text: `sourceHash ${src.sourceHash.slice(0, 12)}…` })),
      src.editable ? null : el("div", { class: "notice warn", text: `Read-only here: ${src.reason}.` }),
      status, area,
      el("div", { class: "actions" }, src.editable ? save : null,
        el("a", { href: docHref(src.uri), "data-nav": true, class: "button secondary", text: "Cancel" }),
        el("span", { class: "muted", text: "Ctrl/⌘+S saves. The save is refused if the file changed meanwhile." }))));
    area.setSelectionRange(0, 0);
    area.focus({ preventScroll: true });
    area.scrollTop = 0;
  }

  async function renderCapture(_params, my) {
    const colls = await loadCollections().catch(() => []);
    if (my !== seq) return;
    const coll = el("select", { id: "cap-collection", name: "collection", required: true },
      colls.map((c) => el("option", { value: c.name, text: c.name + (c.memoryManaged ? " (memory)" : "") })));
    const plain = colls.find((c) => !c.memoryManaged);
    if (plain) coll.value = plain.name;
    const title = el("input", { id: "cap-title", name: "title", placeholder: "Meeting with Acme", required: true });
    const tags = el("input", { id: "cap-tags", name: "tags", placeholder: "meeting, acme" });
    const folder = el("input", { id: "cap-folder", name: "folder", placeholder: "default: inbox/<date>" });
    const content = el("textarea", { id: "cap-content", name: "content", required: true, placeholder: "What happened, what was decided…" });
    const result = el("div", { id: "cap-result" });
    const submit = el("button", { type: "submit", id: "cap-submit", text: "Capture" });
    const f = el("form", { class: "form", id: "capture-form" },
      el("div", { class: "row" }, el("label", {}, "Collection", coll), el("label", {}, "Folder", folder)),
      el("label", {}, "Title", title), el("label", {}, "Tags (comma-separated)", tags),
      el("label", {}, "Content (markdown)", content),
      el("div", { class: "actions" }, submit), result);
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      submit.disabled = true;
      const body = { content: content.value, collection: coll.value, title: title.value.trim(),
        tags: tags.value.split(",").map((t) => t.trim()).filter(Boolean), source: { kind: "direct" } };
      if (folder.value.trim()) body.folderPath = folder.value.trim();
      try {
        const r = await api("POST", "/api/capture", body);
        collections = null;
        result.replaceChildren(el("div", { class: "notice ok", role: "status" }, "Captured ",
          el("a", { href: docHref(r.uri), "data-nav": true, id: "cap-link", text: r.uri })));
        title.value = ""; content.value = ""; tags.value = "";
      } catch (err) { result.replaceChildren(notice(err)); } finally { submit.disabled = false; }
    });
    page("Capture", el("h1", { text: "Capture a new note" }),
      el("p", { class: "muted", text: "Capture creates a new document with provenance; to change an existing note, open it and edit." }),
      colls.length ? f : el("p", { class: "empty", text: "Add a collection first: gno collection add <folder>." }));
  }

  async function renderStatus(_params, my) {
    let s;
    try { s = await api("GET", "/api/status"); } catch (err) { if (my === seq) page("Status", notice(err)); return; }
    if (my !== seq) return;
    const out = el("div", { id: "sync-result" });
    const btn = el("button", { type: "button", id: "sync-now", text: "Sync now" });
    btn.addEventListener("click", async () => {
      btn.disabled = true; btn.textContent = "Syncing…";
      try {
        const r = await api("POST", "/api/sync", {});
        collections = null;
        const line = (r.collections || []).map((c) =>
          `${c.name}: ${c.scanned} scanned, ${c.added} added, ${c.updated} updated, ${c.inactivated} removed`).join(" · ");
        flash(`Synced in ${Math.round(r.durationMs)} ms. ${line}`);
        render(false);
      } catch (err) { out.replaceChildren(notice(err)); btn.disabled = false; btn.textContent = "Sync now"; }
    });
    const card = (n, k) => el("div", { class: "card" }, el("div", { class: "n", text: String(n) }), el("div", { class: "k", text: k }));
    const v = s.vectors || {};
    const m = s.memory;
    page("Status", el("h1", { text: "Index status" }),
      el("div", { class: "actions" }, btn, el("span", { class: "muted", id: "status-health", text: s.healthy ? "healthy" : "needs attention" })), out,
      (s.nextSteps || []).length ? el("ul", { id: "status-next" }, s.nextSteps.map((t) => el("li", { text: t }))) : null,
      el("div", { class: "cards" }, card(s.documents, "documents"), card(s.chunks, "chunks"),
        card(s.collections.length, "collections"), card(`${(s.sizeBytes / 1048576).toFixed(1)} MB`, "index size"),
        card(`${v.embeddedChunks || 0}/${v.totalChunks || 0}`, "chunks embedded")),
      el("table", { class: "grid", id: "status-collections" },
        el("thead", {}, el("tr", {}, ["collection", "path", "active", "inactive", "chunks", "errors"].map((h, n) =>
          el("th", { class: n > 1 ? "num" : "", text: h })))),
        el("tbody", {}, s.collections.map((c) => el("tr", {},
          el("td", {}, el("a", { href: "/browse?c=" + encodeURIComponent(c.name), "data-nav": true, text: c.name }),
            c.memoryManaged ? el("span", { class: "muted", text: " · memory" }) : null),
          el("td", { text: c.path + (c.pathExists ? "" : " (missing)") }),
          el("td", { class: "num", text: c.active }), el("td", { class: "num", text: c.inactive }),
          el("td", { class: "num", text: c.chunks }), el("td", { class: "num", text: c.errors }))))),
      el("p", { class: "muted", text: `Index ${s.indexName} · ${s.dbPath} · vectors: ${v.available ? v.model : (v.reason || "not available")}` +
        (m ? ` · memory: ${m.current} current, ${m.superseded} superseded, ${m.invalid} invalid facts` : "") }),
      s.ingestErrors.length ? el("section", {}, el("h2", { text: "Ingest errors" }), el("ul", {},
        s.ingestErrors.map((e) => el("li", { text: `${e.collection}/${e.relPath}: ${e.code} ${e.message}` })))) : null);
  }

  // the graph view lives in graph.js (loaded before this file); it gets the helpers it shares with the pages
  function renderGraph(params, my) {
    const ui = { el, api, page, notice, navigate, docHref, current: () => my === seq };
    return window.gnoViews.graph(params, ui);
  }

  // -- routing -------------------------------------------------------------------------------
  const ROUTES = { "/": renderHome, "/search": renderSearch, "/browse": renderBrowse, "/doc": renderDoc,
    "/edit": renderEdit, "/capture": renderCapture, "/status": renderStatus, "/graph": renderGraph };

  function render(focusMain) {
    const my = ++seq;
    currentKey = location.pathname + location.search;
    for (const a of document.querySelectorAll(".nav a")) a.classList.toggle("active", a.getAttribute("href") === location.pathname);
    const fn = ROUTES[location.pathname] || renderHome;
    const params = new URLSearchParams(location.search);
    Promise.resolve(fn(params, my)).catch((err) => { if (my === seq) page("Error", notice(err)); });
    if (focusMain) main.focus({ preventScroll: true });
  }

  function navigate(href) {
    if (dirty && !confirm("Leave the editor? Unsaved changes will be lost.")) return;
    dirty = false;
    history.pushState(null, "", href);
    window.scrollTo(0, 0);
    render(false);
  }

  document.addEventListener("click", (e) => {
    const a = e.target.closest("a");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const href = a.getAttribute("href") || "";
    if (a.target || !href.startsWith("/") || href.startsWith("//")) return;
    if (!ROUTES[new URL(href, location.origin).pathname]) return; // /api, /openapi.json: a real load
    e.preventDefault();
    navigate(href);
  });

  window.addEventListener("popstate", () => {
    if (location.pathname + location.search === currentKey) return; // an in-page #anchor
    render(false);
  });
  window.addEventListener("beforeunload", (e) => { if (dirty) { e.preventDefault(); e.returnValue = ""; } });

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const params = { q: q.value, mode: modeSel.value };
    if (collSel.value) params.c = collSel.value;
    if (tagsIn.value.trim()) params.tags = tagsIn.value.trim();
    if (!q.value.trim()) { q.focus(); return; }
    performance.clearMarks(); performance.clearMeasures();
    performance.mark("gno:search:submit"); // the benchmark's zero: Enter pressed
    navigate(searchHref(params));
  });
  for (const sel of [modeSel, collSel]) sel.addEventListener("change", () => { if (q.value.trim()) form.requestSubmit(); });

  document.addEventListener("keydown", (e) => {
    const t = e.target;
    const typing = t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); q.focus(); q.select(); }
    else if (e.key === "Escape" && t === q) q.blur();
  });

  loadCollections().catch(() => null);
  render(false);
})();
