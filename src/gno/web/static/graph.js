// gno Web UI: the graph view (/graph), a picture of the vault.
//
// The data is the public REST route `GET /api/graph` (documents as nodes, links and typed relations as
// edges, the most linked first), the same call as `gno graph --json`. It is drawn with Cytoscape.js,
// vendored under /static/vendor/ (see its README.md) and loaded from this origin the first time the view
// opens, so other pages never pay for it. Pan and zoom are Cytoscape's (drag the background, wheel or
// pinch); the collection and tag selects hide the nodes outside them; a click on a node opens its note;
// `/graph?uri=…` (the Graph link of a note) highlights that note and its neighbours, and hovering a node
// highlights its own. Titles reach the page only through Cytoscape's canvas labels and textContent.
"use strict";

(() => {
  const LIB = "/static/vendor/cytoscape.min.js";
  // Cytoscape adds an inline <style> unless an element with this id exists: the CSP refuses inline styles,
  // and app.css already gives the container what that style would (position: relative)
  const STYLE_ID = "__________cytoscape_stylesheet";
  const NODES = 500; // the most linked notes drawn at most (the API's own default is larger)
  const PALETTE = ["#2b6cb0", "#c53030", "#2f855a", "#b7791f", "#6b46c1", "#0987a0", "#d53f8c", "#4a5568"];
  let loading = null;

  function library() {
    if (window.cytoscape) return Promise.resolve(window.cytoscape);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = LIB;
        s.onload = () => resolve(window.cytoscape);
        s.onerror = () => { loading = null; reject(new Error("could not load the graph library " + LIB)); };
        document.head.append(s);
      });
    }
    return loading;
  }

  function styles() {
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue("--fg").trim() || "#1d1f23";
    const line = css.getPropertyValue("--muted").trim() || "#5f6670";
    return [
      { selector: "node", style: { "background-color": "data(color)", label: "data(label)", width: "data(size)",
        height: "data(size)", color: fg, "font-size": 10, "text-valign": "bottom", "text-margin-y": 3,
        "text-max-width": 140, "text-wrap": "ellipsis", "min-zoomed-font-size": 7 } },
      // hubs keep a readable label when the whole vault is in view
      { selector: "node[degree >= 8]", style: { "font-size": 22, "font-weight": "bold", "text-max-width": 420 } },
      { selector: "edge", style: { width: 1, "line-color": line, "target-arrow-color": line, opacity: 0.55,
        "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.6 } },
      { selector: "edge.relation", style: { "line-color": "#b7791f", "target-arrow-color": "#b7791f", label: "data(type)",
        "font-size": 8, color: fg, "text-rotation": "autorotate", "min-zoomed-font-size": 8 } },
      { selector: "edge[type = 'similar']", style: { "line-style": "dashed", "target-arrow-shape": "none" } },
      { selector: ".hidden", style: { display: "none" } },
      { selector: ".faded", style: { opacity: 0.12 } },
      { selector: "edge.near", style: { opacity: 1, width: 2, "line-color": fg, "target-arrow-color": fg } },
      { selector: "node.near", style: { "border-width": 2, "border-color": fg } },
      { selector: "node.focus", style: { "border-width": 4, "border-color": "#ecc94b", "font-weight": "bold" } },
    ];
  }

  async function render(params, ui) {
    const { el, api, page, notice, navigate, docHref, current } = ui;
    const focusUri = params.get("uri") || "";
    const similar = params.get("similar") === "1";
    delete document.body.dataset.graphReady;
    if (window.gnoGraph) { window.gnoGraph.cy.destroy(); window.gnoGraph = null; }
    const query = new URLSearchParams({ limit: String(NODES) });
    if (similar) query.set("includeSimilar", "true");
    page("Graph", el("h1", { text: "Graph" }), el("p", { class: "meta-line", text: "Loading the graph…" }));
    let data, cytoscape;
    try {
      [data, cytoscape] = await Promise.all([api("GET", "/api/graph?" + query), library()]);
    } catch (err) {
      if (current()) page("Graph", el("h1", { text: "Graph" }), notice(err));
      return;
    }
    if (!current()) return;
    const meta = data.meta;
    const colls = [...new Set(data.nodes.map((n) => n.collection))].sort();
    const color = new Map(colls.map((c, i) => [c, PALETTE[i % PALETTE.length]]));
    const tagCounts = new Map();
    for (const n of data.nodes) for (const t of n.tags) tagCounts.set(t, (tagCounts.get(t) || 0) + 1);
    const tags = [...tagCounts.keys()].sort((a, b) => tagCounts.get(b) - tagCounts.get(a) || a.localeCompare(b));

    const collSel = el("select", { id: "graph-collection", "aria-label": "Collection" },
      el("option", { value: "", text: "All collections" }), colls.map((c) => el("option", { value: c, text: c })));
    const tagSel = el("select", { id: "graph-tag", "aria-label": "Tag" },
      el("option", { value: "", text: "All tags" }), tags.map((t) => el("option", { value: t, text: `#${t} (${tagCounts.get(t)})` })));
    collSel.value = colls.includes(params.get("c")) ? params.get("c") : "";
    tagSel.value = tagCounts.has(params.get("tag")) ? params.get("tag") : "";
    const similarBox = el("input", { type: "checkbox", id: "graph-similar", checked: similar });
    const count = el("span", { class: "muted", id: "graph-count" });
    const box = el("div", { id: "graph", class: "graph-canvas", role: "img", "aria-label": "Graph of the notes and their links" });
    const legend = el("ul", { class: "graph-legend" }, colls.map((c) => el("li", {},
      el("span", { class: "swatch graph-" + PALETTE.indexOf(color.get(c)) }), c)));
    const side = el("aside", { class: "side graph-side", id: "graph-side" });
    const warn = (meta.warnings || []).map((w) => el("div", { class: "notice warn", text: w }));
    const cut = meta.truncated
      ? el("p", { class: "muted", text: `Showing the ${meta.returnedNodes} most linked of ${meta.totalNodes} notes (gno graph --json lists them all).` })
      : null;
    page("Graph", el("div", { class: "graph-head" }, el("h1", { text: "Graph" }),
      el("div", { class: "graph-tools" }, collSel, tagSel,
        el("label", { class: "muted" }, similarBox, " similar notes"), count)),
      warn, cut,
      data.nodes.length
        ? el("div", { class: "graph-wrap" }, box, el("div", {}, legend, side))
        : el("p", { class: "empty", text: "No linked notes yet: link notes with [[Note]] or [text](note.md), then sync." }));
    if (!data.nodes.length) return;

    if (!document.getElementById(STYLE_ID)) document.head.append(el("meta", { id: STYLE_ID, name: "gno-graph" }));
    const size = (deg) => Math.min(46, 12 + 5 * Math.sqrt(deg));
    const elements = [
      ...data.nodes.map((n) => ({ group: "nodes", data: { id: n.uri, label: n.title || n.relPath, color: color.get(n.collection),
        size: size(n.degree), degree: n.degree, collection: n.collection, tags: n.tags } })),
      ...data.edges.map((e, i) => ({ group: "edges", data: { id: "e" + i, source: e.source, target: e.target, type: e.type },
        classes: ["wiki", "markdown", "similar"].includes(e.type) ? "" : "relation" })),
    ];
    const cy = cytoscape({ container: box, elements, style: styles(), minZoom: 0.1, maxZoom: 4,
      layout: { name: "cose", animate: false, randomize: true, fit: true, padding: 40, nodeRepulsion: () => 12000,
        nodeOverlap: 20, idealEdgeLength: () => 90, numIter: data.nodes.length > 300 ? 400 : 1000 } });
    if (cy.zoom() > 1.4) { cy.zoom(1.4); cy.center(); } // a few notes: readable labels, not a close-up
    window.gnoGraph = { cy, data };

    const focus = focusUri ? cy.getElementById(focusUri) : null;
    function highlight(node) {
      cy.elements().removeClass("faded near focus");
      if (!node || node.empty()) return;
      cy.elements().addClass("faded");
      node.closedNeighborhood().removeClass("faded").addClass("near");
      node.removeClass("near").addClass("focus");
    }
    function showSide(node) {
      if (!node || node.empty()) {
        side.replaceChildren(el("p", { class: "muted", text: "Click a note to open it. Drag to pan, scroll to zoom." }));
        return;
      }
      const item = (n) => el("li", {}, el("a", { href: docHref(n.id()), "data-nav": true, text: n.data("label") }));
      const nb = node.neighborhood("node").sort((a, b) => a.data("label").localeCompare(b.data("label")));
      side.replaceChildren(el("section", {}, el("h2", { text: "Open note" }),
        el("p", {}, el("a", { href: docHref(node.id()), "data-nav": true, id: "graph-open", text: node.data("label") })),
        el("h2", { text: `Neighbours (${nb.length})` }), el("ul", { id: "graph-neighbours" }, nb.map(item))));
    }
    function applyFilters() {
      const c = collSel.value;
      const t = tagSel.value;
      cy.batch(() => {
        cy.nodes().forEach((n) => {
          const on = (!c || n.data("collection") === c) && (!t || n.data("tags").includes(t));
          n.toggleClass("hidden", !on);
        });
      });
      const shown = cy.nodes().not(".hidden");
      count.textContent = `${shown.length} notes · ${shown.edgesWith(shown).length} links` +
        (shown.length < cy.nodes().length ? ` (of ${cy.nodes().length})` : "");
      const next = new URLSearchParams(location.search);
      for (const [k, v] of [["c", c], ["tag", t]]) if (v) next.set(k, v); else next.delete(k);
      const href = location.pathname + (next.toString() ? "?" + next : "");
      if (href !== location.pathname + location.search) history.replaceState(null, "", href);
    }
    collSel.addEventListener("change", applyFilters);
    tagSel.addEventListener("change", applyFilters);
    similarBox.addEventListener("change", () => {
      const next = new URLSearchParams(location.search);
      if (similarBox.checked) next.set("similar", "1"); else next.delete("similar");
      navigate("/graph" + (next.toString() ? "?" + next : ""));
    });
    cy.on("tap", "node", (e) => navigate(docHref(e.target.id())));
    cy.on("mouseover", "node", (e) => { highlight(e.target); box.classList.add("pointing"); });
    cy.on("mouseout", "node", () => { highlight(focus); box.classList.remove("pointing"); });
    highlight(focus);
    showSide(focus);
    applyFilters();
    if (focus && !focus.empty()) cy.center(focus);
    document.body.dataset.graphReady = "1";
  }

  window.gnoViews = Object.assign(window.gnoViews || {}, { graph: render });
})();
