// Run the `gno` command line and read its JSON: the plugin's only way to reach gno.
//
// Every call returns {ok, data} or {ok: false, error}; nothing throws, so a missing or broken
// gno degrades a tool result (unavailable, stale) instead of failing the agent's turn.
import { execFile } from "node:child_process";

export function runGno(args, { bin = "gno", timeoutMs = 30000, env = process.env } = {}) {
  return new Promise((resolve) => {
    execFile(bin, [...args, "--json"], { timeout: timeoutMs, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && err.code === "ENOENT") {
        resolve({ ok: false, error: `\`${bin}\` is not on PATH; install gno (pip install gno)`, missing: true });
        return;
      }
      let data;
      try {
        data = JSON.parse(stdout);
      } catch {
        const why = err ? (err.killed ? "timed out" : `exit ${err.code}`) : "malformed JSON";
        resolve({ ok: false, error: `gno ${args[0]} failed (${why}): ${String(stderr || stdout).trim().slice(0, 300)}` });
        return;
      }
      if (data && typeof data === "object" && data.error && typeof data.error === "object") {
        resolve({ ok: false, error: `[${data.error.code}] ${data.error.message}`, code: data.error.code, data });
        return;
      }
      if (err) {
        resolve({ ok: false, error: `gno ${args[0]} failed with exit ${err.code}` });
        return;
      }
      resolve({ ok: true, data });
    });
  });
}
