"""A scripted OpenAI-compatible chat endpoint on loopback: the only stand-in in these tests.

Hermes, its plugin discovery, its memory manager and tool dispatch, and gno all run for real;
there is no language model on this machine, so the model's side of the conversation is a script:
each request gets the next scripted reply (a tool call or a final text), and every request body
is recorded so a test can see exactly what Hermes sent (the injected memory context, the tools
offered, the tool results).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"tool": name, "args": args}


def final(text: str) -> dict[str, Any]:
    return {"text": text}


class Script:
    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append(body)
            return self.replies.pop(0) if self.replies else final("(script exhausted)")


def _message(reply: dict[str, Any], n: int) -> dict[str, Any]:
    if "tool" in reply:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {"name": reply["tool"], "arguments": json.dumps(reply["args"])},
                }
            ],
        }
    return {"role": "assistant", "content": reply["text"]}


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # /v1/models and the like
            self._json({"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "test"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json({"error": {"message": f"unsupported {self.path}"}}, 404)
                return
            reply = script.next(body)
            n = len(script.requests)
            msg = _message(reply, n)
            finish = "tool_calls" if "tool" in reply else "stop"
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            base = {"id": f"chatcmpl-{n}", "created": int(time.time()), "model": body.get("model", "fake-model")}
            if not body.get("stream"):
                self._json({**base, "object": "chat.completion", "usage": usage,
                            "choices": [{"index": 0, "message": msg, "finish_reason": finish}]})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            delta: dict[str, Any] = {"role": "assistant"}
            if msg.get("tool_calls"):
                delta["tool_calls"] = [{"index": 0, **msg["tool_calls"][0]}]
            else:
                delta["content"] = msg["content"]
            for chunk in (
                {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]},
                {**base, "object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
            ):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _json(self, data: dict[str, Any], status: int = 200) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler


@contextmanager
def fake_llm(replies: list[dict[str, Any]]) -> Iterator[tuple[str, Script]]:
    """Serve `replies` at http://127.0.0.1:<free port>/v1; yield (base_url, script)."""
    script = Script(replies)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()
