// gno memory for OpenClaw: OpenClaw keeps writing its own memory files (MEMORY.md, memory/*.md);
// this plugin answers the two memory tools with gno instead of the bundled memory-core.
//
// memory_search {query, maxResults, minScore}: syncs the memory collection first (`gno update -c`),
//   so a file written a moment ago is found, then runs `gno search` scoped to that collection.
//   A failed sync still searches, but marks the result stale and says why (the memory-core
//   contract: stale, warning, action). A missing or broken gno gives the "unavailable" shape.
// memory_get {path, from, lines}: `gno get <collection>/<path>`, accepting the path that
//   memory_search returned (collection-relative, as memory-core's paths are workspace-relative).
//
// The plugin never writes memory: OpenClaw's own files stay the only write path.
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { createTools } from "./tools.js";

export default definePluginEntry({
  id: "gno-memory",
  name: "gno memory",
  description: "memory_search and memory_get over OpenClaw's memory files, indexed and searched by gno",
  kind: "memory",
  register(api) {
    for (const tool of createTools(api)) api.registerTool(tool);
  },
});
