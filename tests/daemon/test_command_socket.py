"""CLI commands answered by a real resident owner: the same bytes, exit codes and identity as in-process.

A `gno daemon` subprocess owns a temp data directory; each command runs as a real `gno` process
twice, through the owner and with GNO_NO_DAEMON=1, and stdout, stderr and the exit code must
agree (a result's `elapsedMs` aside). `-X importtime` shows which path answered: a client the
owner answered never imports click.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.owner_socket import connect, short_address, socket_path
from gno.settings import build_settings

#: what differs between any two runs (a duration, a receipt's time and digest); masked before comparing
VOLATILE = re.compile(r'"(?:elapsedMs|issuedAt|digest)": [^,\n]+|receipt [0-9a-f]{12}')


def gno(
    *args: str, env: dict[str, str], stdin: str | None = None, cwd: Path | None = None, owner: bool = True
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `gno ARGS`; the modules it imported; the importtime lines are kept out of stderr."""
    e = dict(env)
    if not owner:
        e["GNO_NO_DAEMON"] = "1"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gno", *args],
        capture_output=True,
        text=True,
        env=e,
        input=stdin,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    lines = proc.stderr.splitlines(keepends=True)
    mods = {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.startswith("import time:") and "|" in ln}
    proc.stderr = "".join(ln for ln in lines if not ln.startswith("import time:"))
    return proc, mods


