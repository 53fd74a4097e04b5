"""A workspace's tuning: the recall and maintenance knobs a self-improvement proposal may change.

The values live on the workspace as one versioned document (version 0 is these defaults). Recall
reads it through its index, so every hit says which version ranked it; decay GC and the dream read
their thresholds from it. Pure: validation, the derived engine settings and before → after diffs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from memory.engine.maintenance.decay_gc import ARCHIVE_BELOW, PRUNE_BELOW
from memory.engine.maintenance.dream import CONSOLIDATE_THRESHOLD, EVICT_BELOW_SCORE
from memory.engine.recall.fusion import DEFAULT_SETTINGS, FusionSettings
from memory.engine.recall.relevance import (
    DEFAULT_CUT,
    DEFAULT_FLOOR,
    DEFAULT_LEARNED_MATCH_CUT,
    DEFAULT_MATCH_CUT,
)


@dataclass(frozen=True)
class Knob:
    name: str
    label: str
    low: float
    high: float
    integer: bool = False
    group: str = "recall"


# Each knob with the range a person or a proposal may set it to, and the words the console uses.
KNOBS: tuple[Knob, ...] = (
    Knob("ngram_weight", "n-gram lane weight", 0.0, 0.6),
    Knob("expansion_weight", "query expansion weight", 0.0, 1.0),
    Knob("feedback_docs", "facts feeding the expansion", 0, 10, integer=True),
    Knob("feedback_terms", "expansion terms kept", 0, 60, integer=True),
    Knob("ngram_floor", "n-gram floor for a fact sharing no word", 0.05, 0.95),
    Knob("graph_weight", "graph lane weight", 0.0, 2.0),
    Knob("hop_decay", "weight lost per link hop", 0.05, 0.95),
    Knob("learned_weight", "learned lane weight (with an embedder)", 0.0, 0.7),
    Knob("relevance_floor", "relevance a hit needs to be returned", 0.0, 0.9),
    Knob("relevance_cut", "share of the best hit's relevance a hit needs", 0.0, 1.0),
    Knob("match_cut", "share of the best hit's match strength a hit needs", 0.0, 1.0),
    Knob("learned_match_cut", "share of the best hit's match strength a hit needs with a learned embedder", 0.0, 1.0),
    Knob("gc_archive_below", "decay GC archives below", 0.0, 0.5, group="maintenance"),
    Knob("gc_prune_below", "decay GC prunes below", 0.0, 0.5, group="maintenance"),
    Knob("dream_merge_similarity", "dream merges near-duplicates from", 0.8, 1.0, group="maintenance"),
    Knob("dream_evict_below", "dream evicts below", 0.0, 0.5, group="maintenance"),
)
KNOB = {knob.name: knob for knob in KNOBS}


class TuningError(ValueError):
    """A tuning document that names an unknown knob or a value out of its range."""


@dataclass(frozen=True)
class Tuning:
    ngram_weight: float = DEFAULT_SETTINGS.ngram_weight
    expansion_weight: float = DEFAULT_SETTINGS.expansion_weight
    feedback_docs: int = DEFAULT_SETTINGS.feedback_docs
    feedback_terms: int = DEFAULT_SETTINGS.feedback_terms
    ngram_floor: float = DEFAULT_SETTINGS.ngram_floor
    graph_weight: float = 1.0
    hop_decay: float = 0.5
    learned_weight: float = 0.4
    relevance_floor: float = DEFAULT_FLOOR
    relevance_cut: float = DEFAULT_CUT
    match_cut: float = DEFAULT_MATCH_CUT
    learned_match_cut: float = DEFAULT_LEARNED_MATCH_CUT
    gc_archive_below: float = ARCHIVE_BELOW
    gc_prune_below: float = PRUNE_BELOW
    dream_merge_similarity: float = CONSOLIDATE_THRESHOLD
    dream_evict_below: float = EVICT_BELOW_SCORE

    def fusion(self, *, learned: bool = False) -> FusionSettings:
        """The fused lane's settings; `learned` gives the embedder's cosine its share."""
        return FusionSettings(
            ngram_weight=self.ngram_weight, feedback_docs=self.feedback_docs, feedback_terms=self.feedback_terms,
            expansion_weight=self.expansion_weight, ngram_floor=self.ngram_floor,
            vector_weight=self.learned_weight if learned else 0.0,
        )  # fmt: skip

    def cut_knob(self, *, learned: bool = False) -> str:
        """The match cut in force: `learned_match_cut` when a learned embedder joins the blend."""
        return "learned_match_cut" if learned else "match_cut"

    def match_cut_for(self, *, learned: bool = False) -> float:
        """The value of the match cut in force (`cut_knob`)."""
        return getattr(self, self.cut_knob(learned=learned))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def changed(self, **values: Any) -> Tuning:
        return parse({**self.as_dict(), **values})


DEFAULT = Tuning()


def parse(values: Mapping[str, Any] | None) -> Tuning:
    """A checked `Tuning` from stored or submitted values (missing knobs keep their defaults)."""
    if not values:
        return DEFAULT
    if not isinstance(values, Mapping):
        raise TuningError("tuning must be an object of knob names to numbers")
    unknown = sorted(set(values) - set(KNOB))
    if unknown:
        raise TuningError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(KNOB)}")
    clean: dict[str, Any] = {}
    for name, raw in values.items():
        knob = KNOB[name]
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise TuningError(f"{name} must be a number, got {raw!r}")
        if knob.integer and float(raw) != int(raw):
            raise TuningError(f"{name} must be a whole number, got {raw!r}")
        value = int(raw) if knob.integer else float(raw)
        if not knob.low <= value <= knob.high:
            raise TuningError(f"{name} must lie in [{knob.low:g}, {knob.high:g}], got {raw!r}")
        clean[name] = value
    tuning = replace(DEFAULT, **clean)
    if tuning.ngram_weight + tuning.learned_weight >= 1.0:
        raise TuningError("ngram_weight + learned_weight must leave the lexical lane a share (sum below 1)")
    if tuning.gc_prune_below > tuning.gc_archive_below:
        raise TuningError("gc_prune_below cannot exceed gc_archive_below")
    return tuning


def diff(before: Tuning, after: Tuning) -> list[dict[str, Any]]:
    """The knobs that differ, in display order: name, label, group, before, after."""
    out = []
    for field in fields(Tuning):
        old, new = getattr(before, field.name), getattr(after, field.name)
        if old != new:
            knob = KNOB[field.name]
            out.append({"name": field.name, "label": knob.label, "group": knob.group, "before": old, "after": new})
    return out


def recall_changed(before: Tuning, after: Tuning) -> bool:
    """True when the change can alter what recall returns (the stricter evaluation bar applies)."""
    return any(change["group"] == "recall" for change in diff(before, after))
