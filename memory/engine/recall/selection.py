"""Which recalled facts earn a place in the answer, and why the others did not (ENGINE-SPEC §3.6).

Recall gathers candidates (the fused lane's best-scoring facts, and the facts the link walk reached
from them), each with its own relevance on the fixed 0–1 scale of `relevance.py`. It then returns:

* most relevant first; equal relevance keeps the order the candidates came in (the fused score, or
  the link walk's fused rank when it ran), so the list is ordered by the number it shows;
* only facts whose relevance reaches the workspace's `floor` (a question the memory knows nothing
  about gets nothing);
* only facts whose relevance reaches `cut` × the best hit's (0 by default: off), and whose match
  strength reaches `match_cut` × the best match among them: a question with one clear answer gets
  that answer and the facts nearly as good, a vague one gets more;
* at most `limit` facts: `k` is a maximum, never a quota.

A fact's **match strength** (`match`) is the fused lanes' blend at the fact's trust, before decay:
how strongly its words, their expansion and its spelling (and a learned embedder's cosine, when one
is configured) match the query, each lane scaled to its best candidate, counted at the trust its
source earns (an untrusted page worded like the question never sets the bar that the owner's facts
must reach); or its relevance (which counts trust too), when that is
higher (a fact that holds the question's words in another form, "allergy" for "allergic", matches
as well as it is relevant). Relevance says *whether* a fact holds the question's words; the blend
says *how well*, counting how often they occur and how long the fact is (BM25). Cut on relevance
alone, many facts tie with the best hit on the words they share; the match separates them. Leaving
one LoCoMo development conversation out at a time, a cut on the match keeps the evidence more often
at the same precision than a cut on relevance (docs/BENCHMARKS.md), so `DEFAULT_MATCH_CUT` is the
cut in force and the relevance cut is a knob a proposal may still set. The list stays in relevance
order either way.

Every candidate left out says why (`LeftOut.reason`), so `explain` and the console can show why a
hit was kept and why the next one was cut. Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory.engine.recall.lanes import Hit

BELOW_FLOOR = "floor"
BELOW_CUT = "cut"  # under the relevance cut or the match cut
PAST_LIMIT = "limit"


@dataclass(frozen=True)
class LeftOut:
    hit: Hit
    reason: str  # BELOW_FLOOR, BELOW_CUT or PAST_LIMIT


@dataclass(frozen=True)
class Selection:
    hits: list[Hit]
    left_out: list[LeftOut] = field(default_factory=list)  # most relevant first
    floor: float = 0.0
    cut: float = 0.0
    best: float = 0.0  # the best relevance among the candidates that reach the floor
    limit: int | None = None
    match_cut: float = 0.0
    best_match: float = 0.0  # the best match strength among the candidates reaching the floor and the relevance cut

    @property
    def bar(self) -> float:
        """The relevance a hit needs: the floor, or the cut's share of the best if higher."""
        return max(self.floor, self.cut * self.best)

    @property
    def match_bar(self) -> float:
        """The match strength a hit needs: the match cut's share of the best match."""
        return self.match_cut * self.best_match

    def counts(self) -> dict[str, int]:
        """How many candidates were left out, per reason."""
        out = {BELOW_FLOOR: 0, BELOW_CUT: 0, PAST_LIMIT: 0}
        for item in self.left_out:
            out[item.reason] += 1
        return out


def relevance_of(hit: Hit) -> float:
    return float(hit.components.get("relevance", 0.0))


def match_of(hit: Hit) -> float:
    """The hit's match strength (module docstring); a hit that carries none counts its relevance."""
    value = hit.components.get("match")
    return float(value) if value is not None else relevance_of(hit)


def select(candidates: Sequence[Hit], *, floor: float, cut: float, limit: int | None,
           match_cut: float = 0.0) -> Selection:  # fmt: skip
    """The hits to return and the candidates left out, each with its reason (module docstring)."""
    ordered = sorted(candidates, key=lambda hit: -relevance_of(hit))
    reaching = [hit for hit in ordered if relevance_of(hit) >= floor]
    best = relevance_of(reaching[0]) if reaching else 0.0
    bar = cut * best
    best_match = max((match_of(hit) for hit in reaching if relevance_of(hit) >= bar), default=0.0)
    match_bar = match_cut * best_match
    kept: list[Hit] = []
    left_out: list[LeftOut] = []
    for hit in ordered:
        relevance = relevance_of(hit)
        if relevance < floor:
            left_out.append(LeftOut(hit, BELOW_FLOOR))
        elif relevance < bar or match_of(hit) < match_bar:
            left_out.append(LeftOut(hit, BELOW_CUT))
        elif limit is not None and len(kept) >= limit:
            left_out.append(LeftOut(hit, PAST_LIMIT))
        else:
            kept.append(hit)
    return Selection(kept, left_out, floor, cut, best, limit, match_cut, best_match)


def _number(value: float) -> str:
    """0.725 → "0.725", 0.7 → "0.7", 1 → "1": as few digits as say it (at most four decimals)."""
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def _share(selection: Selection) -> str:
    return f"{_number(selection.cut * 100)}% of the best hit's {selection.best:.2f}"


def _match_share(selection: Selection) -> str:
    return f"{_number(selection.match_cut * 100)}% of the best match {selection.best_match:.2f}"


def why_kept(selection: Selection, hit: Hit) -> str:
    """One sentence: why this returned hit earned its place."""
    relevance = relevance_of(hit)
    if selection.cut > 0 and selection.cut * selection.best > selection.floor:
        said = f"Kept: relevance {relevance:.2f} reaches the cut {_number(selection.bar)} ({_share(selection)})"
    else:
        said = f"Kept: relevance {relevance:.2f} reaches the floor {_number(selection.floor)}"
    if selection.match_cut > 0:
        said += f", and its match {match_of(hit):.2f} reaches {_match_share(selection)}"
    return said + "."


def why_left_out(selection: Selection, item: LeftOut) -> str:
    """One sentence: why this candidate was not returned."""
    relevance = relevance_of(item.hit)
    if item.reason == BELOW_FLOOR:
        return f"Left out: relevance {relevance:.2f} is below the floor {_number(selection.floor)}."
    if item.reason == BELOW_CUT and relevance < selection.bar:
        return f"Left out: relevance {relevance:.2f} is below the cut {_number(selection.bar)} ({_share(selection)})."
    if item.reason == BELOW_CUT:
        return (f"Left out: relevance {relevance:.2f}, but its match {match_of(item.hit):.2f} is below "
                f"{_match_share(selection)}: other facts match the question's words more strongly.")
    n = selection.limit
    return (f"Left out: at most {n} fact{'s' if n != 1 else ''} {'were' if n != 1 else 'was'} asked for (k = {n}), "
            f"and {'they rank' if n != 1 else 'it ranks'} above this one (more relevant, or as relevant and found "
            "first by the search).")
