// The plugin loaded by the real OpenClaw (npm `openclaw`): installed with `openclaw plugins install
// --link`, selected as the memory slot, run in `openclaw gateway run --bind loopback`, and called
// through the gateway's own `POST /tools/invoke`, against a real `gno` with its own temporary home.
//
// Needs `openclaw` (OPENCLAW_BIN or PATH; it runs on Node >= 22.22 / 24.15) and `gno` on PATH.
// Under CI=true a missing harness fails the run; elsewhere the suite is skipped.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname, delimiter } from "node:path";
import { fileURLToPath } from "node:url";

const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CI = ["1", "true", "yes"].includes((process.env.CI || "").trim().toLowerCase());

function which(name) {
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

const openclaw = process.env.OPENCLAW_BIN || which("openclaw");
const gno = which("gno");
const missing = !openclaw ? "openclaw (npm install openclaw@2026.8.1 with a Node >= 24 runtime)" : !gno ? "gno" : null;
if (missing && CI) throw new Error(`required under CI=true: ${missing}`);
const skip = missing ? `not installed: ${missing}` : false;

const root = mkdtempSync(join(tmpdir(), "openclaw-gno-"));
const ws = join(root, "workspace");
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GNO_") && !k.startsWith("OPENCLAW_"))),
  HOME: join(root, "home"),
  OPENCLAW_STATE_DIR: join(root, "state"),
  OPENCLAW_CONFIG_PATH: join(root, "state", "openclaw.json"),
  GNO_CONFIG_DIR: join(root, "gno", "config"),
  GNO_DATA_DIR: join(root, "gno", "data"),
  GNO_CACHE_DIR: join(root, "gno", "cache"),
};
const TOKEN = "gno-test-token";
let gateway;
let base;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", timeout: 180000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

async function invoke(tool, args) {
  const res = await fetch(`${base}/tools/invoke`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ tool, args }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.ok, true, JSON.stringify(body));
  return body.result.details;
}

before(async () => {
  if (skip) return;
  for (const d of [ws, join(ws, "memory"), env.HOME, env.OPENCLAW_STATE_DIR]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, "MEMORY.md"), "# Memory\n\nThe user prefers oolong tea.\n");
  run(gno, ["init", ws, "--name", "memory", "--pattern", "**/*.md"]);
  const config = { gateway: { mode: "local", auth: { mode: "token", token: TOKEN } }, agents: { defaults: { workspace: ws } } };
  writeFileSync(env.OPENCLAW_CONFIG_PATH, JSON.stringify(config));
  run(openclaw, ["plugins", "install", "--link", PLUGIN_DIR, "--force", "--accept-capabilities"]);
  const installed = JSON.parse(readFileSync(env.OPENCLAW_CONFIG_PATH, "utf8"));
  assert.equal(installed.plugins.slots.memory, "gno-memory");
  installed.plugins.entries["gno-memory"].config = { collection: "memory" };
  installed.plugins.entries["memory-core"] = { enabled: false };
  writeFileSync(env.OPENCLAW_CONFIG_PATH, JSON.stringify(installed, null, 2));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  let log = "";
  gateway = spawn(openclaw, ["gateway", "run", "--port", String(port), "--bind", "loopback"], { env });
  gateway.stdout.on("data", (b) => (log += b));
  gateway.stderr.on("data", (b) => (log += b));
  const deadline = Date.now() + 150000;
  for (;;) {
    if (gateway.exitCode !== null) throw new Error(`gateway exited ${gateway.exitCode}:\n${log}`);
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`gateway did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  if (gateway && gateway.exitCode === null) {
    gateway.kill("SIGTERM");
    await new Promise((r) => {
      const t = setTimeout(() => { gateway.kill("SIGKILL"); r(); }, 15000);
      gateway.on("exit", () => { clearTimeout(t); r(); });
    });
  }
  rmSync(root, { recursive: true, force: true });
});

test("memory_search syncs first: a file written a moment ago is found", { skip }, async () => {
  writeFileSync(join(ws, "memory", "2026-12-01.md"), "# 2026-12-01\n\nWe decided the kiwi launch is on Friday.\n");
  const d = await invoke("memory_search", { query: "kiwi launch", maxResults: 5 });
  assert.equal(d.provider, "gno");
  assert.equal(d.stale, undefined);
  assert.equal(d.results.length, 1);
  const [hit] = d.results;
  assert.equal(hit.path, "memory/2026-12-01.md");
  assert.deepEqual([hit.startLine, hit.endLine], [3, 3]);
  assert.equal(hit.citation, "memory/2026-12-01.md#L3");
  assert.ok(hit.score > 0 && hit.score <= 1);
  assert.match(hit.snippet, /kiwi launch is on Friday/);
  const none = await invoke("memory_search", { query: "kiwi", minScore: 0.99, maxResults: 1 });
  assert.ok(none.results.length <= 1);
});

test("memory_get reads the path memory_search returned", { skip }, async () => {
  writeFileSync(join(ws, "memory", "notes.md"), "# Notes\n\nline three\nThe walrus budget is 12k.\nline five\n");
  const [hit] = (await invoke("memory_search", { query: "walrus budget" })).results;
  const whole = await invoke("memory_get", { path: hit.path });
  assert.equal(whole.status, "ok");
  assert.equal(whole.path, "memory/notes.md");
  assert.match(whole.text, /The walrus budget is 12k\./);
  const part = await invoke("memory_get", { path: hit.path, from: hit.startLine, lines: 1 });
  const line = readFileSync(join(ws, "memory", "notes.md"), "utf8").split("\n")[hit.startLine - 1];
  assert.equal(part.text, `${line}\n\n[More content available. Use from=${hit.startLine + 1} to continue.]`);
  assert.equal(part.lines, 1);
  assert.equal(part.truncated, true);
  assert.equal(part.nextFrom, hit.startLine + 1);
  const cited = await invoke("memory_get", { path: hit.citation });
  assert.equal(cited.status, "ok");
  const gone = await invoke("memory_get", { path: "memory/never-written.md" });
  assert.deepEqual(gone, { status: "not_found", path: "memory/never-written.md", text: "" });
});

test("a failed sync marks the result stale and says so", { skip }, async () => {
  // another writer holds gno's write lease for longer than the plugin waits
  const lease = join(env.GNO_DATA_DIR, "index-default.write.lock");
  const hold = "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)";
  const holder = spawn("python3", ["-c", hold, lease], { env });
  await new Promise((resolve, reject) => {
    holder.stdout.on("data", (b) => String(b).includes("held") && resolve());
    holder.on("exit", (code) => reject(new Error(`lease holder exited ${code}`)));
  });
  try {
    writeFileSync(join(ws, "memory", "late.md"), "# Late\n\nThe quetzal file.\n");
    const d = await invoke("memory_search", { query: "oolong tea" });
    assert.equal(d.stale, true);
    assert.match(d.warning, /stale/);
    assert.match(d.action, /gno update -c memory/);
    assert.equal(d.results[0].path, "MEMORY.md");  // the index still answers what it has
    const late = await invoke("memory_search", { query: "quetzal" });
    assert.equal(late.stale, true);
    assert.equal(late.results.length, 0);
  } finally {
    holder.removeAllListeners("exit");
    holder.kill("SIGKILL");
    await new Promise((r) => holder.on("exit", r));
  }
  const fresh = await invoke("memory_search", { query: "quetzal" });
  assert.equal(fresh.stale, undefined);
  assert.equal(fresh.results[0].path, "memory/late.md");
});
