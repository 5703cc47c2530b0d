// The two memory tools, built from the plugin config (kept apart from index.js so they can be
// exercised without the OpenClaw runtime).
import { runGno } from "./gno.js";

const DEFAULT_LINES = 120;

const SEARCH_PARAMETERS = {
  type: "object",
  properties: {
    query: { type: "string" },
    maxResults: { type: "integer", minimum: 1 },
    minScore: { type: "number" },
  },
  required: ["query"],
  additionalProperties: false,
};

const GET_PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string" },
    from: { type: "integer", minimum: 1 },
    lines: { type: "integer", minimum: 1 },
  },
  required: ["path"],
  additionalProperties: false,
};

function jsonResult(details) {
  return { content: [{ type: "text", text: JSON.stringify(details, null, 2) }], details };
}

function settings(api) {
  const cfg = (api && api.pluginConfig) || {};
  return {
    collection: typeof cfg.collection === "string" && cfg.collection ? cfg.collection : "memory",
    opts: {
      bin: typeof cfg.gnoBin === "string" && cfg.gnoBin ? cfg.gnoBin : "gno",
      timeoutMs: Number.isInteger(cfg.timeoutMs) ? cfg.timeoutMs : 30000,
    },
  };
}

function unavailable(error) {
  return {
    results: [],
    disabled: true,
    unavailable: true,
    error,
    warning: "Memory search is unavailable because gno could not run.",
    action: "Install gno (pip install gno), check `gno status`, then retry memory_search.",
  };
}

function toHit(h) {
  const startLine = h.snippetRange?.startLine ?? h.line ?? 1;
  const endLine = h.snippetRange?.endLine ?? startLine;
  const citation = startLine === endLine ? `${h.relPath}#L${startLine}` : `${h.relPath}#L${startLine}-L${endLine}`;
  return {
    path: h.relPath,
    startLine,
    endLine,
    score: h.score,
    snippet: `${String(h.snippet || "").trim()}\n\nSource: ${citation}`,
    source: "memory",
    corpus: "memory",
    citation,
    uri: h.uri,
  };
}

export function createTools(api) {
  const { collection, opts } = settings(api);
  const memorySearch = {
    name: "memory_search",
    label: "Memory Search",
    description:
      "Mandatory recall step: search the memory files (MEMORY.md, memory/*.md) with gno before answering " +
      "questions about prior work, decisions, dates, people, preferences, or todos. If the response has " +
      "stale=true or disabled=true, tell the user and include the warning/action guidance.",
    parameters: SEARCH_PARAMETERS,
    async execute(_toolCallId, params) {
      const query = typeof params?.query === "string" ? params.query : "";
      const maxResults = Number.isInteger(params?.maxResults) && params.maxResults > 0 ? params.maxResults : 10;
      const minScore = typeof params?.minScore === "number" ? Math.min(Math.max(params.minScore, 0), 1) : 0;
      // a writer holding the lease (a long `gno update`, the daemon) delays the search by 5 s at most
      const sync = await runGno(["update", "-c", collection, "--lock-wait", "5s"], opts);
      if (sync.missing) return jsonResult(unavailable(sync.error));
      const args = ["search", query, "-c", collection, "-n", String(Math.min(maxResults, 1000))];
      if (minScore > 0) args.push("--min-score", String(minScore));
      const found = await runGno(args, opts);
      if (!found.ok) {
        return jsonResult(found.code ? { results: [], error: found.error, code: found.code } : unavailable(found.error));
      }
      const details = {
        results: (found.data.results || []).map(toHit),
        provider: "gno",
        mode: found.data.mode || "bm25",
        citations: "on",
      };
      if (!sync.ok) {
        details.stale = true;
        details.warning = `Memory index is stale: the sync before this search failed (${sync.error}). Search results may be incomplete.`;
        details.action = `Run: gno update -c ${collection}`;
      }
      return jsonResult(details);
    },
  };
  const memoryGet = {
    name: "memory_get",
    label: "Memory Get",
    description:
      "Safe exact excerpt read from the memory files, by the path memory_search returned. Defaults to a " +
      "bounded excerpt; status=ok means the excerpt was read, status=not_found means the file is not indexed.",
    parameters: GET_PARAMETERS,
    async execute(_toolCallId, params) {
      const raw = typeof params?.path === "string" ? params.path.trim() : "";
      const rel = raw.replace(/#L\d+(-L\d+)?$/, "").replace(/^\.\//, "");
      const ref = rel.startsWith("gno://") ? rel : `${collection}/${rel}`;
      const from = Number.isInteger(params?.from) && params.from > 0 ? params.from : 1;
      const lines = Number.isInteger(params?.lines) && params.lines > 0 ? params.lines : DEFAULT_LINES;
      const got = await runGno(["get", ref, "--from", String(from), "-l", String(lines)], opts);
      if (!got.ok) {
        if (got.code === "NOT_FOUND" || got.code === "INVALID_REF" || got.code === "COLLECTION_NOT_FOUND") {
          return jsonResult({ status: "not_found", path: raw, text: "" });
        }
        return jsonResult({ path: raw, text: "", disabled: true, error: got.error });
      }
      const d = got.data;
      const end = d.returnedLines?.end ?? from - 1;
      const count = Math.max(0, end - from + 1);
      const details = { status: "ok", text: d.content ?? "", path: d.relPath ?? rel, from, lines: count, uri: d.uri };
      if (end < (d.totalLines ?? end)) {
        details.truncated = true;
        details.nextFrom = end + 1;
        details.text += `\n\n[More content available. Use from=${end + 1} to continue.]`;
      }
      return jsonResult(details);
    },
  };
  return [memorySearch, memoryGet];
}

