"""The Memory Guard: the single gate every memory write passes through.

Why this order: poisoning is checked first over *all* fields because a poisoned record must not be
stored at all, not even in redacted form, and one poisoned field taints the whole record. Only a
clean record is then redacted field by field; secrets never block a write, they are replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gno.guard.poisoning import PoisoningFinding, detect_poisoning
from gno.guard.secrets import SecretFinding, redact_secrets

REJECTION_PREFIX = "Memory rejected by Security Guard: "


class GuardRejected(Exception):
    """Raised by callers that refuse a poisoned write; ``str(exc)`` is the user-facing message."""

    def __init__(self, rule: str, field_name: str | None = None, excerpt: str = "") -> None:
        super().__init__(f"{REJECTION_PREFIX}{rule}")
        self.rule = rule
        self.field_name = field_name
        self.excerpt = excerpt

    def __str__(self) -> str:
        return f"{REJECTION_PREFIX}{self.rule}"


@dataclass(frozen=True)
class FieldSecretFinding:
    """A secret finding tagged with the field it came from."""

    field: str
    finding: SecretFinding


@dataclass(frozen=True)
class GuardResult:
    """Outcome of one check: either a rejection or the redacted fields (never both)."""

    fields: dict[str, str | None]
    secret_findings: list[FieldSecretFinding] = field(default_factory=list)
    rejected_rule: str | None = None
    rejected_field: str | None = None
    poisoning: PoisoningFinding | None = None

    @property
    def rejected(self) -> bool:
        return self.rejected_rule is not None

    @property
    def redacted(self) -> bool:
        return bool(self.secret_findings)

    @property
    def message(self) -> str | None:
        """The exact user-facing rejection message, if rejected."""
        return f"{REJECTION_PREFIX}{self.rejected_rule}" if self.rejected_rule else None

    def details(self) -> dict[str, object]:
        """What happened and why, for every surface: the rejecting rule (its family or the structural
        signals), field, span in the original field text and excerpt; or each redaction's rule, field and
        span. Never the secret values themselves."""
        if self.rejected_rule is not None:
            found = self.poisoning
            out: dict[str, object] = {"rule": self.rejected_rule, "field": self.rejected_field}
            if found is not None:
                out.update(start=found.start, end=found.end, excerpt=found.excerpt)
                if found.signals:
                    out.update(signals=list(found.signals), score=found.score)
                out["explanation"] = found.explain()
            return out
        return {
            "redactions": [
                {"field": f.field, "rule": f.finding.rule, "start": f.finding.start, "end": f.finding.end}
                for f in self.secret_findings
            ]
        }

    def raise_if_rejected(self) -> None:
        if self.rejected_rule is not None:
            excerpt = self.poisoning.excerpt if self.poisoning else ""
            raise GuardRejected(self.rejected_rule, self.rejected_field, excerpt)


class MemoryGuard:
    """Checks a record's text fields: reject poisoning, otherwise redact secrets."""

    def __init__(self, *, detect_injections: bool = True, redact: bool = True, marker_key: bytes | None = None) -> None:
        self.detect_injections = detect_injections
        self.redact = redact
        self.marker_key = marker_key  # the install's key for marker digests (see ``marker_key``)

    def check(self, fields: Mapping[str, str | None]) -> GuardResult:
        """Inspect every text field; ``None`` fields are passed through untouched."""
        if self.detect_injections:
            rejection = self._first_poisoned(fields)
            if rejection is not None:
                name, finding = rejection
                return GuardResult(
                    fields=dict(fields), rejected_rule=finding.rule, rejected_field=name, poisoning=finding
                )
        if not self.redact:
            return GuardResult(fields=dict(fields))
        return self._redact_all(fields)

    def enforce(self, fields: Mapping[str, str | None]) -> dict[str, str | None]:
        """Like :meth:`check`, but raise :class:`GuardRejected` instead of returning a rejection.

        Returns the redacted fields, ready to be written.
        """
        result = self.check(fields)
        result.raise_if_rejected()
        return result.fields

    def check_text(self, text: str) -> GuardResult:
        """Convenience for single-text callers."""
        return self.check({"text": text})

    @staticmethod
    def _first_poisoned(fields: Mapping[str, str | None]) -> tuple[str, PoisoningFinding] | None:
        for name, value in fields.items():
            if value:
                finding = detect_poisoning(value)
                if finding is not None:
                    return name, finding
        return None

    def _redact_all(self, fields: Mapping[str, str | None]) -> GuardResult:
        redacted: dict[str, str | None] = {}
        findings: list[FieldSecretFinding] = []
        for name, value in fields.items():
            if not value:
                redacted[name] = value
                continue
            result = redact_secrets(value, key=self.marker_key)
            redacted[name] = result.text
            findings.extend(FieldSecretFinding(name, f) for f in result.findings)
        return GuardResult(fields=redacted, secret_findings=findings)
