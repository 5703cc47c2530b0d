"""Egress lineage: where derived output may travel, inherited from its source collections.

Policies order `local_only` < `lan` < `remote`; a derived artifact's effective policy is the
most restrictive of its sources. The digest is SHA-256 of canonical (sorted-key) JSON of
`{effectivePolicy, sources}` so two artifacts with the same lineage carry the same digest.
`lineage_of` computes it as plain data from (name, policy, explicit) triples (what a cold recall
knows from the config snapshot); `lineage` is the model every other caller uses.
"""

from __future__ import annotations

from gno.tuples import Record

TYPE_CHECKING = False  # not typing's: a cold `gno recall` imports neither typing nor pydantic
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from gno.config import CollectionConfig
    from gno.models import EgressLineage

ORDER = {"local_only": 0, "lan": 1, "remote": 2}


class Source(Record):
    """One source collection's policy (the fields of `gno.models.EgressSource`, which derives from it)."""

    collection: str
    policy: str
    source: str


class Lineage(Record):
    """The lineage as plain data (the fields of `gno.models.EgressLineage`, which derives from it)."""

    effective_policy: str
    digest: str
    sources: Sequence[Source]


def lineage_of(collections: Iterable[tuple[str, str, bool]]) -> Lineage:
    """The lineage of collections given as (name, egress policy, whether the config set it)."""
    import hashlib
    import json

    seen: dict[str, Source] = {}
    for name, policy, explicit in collections:
        seen[name] = Source(collection=name, policy=policy, source="explicit" if explicit else "config_default")
    sources = [seen[k] for k in sorted(seen)][:128]
    effective = min((s.policy for s in sources), key=lambda p: ORDER.get(p, 0), default="local_only")
    payload = {"effectivePolicy": effective, "sources": [s._asdict() for s in sources]}
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Lineage(effective_policy=effective, digest=digest, sources=sources)


def lineage(collections: Iterable[CollectionConfig]) -> EgressLineage:
    from gno.models import EgressLineage
    from gno.wire import fields

    plain = lineage_of((c.name, c.egress_policy, c.egress_explicit) for c in collections)
    return EgressLineage.model_validate(fields(plain))