def _answers(path: str) -> bool:
    if not os.path.exists(path):
        return False
    try:
        connect(path, 5.0).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Notes and a memory collection with one fact, owned by a running `gno daemon`: its environment."""
    root = tmp_path_factory.mktemp("owned")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(root / "config"), GNO_DATA_DIR=str(root / "data"), GNO_CACHE_DIR=str(root / "cache"))
    env["NO_COLOR"] = "1"
    notes, memory = root / "notes", root / "memory"
    notes.mkdir()
    memory.mkdir()
    (notes / "deploy.md").write_text("# Deploy process\n\nDeploys go out on Tuesdays after review.\n")
    (notes / "rollback.md").write_text("# Rollback\n\nRoll back with the previous tag.\n")
    for args in (
        ("init", str(notes), "--name", "notes"),
        ("collection", "add", str(memory), "--name", "memory", "--memory"),
        ("update",),
        ("remember", "Releases are cut on Mondays.", "-s", "team", "--add"),
    ):
        cp, _ = gno(*args, env=env, owner=False)
        assert cp.returncode == 0, (args, cp.stdout, cp.stderr)
    out = root / "daemon.out"
    with open(out, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gno", "daemon", "--no-embed", "--no-sync-on-start"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    try:
        path = socket_path(build_settings(env=env).data_root)
        deadline = time.monotonic() + 180
        while not _answers(path):
            assert proc.poll() is None, out.read_text()
            assert time.monotonic() < deadline, "the owner never answered on its command socket"
            time.sleep(0.2)
        env["_ROOT"] = str(root)
        yield env
    finally:
        proc.terminate()
        proc.wait(30)


PARITY = [
    ("status",),
    ("status", "--json"),
    ("search", "deploy", "--json"),
    ("query", "deploy", "--json"),
    ("recall", "releases", "-s", "team"),
    ("recall", "releases", "-s", "team", "--json"),
    ("get", "notes/deploy.md"),
    ("get", "notes/nosuch.md"),
    ("get", "notes/nosuch.md", "--json"),
    ("ls", "notes"),
    ("search",),
    ("recall", "x", "--limit", "zero"),
    ("--index", "no/such", "status"),
    ("nosuchcommand",),
]


@pytest.mark.parametrize("args", PARITY, ids=lambda a: " ".join(a))
def test_owner_prints_what_the_process_prints(home: dict[str, str], args: tuple[str, ...]) -> None:
    served, mods = gno(*args, env=home)
    local, local_mods = gno(*args, owner=False, env=home)
    assert not {"click", "pydantic", "numpy", "sqlite3"} & mods, "the owner answers, not this process"
    assert "sqlite3" in local_mods or local.returncode != 0
    assert (served.returncode, VOLATILE.sub("", served.stdout), served.stderr) == (
        local.returncode,
        VOLATILE.sub("", local.stdout),
        local.stderr,
    )


def test_errors_keep_their_exit_codes(home: dict[str, str]) -> None:
    cp, _ = gno("get", "notes/nosuch.md", "--json", env=home)
    assert cp.returncode == 1 and '"NOT_FOUND"' in cp.stdout
    cp, _ = gno("recall", "x", "--limit", "zero", env=home)
    assert cp.returncode == 1 and cp.stderr.startswith("error [VALIDATION]")


def test_writes_keep_the_callers_identity_and_reach_the_index(home: dict[str, str]) -> None:
    env = {**home, "GNO_MEMORY_CALLER": "agent:alice"}
    cp, mods = gno("remember", "Hotfixes need two reviewers.", "-s", "team", "--add", "--json", env=env)
    assert cp.returncode == 0, cp.stderr
    assert "click" not in mods
    record = json.loads(cp.stdout)["record"]
    # the caller from the client's environment, the session from the client's parent (this test)
    assert (record["caller"], record["session"]) == ("agent:alice", f"ppid:{os.getpid()}")
    found, _ = gno("recall", "hotfixes reviewers", "-s", "team", "--json", owner=False, env=home)
    assert "Hotfixes need two reviewers." in found.stdout


def test_stdin_and_cwd_are_the_callers(home: dict[str, str], tmp_path: Path) -> None:
    args = ("capture", "--stdin", "--collection", "notes", "--title", "From stdin")
    cp, mods = gno(*args, stdin="Piped body text.\n", env=home)
    assert cp.returncode == 0, cp.stderr
    assert "click" not in mods
    got, _ = gno("search", "piped body", "--json", owner=False, env=home)
    assert "Piped body text" in got.stdout
    # a relative path resolves against the caller's working directory, not the owner's
    (tmp_path / "work" / "more").mkdir(parents=True)
    (tmp_path / "work" / "more" / "m.md").write_text("# M\n\nMarmots everywhere.\n")
    cp, _ = gno("collection", "add", "more", "--name", "more", cwd=tmp_path / "work", env=home)
    assert cp.returncode == 0, cp.stderr
    listed, _ = gno("collection", "list", "--json", owner=False, env=home)
    assert str(tmp_path / "work" / "more") in listed.stdout


def test_no_daemon_flag_and_env_run_in_process(home: dict[str, str]) -> None:
    in_process = {"click", "gno.cli.cold_status"}  # click, or the cold status once the models are recorded
    _, mods = gno("--no-daemon", "status", env=home)
    assert in_process & mods
    _, mods = gno("status", env={**home, "GNO_NO_DAEMON": "1"})
    assert in_process & mods


def test_another_version_is_refused_and_runs_in_process(home: dict[str, str]) -> None:
    root = build_settings(env=home).data_root
    probe = "import sys; from gno.cli.forward import run_on_owner as r; print(r(['status'], sys.argv[1], sys.argv[2]))"
    for version, answer in (("0.0.0-other", "None"), (__import__("gno").__version__, "0")):
        cp = subprocess.run([sys.executable, "-c", probe, root, version], capture_output=True, text=True, env=home)
        assert cp.stdout.strip().splitlines()[-1] == answer, (version, cp.stdout, cp.stderr)


def test_a_stale_socket_is_ignored(tmp_path: Path, gno_home: Path) -> None:
    env = dict(os.environ)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe first marmot.\n")
    assert gno("init", str(notes), "--name", "notes", owner=False, env=env)[0].returncode == 0
    path = socket_path(build_settings().data_root)
    os.makedirs(os.path.dirname(path), mode=0o700)
    addr, dir_fd = short_address(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr)
    s.close()  # the file stays, nobody listens: an owner that died
    if dir_fd is not None:
        os.close(dir_fd)
    cp, mods = gno("status", env=env)
    local, _ = gno("status", owner=False, env=env)
    assert (cp.returncode, cp.stdout, cp.stderr) == (local.returncode, local.stdout, local.stderr)
    assert "click" in mods


# -- gno mcp (stdio) through the owner -------------------------------------------------------------


def _gno_tree(data_dir: str, command: bytes) -> dict[int, int]:
    """pid → parent pid of the `python -m gno COMMAND` processes started for `data_dir` (from /proc)."""
    tree = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if cmd[1:4] == [b"-m", b"gno", command] and f"GNO_DATA_DIR={data_dir}".encode() in environ:
            tree[int(entry.name)] = ppid
    return tree


def _gno_processes(data_dir: str) -> list[int]:
    """Pids of `python -m gno mcp` processes started for `data_dir`."""
    return list(_gno_tree(data_dir, b"mcp"))


async def _mcp_exchange(env: dict[str, str]) -> tuple[list[str], list[dict[str, object]], list[str]]:
    """Tools listed, two tool results, and the shared objects the `gno mcp` process had mapped."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gno", "mcp"], env=env)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as sess:
        await sess.initialize()
        tools = sorted(t.name for t in (await sess.list_tools()).tools)
        results = []
        calls = (("gno_search", {"query": "deploy"}), ("gno_recall", {"query": "releases", "scopes": ["team"]}))
        for name, args in calls:
            res = await sess.call_tool(name, args)
            assert res.is_error is False, res
            body = json.loads(VOLATILE.sub('"x": 0', json.dumps(res.structured_content, indent=0)))
            assert body.pop("receipt", {"session": "stdio:"})["session"].startswith("stdio:")  # one per server
            results.append(body)
        maps = [(Path("/proc") / str(pid) / "maps").read_text() for pid in _gno_processes(env["GNO_DATA_DIR"])]
    return tools, results, maps


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_mcp_stdio_is_served_by_the_owner(home: dict[str, str]) -> None:
    import asyncio

    tools, served, maps = asyncio.run(_mcp_exchange(home))
    assert maps and not any("pydantic_core" in m or "onnxruntime" in m for m in maps), "the stdio process relays"
    local_tools, local, local_maps = asyncio.run(_mcp_exchange({**home, "GNO_NO_DAEMON": "1"}))
    assert local_maps and all("pydantic_core" in m for m in local_maps)
    assert (tools, served) == (local_tools, local)


