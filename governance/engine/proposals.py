"""Self-improvement proposals as plain rules (ENGINE-SPEC §7: the human-gated loop).

What a proposal must clear before anyone may approve it, judged on the per-case metrics of the
workspace's approved gold sets, baseline against candidate, case by case:

* a change that can alter what recall returns ("beat"): ENGINE-SPEC Decision 11 — the paired
  bootstrap 95% CI of the MRR delta lies above 0, and neither recall@k nor nDCG@k drops by more
  than 0.01;
* a change that only takes facts away (a retraction, a maintenance threshold) ("not lose"): no
  metric's paired 95% CI lower bound below −0.01, and no fact an approved gold case needs is taken.

Also here: which facts telemetry proposes to retract and which facts a proposal may never retract.
The search a recall-miss proposal comes from is `settings_search`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memory.engine import tuning as T
from memory.engine.recall.metrics import MAX_METRIC_DROP, EvalReport, paired_bootstrap_ci

BEAT, NOT_LOSE = "beat", "not_lose"
METRICS = (("mrr", "reciprocal_rank"), ("recall_at_k", "recall_at_k"), ("ndcg_at_k", "ndcg_at_k"),
           ("hit_at_k", "hit_at_k"))  # fmt: skip
LOSS_FLOOR = -0.01  # "must not lose": no metric's CI lower bound below this
DEFAULT_MIN_DOWNVOTES = 3
PROTECTED_SEGMENTS = frozenset({"identity"})  # with the permanent (pinned) tier: never retracted by a proposal


def bar_for(change: str, before: T.Tuning | None = None, after: T.Tuning | None = None) -> str:
    """Which bar a proposal must clear: recall-settings changes must beat it, the rest must not lose."""
    if change == "tuning" and before is not None and after is not None and T.recall_changed(before, after):
        return BEAT
    return NOT_LOSE


@dataclass(frozen=True)
class Delta:
    metric: str
    baseline: float
    candidate: float
    mean: float
    lo: float
    hi: float
    pairs: int

    def as_dict(self) -> dict:
        return {"metric": self.metric, "baseline": self.baseline, "candidate": self.candidate, "mean": self.mean,
                "ci95": [self.lo, self.hi], "pairs": self.pairs}  # fmt: skip


def _mean(values: Iterable[float]) -> float:
    kept = [v for v in values if math.isfinite(v)]
    return sum(kept) / len(kept) if kept else float("nan")


def deltas(baseline: EvalReport, candidate: EvalReport, *, seed: int = 1) -> dict[str, Delta]:
    """Each metric's means and the paired bootstrap CI of candidate − baseline (same cases, same order)."""
    out = {}
    for name, attr in METRICS:
        base = [getattr(r, attr) for r in baseline.per_case]
        cand = [getattr(r, attr) for r in candidate.per_case]
        ci = paired_bootstrap_ci(base, cand, seed=seed)
        out[name] = Delta(name, _mean(base), _mean(cand), ci.mean, ci.lo, ci.hi, ci.n)
    return out


@dataclass(frozen=True)
class Movement:
    """How the scored cases moved between baseline and candidate, for a verdict that says why."""

    scored: int = 0  # answerable cases scored
    better: int = 0  # cases whose reciprocal rank rose
    worse: int = 0
    perfect: int = 0  # cases the baseline already answers first
    violations_before: int = 0  # abstention cases that got a hit
    violations_after: int = 0


def movement(baseline: EvalReport, candidate: EvalReport) -> Movement:
    pairs = [(b, c) for b, c in zip(baseline.per_case, candidate.per_case, strict=True) if not b.abstention]
    return Movement(
        scored=len(pairs), better=sum(c.reciprocal_rank > b.reciprocal_rank + 1e-12 for b, c in pairs),
        worse=sum(c.reciprocal_rank < b.reciprocal_rank - 1e-12 for b, c in pairs),
        perfect=sum(b.reciprocal_rank >= 1.0 for b, _ in pairs),
        violations_before=sum(r.abstention_violation for r in baseline.per_case),
        violations_after=sum(r.abstention_violation for r in candidate.per_case),
    )  # fmt: skip


def fewest_to_show_a_gain(n: int, *, ci: float = 0.95) -> int:
    """The fewest cases that must rank better, none worse, before the paired bootstrap's interval can
    lie above 0 with `n` cases: a resample that draws none of them has a change of exactly 0, and
    that must happen less often than the interval's lower tail, (1 − better/n)^n < (1 − ci)/2."""
    tail = (1 - ci) / 2
    return next((m for m in range(1, n + 1) if (1 - m / n) ** n < tail), n + 1) if n else 1


