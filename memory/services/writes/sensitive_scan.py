"""Facts stored before writes were screened for personal data and secrets: found, counted by kind, and
(when asked) put right.

`scan_workspace` reads every readable fact of a workspace (a shredded origin's are skipped), runs the
write path's detector over its text and reports counts by kind, how many facts would be raised to
PII and how many hold a secret in clear. With `reclassify=True` it raises those facts'
classification to PII (one `reclassified` event each, naming the kinds found, never the values) and
holds every active fact with a secret in clear (lifecycle `held`, out of recall, a review item opened
through `write_held` like any held write) for a person to redact or purge it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from memory import sealing, signals
from memory.engine.safety import sensitive
from memory.models import Fact, Workspace
from memory.services.mutation import mutate
from memory.services.writes.near_duplicates import unindex_facts
from memory.services.writes.policy import RANK

CHUNK = 500


@dataclass
class ScanReport:
    workspace: str
    facts: int = 0
    unreadable: int = 0  # shredded origins: nothing to read
    by_kind: dict[str, int] = field(default_factory=dict)
    to_raise: list[str] = field(default_factory=list)  # fact ids whose classification is below PII
    with_secrets: list[str] = field(default_factory=list)  # fact ids holding a secret in clear
    reclassified: int = 0
    held: int = 0

    def to_dict(self) -> dict:
        out = asdict(self)
        out["to_raise"], out["with_secrets"] = out["to_raise"][:200], out["with_secrets"][:200]
        out["to_raise_count"], out["with_secrets_count"] = len(self.to_raise), len(self.with_secrets)
        return out


def scan_workspace(workspace: Workspace, *, reclassify: bool = False, actor: str = "scan",
                   progress: Callable[[int], None] | None = None) -> ScanReport:  # fmt: skip
    report = ScanReport(workspace.name)
    counts: Counter = Counter()
    found: dict[str, tuple[str, ...]] = {}
    facts = Fact.objects.filter(workspace=workspace).order_by("pk")
    for fact in facts.iterator(chunk_size=CHUNK):
        report.facts += 1
        try:
            text = fact.content
        except sealing.KeyDestroyedError:
            report.unreadable += 1
            continue
        findings = sensitive.scan(text)
        if progress:
            progress(1)
        if not findings:
            continue
        kinds = tuple(sensitive.kinds(findings))
        counts.update(kinds)
        found[fact.memory_id] = kinds
        if any(not f.secret for f in findings) and RANK[fact.classification] < RANK["PII"]:
            report.to_raise.append(fact.memory_id)
        if any(f.secret for f in findings) and fact.lifecycle in ("active", "held"):
            report.with_secrets.append(fact.memory_id)
    report.by_kind = {kind: counts[kind] for kind in sensitive.LABELS if counts[kind]}
    if reclassify and (report.to_raise or report.with_secrets):
        _put_right(workspace, report, found, actor)
    return report


def _put_right(workspace: Workspace, report: ScanReport, found: dict[str, tuple[str, ...]], actor: str) -> None:
    for start in range(0, len(report.to_raise), CHUNK):
        ids = report.to_raise[start : start + CHUNK]
        with mutate(workspace, actor=actor) as m:
            for fact in Fact.objects.filter(workspace=m.workspace, memory_id__in=ids):
                before = fact.classification
                fact.classification = "PII"
                fact.save(update_fields=["classification"])
                m.record("reclassified", fact_ids=[fact.memory_id], reason="its text holds personal data",
                         before={"classification": before}, after={"classification": "PII"},
                         detected=list(found[fact.memory_id]))  # fmt: skip
                report.reclassified += 1
    for memory_id in report.with_secrets:
        with mutate(workspace, actor=actor) as m:
            fact = Fact.objects.filter(workspace=m.workspace, memory_id=memory_id, lifecycle="active").first()
            if fact is None:
                continue  # held already: its review item stands
            secrets = [kind for kind in found[memory_id] if kind in sensitive.SECRETS]
            fact.lifecycle = "held"
            fact.save(update_fields=["lifecycle"])
            unindex_facts([fact.pk])
            reason = (f"holds a secret in clear ({', '.join(sensitive.LABELS[k] for k in secrets)}), stored before writes "
                      "were screened: correct it without the secret, or purge it")  # fmt: skip
            m.record("held", fact_ids=[memory_id], reason=reason, hold="secret", rules=[f"secret:{k}" for k in secrets],
                     before={"lifecycle": "active"}, after={"lifecycle": "held"})  # fmt: skip
            signals.write_held.send(sender=Fact, workspace=m.workspace, fact=fact, held_by=None, reason=reason,
                                    hold_kind="quarantine", replaces=[], rules=[f"secret:{k}" for k in secrets],
                                    mutation=m)  # fmt: skip
            report.held += 1

