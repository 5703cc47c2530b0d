"""Egress lineage: where derived output may travel, inherited from its source collections.

Policies order `local_only` < `lan` < `remote`; a derived artifact's effective policy is the
most restrictive of its sources. The digest is SHA-256 of canonical (sorted-key) JSON of
`{effectivePolicy, sources}` so two artifacts with the same lineage carry the same digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from gno.config import CollectionConfig
from gno.models import EgressLineage, EgressSource

ORDER = {"local_only": 0, "lan": 1, "remote": 2}


def lineage(collections: Iterable[CollectionConfig]) -> EgressLineage:
    seen: dict[str, EgressSource] = {}
    for c in collections:
        src = "explicit" if "egress_policy" in c.model_fields_set else "config_default"
        seen[c.name] = EgressSource(collection=c.name, policy=c.egress_policy, source=src)
    sources = [seen[k] for k in sorted(seen)][:128]
    effective = min((s.policy for s in sources), key=lambda p: ORDER.get(p, 0), default="local_only")
    payload = {"effectivePolicy": effective, "sources": [s.dump() for s in sources]}
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return EgressLineage(effective_policy=effective, digest=digest, sources=sources)
