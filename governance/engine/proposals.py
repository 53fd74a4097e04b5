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


@dataclass(frozen=True)
class Bar:
    """What a workspace asks of a recall-settings proposal, set by an admin. By default a proposal must
    rank answers better (MRR), whatever it returns beside them. With a `noise_weight`, each fact
    returned that does not answer costs that much of an answer found first, so a case's *value* is its
    reciprocal rank less `noise_weight` per such fact, and a proposal must raise the value; hit@k,
    recall@k and nDCG@k may then drop by up to `hit_allowance` (a little of finding it, traded for
    much less noise)."""

    noise_weight: float = 0.0
    hit_allowance: float = MAX_METRIC_DROP

    NOISE_WEIGHTS = (0.0, 0.01, 0.02, 0.05, 0.1)
    HIT_ALLOWANCES = (0.0, 0.01, 0.02, 0.05)

    @property
    def trades_noise(self) -> bool:
        return self.noise_weight > 0

    def value(self, reciprocal_rank, returned, relevant_returned):
        """A case's value under this bar (works on numbers and numpy arrays alike)."""
        return reciprocal_rank - self.noise_weight * (returned - relevant_returned)

    def words(self) -> str:
        if not self.trades_noise:
            return "answers first: a change must raise MRR for sure; what comes back beside the answer is shown, not judged"
        return (f"less noise: each fact returned that does not answer costs {self.noise_weight:g} of an answer found "
                f"first, and hit@k, recall@k and nDCG@k may drop by up to {self.hit_allowance:g} for it")  # fmt: skip

    def as_dict(self) -> dict:
        return {"noise_weight": self.noise_weight, "hit_allowance": self.hit_allowance}


ANSWERS_FIRST = Bar()  # the default bar


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


def deltas(baseline: EvalReport, candidate: EvalReport, *, seed: int = 1, asks: Bar = ANSWERS_FIRST) -> dict[str, Delta]:
    """Each metric's means and the paired bootstrap CI of candidate − baseline (same cases, same order);
    with a bar that trades noise, the cases' value too ("value")."""
    columns = {name: (lambda r, attr=attr: getattr(r, attr)) for name, attr in METRICS}
    if asks.trades_noise:
        columns["value"] = lambda r: asks.value(r.reciprocal_rank, r.returned, r.relevant_returned)
    out = {}
    for name, read in columns.items():
        base = [read(r) for r in baseline.per_case]
        cand = [read(r) for r in candidate.per_case]
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


def movement(baseline: EvalReport, candidate: EvalReport, asks: Bar = ANSWERS_FIRST) -> Movement:
    """Cases better, worse and already perfect by the bar's measure (reciprocal rank, or value)."""
    pairs = [(b, c) for b, c in zip(baseline.per_case, candidate.per_case, strict=True) if not b.abstention]

    def score(r) -> float:
        return asks.value(r.reciprocal_rank, r.returned, r.relevant_returned)

    return Movement(
        scored=len(pairs), better=sum(score(c) > score(b) + 1e-12 for b, c in pairs),
        worse=sum(score(c) < score(b) - 1e-12 for b, c in pairs),
        perfect=sum(score(b) >= 1.0 - 1e-12 for b, _ in pairs),
        violations_before=sum(r.abstention_violation for r in baseline.per_case),
        violations_after=sum(r.abstention_violation for r in candidate.per_case),
    )  # fmt: skip


# A "must beat" verdict needs at least this many answerable cases scored: with fewer, the paired
# bootstrap resamples too few distinct cases for its interval to mean anything (one case that ranks
# better gives the interval [gain, gain]). The settings search asks the same of a gold set.
MIN_CASES_TO_BEAT = 10


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


