"""Exact candidate generation for near-duplicate dedup, without scanning the workspace.

Two facts are near-duplicates when the Jaccard similarity of their token sets is at least 0.85.
For a new fact with n distinct tokens that needs an overlap of at least a = ceil(0.85 n) tokens with
a candidate of between ceil(0.85 n) and floor(n / 0.85) tokens. Prefix filtering makes the lookup
exact and cheap: if two sets share a tokens, ANY n - a + 1 tokens of the new set include at least
one shared token (the other a - 1 tokens cannot hold all a of them). So we fetch postings for just
those n - a + 1 tokens (the longest words, which tend to be the rarest), restricted to the size
window, one origin and one trust class, then count the full overlap for those candidates only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count

from memory import sealing
from memory.engine import records as R
from memory.engine.tokenize import token_set
from memory.models import Fact, FactTerm, TermStat

THRESHOLD = R.DEDUP_SIMILARITY


@dataclass(frozen=True)
class NearDuplicate:
    fact_id: int
    similarity: float


def _bounds(n: int) -> tuple[int, int, int]:
    """(minimum overlap, smallest candidate size, largest candidate size) for a set of n tokens."""
    overlap = math.ceil(THRESHOLD * n - 1e-9)
    return overlap, overlap, math.floor(n / THRESHOLD + 1e-9)


def index_facts(facts: Iterable[Fact]) -> None:
    """Add postings (and document frequencies) for active facts; call after they are saved."""
    rows = []
    for fact in facts:
        if fact.lifecycle != "active":
            continue
        tokens = sorted(token_set(fact.content))
        if not tokens:
            continue
        trusted = not R.is_untrusted_source(fact.source_type)
        for term in set(sealing.term_hashes(fact.workspace_id, fact.origin_key, tokens)):
            rows.append(
                FactTerm(
                    workspace_id=fact.workspace_id, fact_id=fact.pk, origin_key=fact.origin_key,
                    trusted=trusted, term=term, token_count=min(len(tokens), 32767),
                )  # fmt: skip
            )
    FactTerm.objects.bulk_create(rows, batch_size=2000, ignore_conflicts=True)
    _bump(Counter((r.workspace_id, r.origin_key, r.trusted, r.term) for r in rows), +1)


def unindex_facts(fact_ids: Iterable[int]) -> None:
    """Drop postings of facts that left the active set (archived, pruned, purged)."""
    ids = list(fact_ids)
    if not ids:
        return
    postings = FactTerm.objects.filter(fact_id__in=ids)
    _bump(Counter(postings.values_list("workspace_id", "origin_key", "trusted", "term")), -1)
    postings.delete()


def _bump(counts: Counter, sign: int) -> None:
    """Add `sign * n` to each term's document frequency (an upsert both databases understand)."""
    if not counts:
        return
    table = connection.ops.quote_name(TermStat._meta.db_table)
    items = list(counts.items())
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk))
        params = [v for (ws, origin, trusted, term), n in chunk for v in (ws, origin, trusted, term, sign * n)]
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (workspace_id, origin_key, trusted, term, df) VALUES {values} "
                f"ON CONFLICT (workspace_id, origin_key, trusted, term) DO UPDATE SET df = {table}.df + excluded.df",
                params,
            )


def find_near_duplicates(
    *, workspace_id: int, origin_key: str, trusted: bool, content: str, exclude: Iterable[int] = ()
) -> list[NearDuplicate]:
    """Active facts of this origin and trust class whose token Jaccard with `content` is ≥ 0.85, best first."""
    tokens = sorted(token_set(content))
    n = len(tokens)
    if n == 0:
        return []  # Jaccard(∅, ∅) = 0: all-stopword texts never dedup (ENGINE-SPEC §2 step 6)
    overlap_needed, smallest, largest = _bounds(n)
    hashes = dict(zip(tokens, sealing.term_hashes(workspace_id, origin_key, tokens), strict=True))
    # The prefix is the rarest tokens: a token no active fact holds yet (df 0) rules everything out.
    df = dict(
        TermStat.objects.filter(
            workspace_id=workspace_id, origin_key=origin_key, trusted=trusted, term__in=list(hashes.values())
        ).values_list("term", "df")
    )
    prefix = sorted(tokens, key=lambda token: (df.get(hashes[token], 0), hashes[token]))[: n - overlap_needed + 1]
    if all(df.get(hashes[token], 0) <= 0 for token in prefix):
        return []
    scope = FactTerm.objects.filter(workspace_id=workspace_id, origin_key=origin_key, trusted=trusted)
    candidates = set(
        scope.filter(term__in=[hashes[t] for t in prefix], token_count__gte=smallest, token_count__lte=largest)
        .exclude(fact_id__in=list(exclude))
        .values_list("fact_id", flat=True)
    )
    if not candidates:
        return []
    overlaps = (
        FactTerm.objects.filter(fact_id__in=sorted(candidates), term__in=list(hashes.values()))
        .values("fact_id", "token_count")
        .annotate(overlap=Count("id"))
        .filter(overlap__gte=overlap_needed)
    )
    found = []
    for row in overlaps:
        similarity = row["overlap"] / (n + row["token_count"] - row["overlap"])
        if similarity >= THRESHOLD:
            found.append(NearDuplicate(row["fact_id"], similarity))
    found.sort(key=lambda item: (-item.similarity, item.fact_id))
    return found


def similarity(a: str, b: str) -> float:
    from memory.engine.tokenize import jaccard

    return jaccard(token_set(a), token_set(b))


__all__ = ["NearDuplicate", "find_near_duplicates", "index_facts", "unindex_facts", "similarity", "Fact"]
