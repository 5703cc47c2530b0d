"""llama.cpp's OpenAI-compatible HTTP server from the ``xllamacpp`` wheel, as a process of its own.

``xllamacpp`` (PyPI) ships llama.cpp prebuilt for Linux x86_64 (``manylinux2014`` wheel) with its
HTTP server inside; ``llama-cpp-python[server]`` is an sdist that compiles llama.cpp for tens of
minutes. This script starts that server on a model and serves until it is terminated, so
``bench/ask_generator.py --server xllamacpp`` can run it like any other server process.

Run it with a Python that has ``xllamacpp`` installed (not the project's: it is a bench tool)::

    python bench/xllamacpp_server.py --model M.gguf --port 8765 --ctx 4096 --threads 2 --chat-template gemma
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--chat-template", default="gemma", help="a template name llama.cpp knows ('' = the model's)")
    args = ap.parse_args()
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = args.model
    p.n_ctx = args.ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.hostnames = [args.host]
    p.port = args.port
    if args.chat_template:
        p.use_jinja = False  # a built-in template by name, not a Jinja template text
        p.chat_template = args.chat_template
    server = xllamacpp.Server(p)
    print(f"listening on {server.listening_address}", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