def _cannot_show(moved: Movement, asks: Bar) -> str | None:
    """Why a gold set cannot show any gain for this change, whatever its merit (None: it can)."""
    first = "finds its fact first with nothing else beside it" if asks.trades_noise else "finds its fact first"
    better = "score better" if asks.trades_noise else "rank better"
    if moved.scored and moved.perfect == moved.scored:
        return (f"every one of the {moved.scored} scored gold cases already {first}, so no change can show a gain "
                "on these gold sets: add cases that recall gets wrong")  # fmt: skip
    if moved.scored and not moved.better and not moved.worse:
        return (f"none of the {moved.scored} scored gold cases {'scores' if asks.trades_noise else 'ranks'} "
                "differently under it, so the gold sets cannot tell it from the settings in force")  # fmt: skip
    needed = fewest_to_show_a_gain(moved.scored)
    if moved.better < needed:
        return (f"only {moved.better} of the {moved.scored} scored cases {better} ({moved.worse} worse); with "
                f"{moved.scored} cases at least {needed} must {better}, none worse, before the 95% interval can "
                "lie above 0: add cases where recall falls short")  # fmt: skip
    return None


def judge(bar: str, found: Mapping[str, Delta], *, needed_facts_taken: Sequence[str] = (),
          moved: Movement | None = None, asks: Bar = ANSWERS_FIRST) -> Verdict:  # fmt: skip
    """Whether the measured deltas clear `bar` ("beat" or "not_lose"), as the workspace `asks`, with
    the reason in words a person reads."""
    if not found or all(d.pairs == 0 for d in found.values()):
        return Verdict(False, "no gold case with a relevant fact was scored, so nothing shows it is safe")
    if moved is not None and moved.violations_after > moved.violations_before:
        return Verdict(False, f"it returns facts to {moved.violations_after} gold question(s) meant to get nothing "
                              f"(the settings in force: {moved.violations_before})")  # fmt: skip
    if bar == BEAT:
        return _beats(found, moved, asks)
    if needed_facts_taken:
        shown = ", ".join(needed_facts_taken[:3]) + (" …" if len(needed_facts_taken) > 3 else "")
        return Verdict(False, f"it would take away {len(needed_facts_taken)} fact(s) an approved gold case needs "
                              f"({shown})")  # fmt: skip
    for name, d in found.items():
        if name != "value" and d.pairs and d.lo < LOSS_FLOOR - 1e-12:
            return Verdict(False, f"{_label(name)} could drop: its change is {d.mean:+.3f}, 95% CI lower bound "
                                  f"{d.lo:+.3f}, below the {LOSS_FLOOR:+.2f} the bar allows")  # fmt: skip
    return Verdict(True, "no metric loses: every 95% CI lower bound is at or above −0.01")


def _beats(found: Mapping[str, Delta], moved: Movement | None, asks: Bar) -> Verdict:
    judged = found["value"] if asks.trades_noise else found["mrr"]
    label = f"The value of an answer (MRR less {asks.noise_weight:g} per fact that does not answer)" \
        if asks.trades_noise else "MRR"  # fmt: skip
    if judged.pairs < MIN_CASES_TO_BEAT:
        return Verdict(False, f"only {judged.pairs} answerable gold case{'s' if judged.pairs != 1 else ''} "
                              f"{'were' if judged.pairs != 1 else 'was'} scored, and a gain needs at least "
                              f"{MIN_CASES_TO_BEAT} before it can be told from chance: add cases")  # fmt: skip
    cannot = _cannot_show(moved, asks) if moved is not None and not judged.lo > 0 else None
    if cannot:
        return Verdict(False, cannot)
    if not judged.lo > 0:
        return Verdict(False, f"{label} does not improve for sure: its change is {judged.mean:+.3f}, 95% CI "
                              f"[{judged.lo:+.3f}, {judged.hi:+.3f}], and the bar needs the whole interval above 0")  # fmt: skip
    allowance = asks.hit_allowance if asks.trades_noise else MAX_METRIC_DROP
    held = ("hit_at_k", "recall_at_k", "ndcg_at_k") if asks.trades_noise else ("recall_at_k", "ndcg_at_k")
    for name in held:
        d = found[name]
        if d.candidate < d.baseline - allowance - 1e-12:
            return Verdict(False, f"{_label(name)} drops by {d.baseline - d.candidate:.3f}, more than the "
                                  f"{allowance:g} the bar allows")  # fmt: skip
    kept = " and ".join(_label(n) for n in held).replace(" and ", ", ", len(held) - 2)
    return Verdict(True, f"{label} improves by {judged.mean:+.3f} (95% CI [{judged.lo:+.3f}, {judged.hi:+.3f}], "
                         f"above 0) and {kept} hold within {allowance:g}")  # fmt: skip


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