@dataclass(frozen=True)
class Verdict:
    clears: bool
    reason: str


def _cannot_show(moved: Movement) -> str | None:
    """Why a gold set cannot show any gain for this change, whatever its merit (None: it can)."""
    if moved.scored and moved.perfect == moved.scored:
        return (f"every one of the {moved.scored} scored gold cases already finds its fact first, so no change can "
                "show a gain on these gold sets: add cases that recall gets wrong")  # fmt: skip
    if moved.scored and not moved.better and not moved.worse:
        return (f"none of the {moved.scored} scored gold cases ranks differently under it, so the gold sets cannot "
                "tell it from the settings in force")  # fmt: skip
    needed = fewest_to_show_a_gain(moved.scored)
    if moved.better < needed:
        return (f"only {moved.better} of the {moved.scored} scored cases rank better ({moved.worse} worse); with "
                f"{moved.scored} cases at least {needed} must rank better, none worse, before the 95% interval can "
                "lie above 0: add cases where recall falls short")  # fmt: skip
    return None


def judge(bar: str, found: Mapping[str, Delta], *, needed_facts_taken: Sequence[str] = (),
          moved: Movement | None = None) -> Verdict:  # fmt: skip
    """Whether the measured deltas clear `bar`, with the reason in words a person reads."""
    if not found or all(d.pairs == 0 for d in found.values()):
        return Verdict(False, "no gold case with a relevant fact was scored, so nothing shows it is safe")
    if moved is not None and moved.violations_after > moved.violations_before:
        return Verdict(False, f"it returns facts to {moved.violations_after} gold question(s) meant to get nothing "
                              f"(the settings in force: {moved.violations_before})")  # fmt: skip
    if bar == BEAT:
        mrr = found["mrr"]
        cannot = _cannot_show(moved) if moved is not None and not mrr.lo > 0 else None
        if cannot:
            return Verdict(False, cannot)
        if not mrr.lo > 0:
            return Verdict(False, f"MRR does not improve for sure: its change is {mrr.mean:+.3f}, 95% CI "
                                  f"[{mrr.lo:+.3f}, {mrr.hi:+.3f}], and the bar needs the whole interval above 0")  # fmt: skip
        for name in ("recall_at_k", "ndcg_at_k"):
            d = found[name]
            if d.candidate < d.baseline - MAX_METRIC_DROP - 1e-12:
                return Verdict(False, f"{_label(name)} drops by {d.baseline - d.candidate:.3f}, more than the "
                                      f"{MAX_METRIC_DROP:.2f} the bar allows")  # fmt: skip
        return Verdict(True, f"MRR improves by {mrr.mean:+.3f} (95% CI [{mrr.lo:+.3f}, {mrr.hi:+.3f}], above 0) and "
                             "recall@k and nDCG@k hold within 0.01")  # fmt: skip
    if needed_facts_taken:
        shown = ", ".join(needed_facts_taken[:3]) + (" …" if len(needed_facts_taken) > 3 else "")
        return Verdict(False, f"it would take away {len(needed_facts_taken)} fact(s) an approved gold case needs "
                              f"({shown})")  # fmt: skip
    for name, d in found.items():
        if d.pairs and d.lo < LOSS_FLOOR - 1e-12:
            return Verdict(False, f"{_label(name)} could drop: its change is {d.mean:+.3f}, 95% CI lower bound "
                                  f"{d.lo:+.3f}, below the {LOSS_FLOOR:+.2f} the bar allows")  # fmt: skip
    return Verdict(True, "no metric loses: every 95% CI lower bound is at or above −0.01")


def _label(metric: str) -> str:
    return {"mrr": "MRR", "recall_at_k": "recall@k", "ndcg_at_k": "nDCG@k", "hit_at_k": "hit@k"}[metric]


# ---------------------------------------------------------------- what a proposal may touch


def protected(segment: str, tier: str) -> bool:
    """Pinned (permanent-tier) and identity facts are never retracted by a proposal."""
    return tier == "permanent" or segment in PROTECTED_SEGMENTS


def telemetry_retractions(downvotes: Mapping[str, int], *, min_downvotes: int = DEFAULT_MIN_DOWNVOTES) -> list[str]:
    """Facts down-voted at least `min_downvotes` times, most down-voted first (ties by id, stable)."""
    if min_downvotes < 1:
        raise ValueError("min_downvotes must be at least 1")
    chosen = [(count, mid) for mid, count in downvotes.items() if count >= min_downvotes]
    return [mid for count, mid in sorted(chosen, key=lambda item: (-item[0], item[1]))]
