// gno Web UI: the markdown renderer (a small, safe subset; no dependencies).
//
// Why its own renderer: no CDN and no build step, and a note must never run code in the page.
// Every piece of the note's text is HTML-escaped before any tag is built, link targets are
// checked against an allowlist of schemes (http, https, mailto, gno://, relative paths), and
// the only tags produced are the ones below. Images become links: nothing remote is fetched.
// The page's Content-Security-Policy (scripts from this origin only) is the second line of defence.
"use strict";

(() => {
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function docHref(uri) { return "/doc?uri=" + encodeURIComponent(uri); }
  function searchHref(params) { return "/search?" + new URLSearchParams(params).toString(); }

  function slugify(text, used) {
    let base = text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "") || "section";
    let slug = base;
    for (let n = 2; used.has(slug); n++) slug = `${base}-${n}`;
    used.add(slug);
    return slug;
  }

  function resolveRelative(fromRel, target) {
    const parts = fromRel.split("/").slice(0, -1);
    for (const seg of target.split("/")) {
      if (seg === "" || seg === ".") continue;
      if (seg === "..") { if (!parts.length) return null; parts.pop(); } else parts.push(seg);
    }
    return parts.join("/");
  }

  function renderMarkdown(src, ctx) {
    const headings = [];
    const used = new Set();
    const wiki = ctx.wikiTargets || new Map();

    function safeHref(raw) {
      const u = raw.trim();
      if (/^gno:\/\//i.test(u)) return { href: docHref(u), nav: true };
      if (/^(https?:|mailto:)/i.test(u)) return { href: u, nav: false };
      if (/^[a-z][a-z0-9+.-]*:/i.test(u) || u.startsWith("//")) return null; // javascript:, data:, file:, …
      if (u.startsWith("#")) return { href: u, nav: false, local: true };
      if (!ctx.collection) return null;
      let path = u.split("#")[0];
      try { path = decodeURIComponent(path); } catch (_) { /* keep as written */ }
      const rel = resolveRelative(ctx.relPath || "", path);
      if (rel === null) return null;
      const encoded = rel.split("/").map(encodeURIComponent).join("/"); // gno URIs percent-encode paths
      return { href: docHref(`gno://${ctx.collection}/${encoded}`), nav: true };
    }

    function link(raw, label) {
      const h = safeHref(raw);
      if (!h) return esc(label);
      const extra = h.local ? "" : h.nav ? " data-nav" : ' target="_blank" rel="noopener noreferrer"';
      return `<a href="${esc(h.href)}"${extra}>${esc(label)}</a>`;
    }

    function inline(text) {
      const slots = [];
      const keep = (html) => "\u0000" + (slots.push(html) - 1) + "\u0000";
      let s = text.replace(/\u0000/g, "");
      s = s.replace(/`([^`]+)`/g, (_, c) => keep(`<code>${esc(c)}</code>`));
      s = s.replace(/\[\[([^\]\n]+?)\]\]/g, (_, inner) => {
        const [target, label] = inner.split("|");
        const name = target.split("#")[0].trim();
        const known = wiki.get(name.toLowerCase());
        const href = known ? docHref(known) : searchHref({ q: name });
        return keep(`<a class="wikilink" href="${esc(href)}" data-nav>${esc((label || target).trim())}</a>`);
      });
      s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_, alt, url) => keep(link(url, alt || url)));
      s = s.replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_, t, url) => keep(link(url, t)));
      s = s.replace(/<(https?:\/\/[^>\s]+)>/g, (_, url) => keep(link(url, url)));
      s = esc(s)
        .replace(/\*\*(?=\S)([^*]+?)\*\*/g, "<strong>$1</strong>")
        .replace(/__(?=\S)([^_]+?)__/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*(?=\S)([^*]+?)\*(?!\w)/g, "$1<em>$2</em>")
        .replace(/(^|[^_\w])_(?=\S)([^_]+?)_(?!\w)/g, "$1<em>$2</em>")
        .replace(/~~(?=\S)([^~]+?)~~/g, "<del>$1</del>");
      return s.replace(/\u0000(\d+)\u0000/g, (_, n) => slots[Number(n)]);
    }

    function blocks(lines) {
      const out = [];
      let para = [];
      const stack = [];
      const flush = () => { if (para.length) { out.push(`<p>${inline(para.join("\n"))}</p>`); para = []; } };
      const closeLists = () => { while (stack.length) out.push(`</li></${stack.pop().tag}>`); };
      let i = 0;
      while (i < lines.length) {
        const line = lines[i];
        const fence = line.match(/^\s*(`{3,}|~{3,})\s*([\w+-]*)/);
        if (fence) {
          flush(); closeLists();
          const body = [];
          i++;
          while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
          i++;
          const cls = fence[2] ? ` class="lang-${esc(fence[2])}"` : "";
          out.push(`<pre><code${cls}>${esc(body.join("\n"))}</code></pre>`);
          continue;
        }
        if (!line.trim()) { flush(); i++; if (stack.length && !/^\s/.test(lines[i] || "")) closeLists(); continue; }
        const h = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
        if (h) {
          flush(); closeLists();
          const level = h[1].length;
          const plain = h[2].replace(/[`*_~]|\[\[|\]\]/g, "");
          const id = slugify(plain, used);
          headings.push({ level, text: plain, id });
          out.push(`<h${level} id="${esc(id)}">${inline(h[2])}</h${level}>`);
          i++; continue;
        }
        if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); closeLists(); out.push("<hr>"); i++; continue; }
        if (/^\s*>/.test(line)) {
          flush(); closeLists();
          const inner = [];
          while (i < lines.length && /^\s*>/.test(lines[i])) inner.push(lines[i++].replace(/^\s*>\s?/, ""));
          out.push(`<blockquote>${blocks(inner)}</blockquote>`);
          continue;
        }
        if (line.includes("|") && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
          flush(); closeLists();
          const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));
          const head = cells(line);
          i += 2;
          const rows = [];
          while (i < lines.length && lines[i].includes("|") && lines[i].trim()) rows.push(cells(lines[i++]));
          out.push("<table><thead><tr>" + head.map((c) => `<th>${c}</th>`).join("") + "</tr></thead><tbody>" +
            rows.map((r) => "<tr>" + r.map((c) => `<td>${c}</td>`).join("") + "</tr>").join("") + "</tbody></table>");
          continue;
        }
        const item = line.match(/^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/);
        if (item) {
          flush();
          const indent = item[1].replace(/\t/g, "    ").length;
          const tag = /\d/.test(item[2]) ? "ol" : "ul";
          while (stack.length && indent < stack[stack.length - 1].indent) out.push(`</li></${stack.pop().tag}>`);
          const top = stack[stack.length - 1];
          if (!top || indent > top.indent) { out.push(`<${tag}>`); stack.push({ tag, indent }); }
          else if (top.tag !== tag) { out.push(`</li></${top.tag}><${tag}>`); top.tag = tag; }
          else out.push("</li>");
          let text = item[3];
          const task = text.match(/^\[([ xX])\]\s+(.*)$/);
          if (task) text = (task[1] === " " ? "\u2610 " : "\u2611 ") + task[2];
          out.push(`<li>${inline(text)}`);
          i++; continue;
        }
        if (stack.length && /^\s+\S/.test(line)) { out.push(" " + inline(line.trim())); i++; continue; }
        closeLists();
        para.push(line);
        i++;
      }
      flush(); closeLists();
      return out.join("\n");
    }

    let lines = src.replace(/\r\n?/g, "\n").split("\n");
    let front = "";
    if (lines[0] && lines[0].trim() === "---") {
      const end = lines.findIndex((l, n) => n > 0 && (l.trim() === "---" || l.trim() === "..."));
      if (end > 0) {
        front = `<details class="frontmatter"><summary>Properties</summary><pre>${esc(lines.slice(1, end).join("\n"))}</pre></details>`;
        lines = lines.slice(end + 1);
      }
    }
    return { html: front + blocks(lines), headings };
  }

  window.GnoMarkdown = Object.freeze({ render: renderMarkdown, esc });
})();
