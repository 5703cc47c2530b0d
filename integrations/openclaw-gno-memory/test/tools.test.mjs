// The tools' degraded paths without a gateway: no gno, or a gno that prints garbage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTools } from "../tools.js";

function tools(config) {
  const [search, get] = createTools({ pluginConfig: config });
  return { search, get };
}

test("a missing gno makes memory_search unavailable, not a failed turn", async () => {
  const { search, get } = tools({ gnoBin: "/nonexistent/gno" });
  const r = await search.execute("t1", { query: "anything" });
  assert.equal(r.details.unavailable, true);
  assert.equal(r.details.disabled, true);
  assert.deepEqual(r.details.results, []);
  assert.match(r.details.error, /not on PATH/);
  assert.equal(JSON.parse(r.content[0].text).unavailable, true);
  const g = await get.execute("t2", { path: "MEMORY.md" });
  assert.equal(g.details.disabled, true);
});

test("malformed output from gno is reported, never thrown", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-gno-"));
  const bin = join(dir, "gno");
  writeFileSync(bin, "#!/bin/sh\necho '<html>oops'\n");
  chmodSync(bin, 0o755);
  const { search } = tools({ gnoBin: bin });
  const r = await search.execute("t1", { query: "anything" });
  assert.equal(r.details.unavailable, true);
  assert.match(r.details.error, /failed/);
});

test("the manifest declares the memory slot and both tools", async () => {
  const { readFileSync } = await import("node:fs");
  const m = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url)));
  assert.equal(m.kind, "memory");
  assert.deepEqual(m.contracts.tools, ["memory_search", "memory_get"]);
  assert.equal(m.configSchema.properties.collection.type, "string");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url)));
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
});