def _on_terminal(args: tuple[str, ...], env: dict[str, str]) -> bytes:
    """What `gno ARGS` writes to a 72-column terminal (a pty) as its stdout and stderr."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 72, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "gno", *args], stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(120)
    os.close(master)
    return bytes(out)


@pytest.mark.parametrize("args", [("search", "deploy"), ("status",), ("get", "notes/nosuch.md")], ids=" ".join)
def test_terminal_decisions_follow_the_callers_terminal(home: dict[str, str], args: tuple[str, ...]) -> None:
    env = {k: v for k, v in home.items() if k not in ("NO_COLOR", "COLUMNS")}
    env["TERM"] = "xterm-256color"
    served = _on_terminal(args, env)
    local = _on_terminal(args, {**env, "GNO_NO_DAEMON": "1"})
    assert served == local and served
    if args[0] == "search":
        assert b"\x1b[" in served, "a terminal gets the styled rendering"


def test_a_write_gets_the_callers_umask(home: dict[str, str]) -> None:
    args = [sys.executable, "-m", "gno", "capture", "Private note body.", "-c", "notes", "--title", "Private", "--json"]
    cp = subprocess.run(args, capture_output=True, text=True, env=home, umask=0o077, timeout=120)
    assert cp.returncode == 0, cp.stderr
    path = Path(json.loads(cp.stdout)["absPath"])
    assert path.stat().st_mode & 0o777 == 0o600


def test_workers_warm_up_on_a_scratch_index_never_the_users(home: dict[str, str]) -> None:
    """Spares run the common reads on `<data>/run/warm` before a caller arrives: nothing of it
    reaches the user's index, and the answers stay the in-process ones (the parity tests above)."""
    scratch = Path(home["GNO_DATA_DIR"]) / "run" / "warm"
    assert (scratch / "config" / "index.yml").is_file() and (scratch / "notes" / "deploys.md").is_file()
    for args in (("recall", "releases", "-s", "team", "--json"), ("query", "deploy", "--json")):
        served, _ = gno(*args, env=home)
        local, _ = gno(*args, env=home, owner=False)
        assert VOLATILE.sub("", served.stdout) == VOLATILE.sub("", local.stdout)
    found, _ = gno("search", "prototype", "--json", env=home, owner=False)
    assert json.loads(found.stdout)["results"] == []
    facts, _ = gno("recall", "deploys", "-s", "team", "--json", env=home, owner=False)
    assert all(f["caller"] != "warm-up" for f in json.loads(facts.stdout)["facts"])


