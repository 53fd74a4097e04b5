"""What may be written: validation, worthiness, the provenance gate and the threat scan, in order.

Thin glue over the pure engine (`memory.engine.writes.gate`, `worthiness`, `scan`); the service layer looks
up the supersede targets and slot holders the gate needs and passes them in as plain tuples.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from memory.engine.facts import records as R
from memory.engine.safety import sensitive
from memory.engine.writes import holds
from memory.engine.writes.gate import (  # noqa: F401 - the error classes are part of this module's surface
    Allow,
    Block,
    Confine,
    FactValidationError,
    MemoryThreatError,
    SecretError,
    TidelineError,
    UnworthyFactError,
    WriteGateError,
    evaluate_write_gate,
)
from memory.engine.writes.worthiness import assess_worthiness
from memory.services.writes import untrusted

# Post-turn extraction and compaction distil a conversation: their protected-segment proposals are
# kept as knowledge (evidence) instead of being refused outright.
DISTILLERS = frozenset({"extraction", "compaction"})


def validate(new) -> str:
    """Check the shape of a write; return its content trimmed. Raises FactValidationError."""
    if not isinstance(new.content, str):
        raise FactValidationError("content must be text", ("content_type",))
    content = new.content.strip()
    if not content:
        raise FactValidationError("content is empty", ("content_empty",))
    if len(content) > R.MAX_FACT_CONTENT_CHARS:
        raise FactValidationError(
            f"content is {len(content)} characters; a fact is one clear sentence of at most "
            f"{R.MAX_FACT_CONTENT_CHARS} (split it, or keep the long text elsewhere and point to it)",
            ("content_too_long",),
        )
    checks = [
        ("classification", new.classification, R.CLASSIFICATIONS),
        ("modality", new.modality, R.MODALITIES),
    ]
    for field, value, allowed in checks:
        if value is not None and value not in allowed:
            raise FactValidationError(f"unknown {field} {value!r}; use one of: {', '.join(allowed)}", (f"unknown_{field}",))
    for name in ("importance", "confidence"):
        value = getattr(new, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
            raise FactValidationError(f"{name} must be a number", (f"bad_{name}",))
    if new.confidence is not None and not 0 <= new.confidence <= 1:
        raise FactValidationError("confidence must be between 0 and 1", ("bad_confidence",))
    for kind, target, _ in new.links:
        if kind not in R.LINK_KINDS:
            raise FactValidationError(f"unknown link kind {kind!r}", ("unknown_link_kind",))
        if not isinstance(target, str) or not target:
            raise FactValidationError("a link needs a target fact id", ("bad_link_target",))
    if new.subject_key is not None and not isinstance(new.subject_key, str):
        raise FactValidationError("subject key must be text", ("bad_subject_key",))
    return content


def check_worthiness(new, content: str) -> None:
    verdict = assess_worthiness(content, force=new.force, source_type=new.source_type)
    if not verdict.worthy:
        raise verdict.to_error()


def gate(new, *, targets: Iterable, holders: Iterable) -> Allow | Confine:
    """The provenance gate's decision, or its refusal raised as WriteGateError / FactValidationError."""
    decision = evaluate_write_gate(
        segment=new.segment,
        source_type=new.source_type,
        origin_key=new.origin.key,
        tier=new.tier,
        status=new.status,
        importance=new.importance,
        supersede_targets=[(f.memory_id, f.source_type, f.origin_key) for f in targets],
        slot_holders=[(f.memory_id, f.source_type, f.origin_key) for f in holders],
        distiller=new.source_type in DISTILLERS,
    )
    if isinstance(decision, Block):
        raise decision.to_error()
    return decision


def scan(new, content: str) -> holds.Hold | None:
    """Untrusted content is read for injected instructions; trusted writers are never scanned.

    A plain attack is refused (MemoryThreatError naming its rules); text that addresses the agent
    instead of stating a fact comes back as a hold, so a person decides (ENGINE-SPEC Decision 18). The judgement is
    `untrusted.judge`, the one recall's rescan uses, so a stored fact never reads differently later."""
    if not R.is_untrusted_source(new.source_type):
        return None
    verdict = untrusted.judge(content)
    if verdict.action == "refuse":
        error = MemoryThreatError.for_rules(verdict.rules)
        error.matches = verdict.matches  # which rule matched and why, for the caller's report
        raise error
    if verdict.action == "hold":
        return holds.Hold(holds.QUARANTINE, verdict.reason, verdict.rules, verdict.detector_score)
    return None


RANK = {name: rank for rank, name in enumerate(R.CLASSIFICATIONS)}  # PUBLIC < INTERNAL < PII


@dataclass(frozen=True)
class Screened:
    """What the sensitive-data screen made of a write: the text to store (secrets replaced), the kinds
    found (never their values) and the classification (at least PII when personal data was found)."""

    content: str
    detected: tuple[str, ...]
    classification: str | None


def screen_sensitive(new, content: str) -> Screened:
    """Personal data raises the classification to PII (a writer may claim more, never less); a secret in
    untrusted content refuses the write (`SecretError`), in trusted words it is replaced by a
    placeholder naming its kind before anything is stored, hashed or indexed."""
    return screen_text(content, source_type=new.source_type, classification=new.classification)


def screen_text(content: str, *, source_type: str | None, classification: str | None,
                refuse_secrets: bool = False) -> Screened:  # fmt: skip
    """`screen_sensitive` for any text; `refuse_secrets` refuses a secret even in trusted words (an
    import's --strict)."""
    findings = sensitive.scan(content)
    if not findings:
        return Screened(content, (), classification)
    detected = tuple(sensitive.kinds(findings))
    secrets = [f for f in findings if f.secret]
    if secrets and (refuse_secrets or R.is_untrusted_source(source_type)):
        labels = ", ".join(dict.fromkeys(f.label for f in secrets))
        who = "this import (strict)" if refuse_secrets else f"content from {source_type}"
        raise SecretError(f"the text holds a secret ({labels}); {who} never stores one: leave it out",
                          tuple(f"secret:{f.kind}" for f in secrets))  # fmt: skip
    if any(not f.secret for f in findings):
        claimed = classification or R.DEFAULT_CLASSIFICATION
        classification = "PII" if RANK[claimed] < RANK["PII"] else claimed
    return Screened(sensitive.redact(content, findings) if secrets else content, detected, classification)
