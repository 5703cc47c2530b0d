"""`gno audit`: report (never repair) fact files that break the memory contract.

Each finding has a stable id (sha256 of rule + uri), the rule `provenance.memory-record` and
every diagnostic code of the file, so a hand edit that broke a record is easy to find.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from gno.config import CollectionConfig
from gno.models.memory_results import AuditFinding, AuditResult
from gno.store import memory as mstore
from gno.store.db import Store

RULE = "provenance.memory-record"


def audit_memory(store: Store, managed: Sequence[CollectionConfig], max_findings: int = 100) -> AuditResult:
    counts = mstore.memory_counts(store, [c.name for c in managed])
    findings = [
        AuditFinding(
            id=hashlib.sha256(f"{RULE}\n{d['uri']}".encode()).hexdigest()[:16],
            rule=RULE,
            uri=d["uri"],
            codes=d["codes"],
            message="fact file breaks the memory contract (excluded from recall): " + ", ".join(d["codes"]),
        )
        for d in counts["diagnostics"][:max_findings]
    ]
    return AuditResult(status="findings" if findings else "clean", findings=findings, checked=counts["facts"])
