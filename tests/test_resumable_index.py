"""A first index killed with SIGKILL keeps what it committed, and the next `update` finishes it.

The real `gno update` executable runs as a subprocess over a generated folder; the test watches
the index (a second, read-only SQLite connection, as any reader would) and kills the process once
it has committed 60 % of the files: decided by observed progress, never by a fixed sleep. At
every observation the full-text index and the document table agree (the index is consistent at
every commit). The resumed index must equal an uninterrupted one: same documents, same ids, same
search results.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gno.config import Settings, build_settings
from gno.engine import Engine

GNO_EXE = Path(sys.executable).parent / "gno"
FILES = 8000  # commits land every 2,000 files: 60 % is observed between two commits, well before the end
WORDS = ["otter", "heron", "marten", "badger", "lynx", "ibex", "tapir", "okapi"]


def make_notes(root: Path) -> None:
    for i in range(FILES):
        folder = root / f"part{i % 16:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        w = WORDS[i % len(WORDS)]
        (folder / f"note-{i:05d}.md").write_text(
            f"# Note {i}\n\nAll notes share common words; this one is about the {w} number {i}.\n"
            f"- tag #{w} and a link to [[note-{(i + 1) % FILES:05d}]]\n",
            encoding="utf-8",
        )


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "cache"))
    return env


def gno(home: Path, *args: str) -> Any:
    p = subprocess.run([str(GNO_EXE), *args, "--json"], env=env_for(home), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def observe(db: Path) -> tuple[int, int]:
    """(documents, full-text rows matching a word every note has) in one read snapshot."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        conn.execute("BEGIN")
        docs = conn.execute("SELECT COUNT(*) FROM documents WHERE active = 1").fetchone()[0]
        fts = conn.execute("SELECT COUNT(*) FROM documents_fts WHERE documents_fts MATCH 'common'").fetchone()[0]
        conn.execute("COMMIT")
        return int(docs), int(fts)
    except sqlite3.OperationalError:  # the schema is still being created
        return 0, 0
    finally:
        conn.close()


def snapshot(settings: Settings) -> dict[str, Any]:
    e = Engine(settings)
    try:
        rows = [
            tuple(r)
            for r in e.store.execute(
                "SELECT id, rel_path, docid, title, mirror_hash, active FROM documents ORDER BY id"
            )
        ]
        searches = {
            q: [(h.uri, h.score) for h in e.search(q, limit=20).results]
            for q in ["otter", "heron 17", "common words", "note 4242", '"number 7999"']
        }
        tags = [tuple(r) for r in e.store.execute("SELECT doc_id, tag FROM doc_tags ORDER BY 1, 2")]
        links = [tuple(r) for r in e.store.execute("SELECT doc_id, target_ref FROM doc_links ORDER BY 1, 2")]
        kinds = [tuple(r) for r in e.store.execute("SELECT kind, doc_id FROM document_changes ORDER BY doc_id")]
        return {"rows": rows, "searches": searches, "tags": tags, "links": links, "journal": kinds}
    finally:
        e.close()


def test_kill_9_at_60_percent_keeps_the_work_and_the_next_update_finishes(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    make_notes(notes)
    home = tmp_path / "killed"
    gno(home, "init", str(notes), "--name", "c")
    db = build_settings(env=env_for(home)).db_path

    proc = subprocess.Popen(
        [str(GNO_EXE), "update", "--json"], env=env_for(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    seen: list[int] = []
    try:
        while proc.poll() is None:
            docs, fts = observe(db) if db.exists() else (0, 0)
            assert fts == docs, "the full-text index and the documents disagree at a commit"
            seen.append(docs)
            if docs >= 0.6 * FILES:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.005)
    finally:
        rc = proc.wait(timeout=600)
    assert rc == -signal.SIGKILL, f"the update ended before 60 % was observed (seen {sorted(set(seen))[-5:]})"
    kept, fts = observe(db)
    assert kept == fts
    assert kept >= 0.5 * FILES
    assert kept < FILES

    resumed = gno(home, "update")["collections"][0]
    assert (resumed["unchanged"], resumed["added"], resumed["errors"]) == (kept, FILES - kept, 0)

    ref_home = tmp_path / "uninterrupted"
    gno(ref_home, "init", str(notes), "--name", "c")
    gno(ref_home, "update")
    assert snapshot(build_settings(env=env_for(home))) == snapshot(build_settings(env=env_for(ref_home)))
