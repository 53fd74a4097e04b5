"""When a workspace's next maintenance pass has work to do, if nothing is written before then.

The scheduled passes run over every workspace, but most workspaces of a large deployment change
rarely. A pass over a workspace that nothing touched since its last run finds work only where time
alone makes it: a fact whose live score decays below a threshold (decay GC archives or prunes it, the
dream evicts it once it is old enough). Everything else a pass does (confirm, merge, relate,
contradictions) depends on what is written, which bumps the workspace's revision.

So after a run, the pass notes the earliest time its time-driven part would act on the facts as they
now stand; the scheduler skips the workspace until then unless its revision moved. A recall use only
raises a fact's score (it never brings a crossing forward), so a note taken before a use is early,
never late: the pass then runs, finds nothing, and notes the next time.

Pure: no Django. Times are epoch milliseconds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import numpy as np

from memory.engine.maintenance.decay import effective_score
from memory.engine.maintenance.plans import DAY_MS, FactChange, MaintFact

HORIZON_MS = 365 * DAY_MS  # no crossing within a year: look again then
_STEPS = 48  # bisection steps: a year halved 48 times is well under a millisecond


def crossing_times(facts: Sequence[MaintFact], now: int, below: float, horizon_ms: int = HORIZON_MS) -> np.ndarray:
    """For each fact, the first time (ms, ≥ now) its live score is below `below`, or +inf when that
    does not happen within `horizon_ms` (a permanent fact never decays).

    Found by bisection on `effective_score` itself, which only falls with time while a fact is not
    used, so the answer follows whatever the decay formula is."""
    out = np.full(len(facts), np.inf)
    if not facts:
        return out
    columns = (
        np.array([f.importance for f in facts], dtype=np.float64),
        np.array([f.decay_rate for f in facts], dtype=np.float64),
        np.array([f.access_count for f in facts], dtype=np.float64),
        np.array([f.last_accessed_at for f in facts], dtype=np.float64),
    )
    permanent = np.array([f.tier == "permanent" for f in facts], dtype=bool)

    def below_at(at: np.ndarray, rows: np.ndarray) -> np.ndarray:
        score = effective_score(*(c[rows] for c in columns), at, permanent[rows])
        return np.asarray(score, dtype=np.float64).reshape(rows.size) < below

    everyone = np.arange(len(facts))
    start = np.full(len(facts), float(now))
    already = below_at(start, everyone)
    out[already] = now
    rows = everyone[~already]
    rows = rows[below_at(start[rows] + horizon_ms, rows)]
    lo, hi = start[rows], start[rows] + horizon_ms  # not below at lo, below at hi
    for _ in range(_STEPS):
        if rows.size == 0 or np.all(hi - lo <= 1.0):
            break
        mid = np.floor((lo + hi) / 2.0)
        crossed = below_at(mid, rows)
        hi = np.where(crossed, mid, hi)
        lo = np.where(crossed, lo, mid)
    out[rows] = hi
    return out


def _earliest(times: np.ndarray) -> int | None:
    finite = times[np.isfinite(times)]
    return int(finite.min()) if finite.size else None


def gc_due(facts: Sequence[MaintFact], now: int, *, archive_below: float, prune_below: float,
           horizon_ms: int = HORIZON_MS) -> int | None:  # fmt: skip
    """When decay GC (`decay_gc.plan_decay_gc`) next acts on these facts: the first active, not
    immune fact to fall below its threshold (a `long`-tier fact's is `prune_below`, any other's
    `archive_below`, the higher of two thresholds being crossed first). None: not within the horizon."""
    considered = [f for f in facts if f.is_active and f.tier != "permanent" and not f.is_confirmed]
    times = []
    for threshold, group in ((prune_below, [f for f in considered if f.tier == "long"]),
                             (max(archive_below, prune_below), [f for f in considered if f.tier != "long"])):  # fmt: skip
        times.append(crossing_times(group, now, threshold, horizon_ms))
    return _earliest(np.concatenate(times)) if times else None


def eviction_due(facts: Sequence[MaintFact], now: int, *, below: float, min_age_ms: float,
                 horizon_ms: int = HORIZON_MS) -> int | None:  # fmt: skip
    """When the dream's eviction (`dream._evict`) next acts on these facts: an active, unconfirmed
    fact at least `min_age_ms` old whose live score is below `below`. None: not within the horizon
    (or eviction is off: an infinite minimum age)."""
    considered = [f for f in facts if f.is_active and not f.is_confirmed]
    if not considered or not np.isfinite(min_age_ms):
        return None
    crossing = crossing_times(considered, now, below, horizon_ms)
    old_enough = np.array([f.created_at for f in considered], dtype=np.float64) + float(min_age_ms)
    return _earliest(np.maximum(crossing, np.maximum(old_enough, float(now))))


_FIELDS = frozenset(f.name for f in dataclasses.fields(MaintFact))


def after(facts: Iterable[MaintFact], changes: Iterable[FactChange]) -> list[MaintFact]:
    """The facts as a plan's changes leave them (fields a `MaintFact` does not hold are ignored)."""
    state = {f.memory_id: f for f in facts}
    for change in changes:
        if change.memory_id in state:
            fields = {k: v for k, v in change.after.items() if k in _FIELDS}
            state[change.memory_id] = dataclasses.replace(state[change.memory_id], **fields)
    return list(state.values())
