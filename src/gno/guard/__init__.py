"""Memory Guard: keeps secrets and prompt-injection payloads out of gno's memory.

Every write goes through :class:`MemoryGuard`: poisoned records are rejected with
``Memory rejected by Security Guard: <rule>``; secrets in clean records are replaced by
``[REDACTED:<rule>:<sha256[:8]>]`` and the record is saved.
"""

from gno.guard.guard import REJECTION_PREFIX, FieldSecretFinding, GuardRejected, GuardResult, MemoryGuard
from gno.guard.poisoning import RULE_IDS as POISONING_RULES
from gno.guard.poisoning import PoisoningFinding, detect_poisoning, normalize
from gno.guard.secrets import MARKER_RE, RedactionResult, SecretFinding, redact_secrets

__all__ = [
    "MARKER_RE",
    "POISONING_RULES",
    "REJECTION_PREFIX",
    "FieldSecretFinding",
    "GuardRejected",
    "GuardResult",
    "MemoryGuard",
    "PoisoningFinding",
    "RedactionResult",
    "SecretFinding",
    "detect_poisoning",
    "normalize",
    "redact_secrets",
]