def test_the_default_model_is_kept_once() -> None:
    from gno.embed import registry

    try:
        default = registry.keep_warm(None)
    except registry.EmbedderUnavailable:
        pytest.skip("no local model installed")
    try:
        assert registry.keep_warm("minilm" if "minilm" in default.model_id else "wordllama") is default
        assert registry.load_embedder(None) is default
    finally:
        registry._WARM.clear()


def test_answers_follow_the_index_after_a_write_with_the_matrix_kept_by_the_template(home: dict[str, str]) -> None:
    """The template keeps the vector matrix for its workers; they use it only while the index is of
    the same generation, so every answer is the in-process one, before and after a write."""
    cp, _ = gno("embed", env=home, owner=False)
    assert cp.returncode == 0, cp.stderr

    def same(*args: str) -> str:
        served, _ = gno(*args, env=home)
        local, _ = gno(*args, env=home, owner=False)
        assert served.returncode == local.returncode == 0, served.stderr + local.stderr
        assert VOLATILE.sub("", served.stdout) == VOLATILE.sub("", local.stdout)
        return served.stdout

    for _ in range(3):  # the template reloads the matrix between commands, once it is quiet
        same("query", "deploy", "--json")
        time.sleep(0.6)
    (Path(home["_ROOT"]) / "notes" / "canary.md").write_text("# Canary\n\nCanary releases go to one region first.\n")
    for args in (("update",), ("embed",)):
        cp, _ = gno(*args, env=home, owner=False)
        assert cp.returncode == 0, cp.stderr
    assert "canary.md" in same("query", "canary releases region", "--json")
    time.sleep(0.6)
    assert "canary.md" in same("vsearch", "canary releases region", "--json")


def _read_bytes_of_spares(data_dir: str) -> dict[int, int]:
    """Bytes each waiting spare has read so far (`/proc/<pid>/io` rchar): a warmed one read its scratch index."""
    tree = _gno_tree(data_dir, b"daemon")  # the owner, its template, the template's spares
    out = {}
    for pid, ppid in tree.items():
        if tree.get(ppid) in tree:  # forked by the template, itself forked by the owner
            with contextlib.suppress(OSError, StopIteration):
                io = (Path("/proc") / str(pid) / "io").read_text().splitlines()
                out[pid] = int(next(ln for ln in io if ln.startswith("rchar:")).split()[1])
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_spares_forked_cold_during_a_burst_are_replaced_by_warm_ones_once_quiet(home: dict[str, str]) -> None:
    """A burst of callers takes every warm spare, so the template forks cold ones (no warm-up while
    commands run); once it is quiet, the cold ones left waiting are retired and warmed spares wait
    instead, so the next caller is never answered at a cold spare's cost."""
    from concurrent.futures import ThreadPoolExecutor

    data_dir = home["GNO_DATA_DIR"]
    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda _: gno("search", "deploy", "--json", env=home)[0].returncode, range(6)))
    assert codes == [0] * 6
    deadline = time.monotonic() + 90
    spares = _read_bytes_of_spares(data_dir)
    while not (len(spares) == 3 and min(spares.values()) > 64 * 1024):
        assert time.monotonic() < deadline, f"spares still waiting cold (bytes read): {spares}"
        time.sleep(0.5)
        spares = _read_bytes_of_spares(data_dir)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_without_a_scratch_index_every_spare_is_still_forked(tmp_path: Path, gno_home: Path) -> None:
    """Spares are warmed one at a time, each telling the template when it is done; where no scratch
    index could be built (here a file stands where its folder goes) there is no warm-up to wait for,
    and the template still keeps all its spares waiting."""
    env = dict(os.environ)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe first marmot.\n")
    assert gno("init", str(notes), "--name", "notes", owner=False, env=env)[0].returncode == 0
    data_dir = build_settings().data_root
    (Path(data_dir) / "run").mkdir(mode=0o700, parents=True)
    (Path(data_dir) / "run" / "warm").write_text("not a folder\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gno", "daemon", "--no-embed", "--no-sync-on-start"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            tree = _gno_tree(data_dir, b"daemon")
            spares = [pid for pid, ppid in tree.items() if tree.get(ppid) in tree]
            if len(spares) == 3:
                break
            assert proc.poll() is None, "the owner exited"
            assert time.monotonic() < deadline, f"spares waiting: {spares}"
            time.sleep(0.3)
        assert gno("search", "marmot", env=env)[0].stdout == gno("search", "marmot", env=env, owner=False)[0].stdout
    finally:
        proc.terminate()
        proc.wait(30)
