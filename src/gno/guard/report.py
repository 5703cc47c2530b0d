"""What the Memory Guard would do to a text, without storing anything: the dry run behind
``gno service guard check``.

Why one function: every surface that explains the guard (the command, tests, the bench) reads the same
verdict: ``reject`` with the rule, its signals and span; ``redact`` with each marker's rule and the span of
the value it replaces; or ``store`` unchanged. Secret values never appear in it, only their spans.
"""

from __future__ import annotations

from gno.guard.guard import MemoryGuard


def check_report(text: str, *, marker_key: bytes | None = None) -> dict[str, object]:
    """The guard's verdict on ``text`` as a plain dict (the JSON the command prints)."""
    result = MemoryGuard(marker_key=marker_key).check_text(text)
    if result.rejected:
        return {"action": "reject", "message": result.message, **result.details()}
    details = result.details()
    if result.redacted:
        return {"action": "redact", "text": result.fields["text"], **details}
    return {"action": "store", "text": text, "redactions": []}


def render_report(report: dict[str, object]) -> list[str]:
    """The verdict as lines for people."""
    action = report["action"]
    if action == "reject":
        return [str(report["message"]), f"  why: {report.get('explanation', report['rule'])}"]
    lines = [f"{action}: {'stored unchanged' if action == 'store' else 'stored with secrets replaced'}"]
    redactions = report.get("redactions")
    for item in redactions if isinstance(redactions, list) else []:
        lines.append(f"  redacted [{item['rule']}] at {item['start']}-{item['end']}")
    if action == "redact":
        lines.append(f"  stored text: {report['text']}")
    return lines
