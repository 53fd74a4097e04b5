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

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from memory import sealing
from memory.engine.facts import records as R
from memory.engine.recall.tokenize import token_set
from memory.models import Fact, FactTerm, TermStat
from memory.services.writes import bulk_copy

THRESHOLD = R.DEDUP_SIMILARITY


@dataclass(frozen=True)
class NearDuplicate:
    fact_id: int
    similarity: float


def _bounds(n: int) -> tuple[int, int, int]:
    """(minimum overlap, smallest candidate size, largest candidate size) for a set of n tokens."""
    overlap = math.ceil(THRESHOLD * n - 1e-9)
    return overlap, overlap, math.floor(n / THRESHOLD + 1e-9)


def index_facts(facts: Iterable[Fact], *, new: bool = False) -> None:
    """Add postings (and document frequencies) for active facts; call after they are saved.

    Plain INSERTs rather than the ORM's bulk_create: a write runs this under its workspace lock,
    where building model objects for a handful of rows cost more than the database's work. `new`
    says the facts were created just now, so none of their postings can exist yet: on PostgreSQL
    they are then streamed with COPY (a bulk import's batches), with nothing to skip."""
    rows = []
    for fact in facts:
        if fact.lifecycle != "active":
            continue
        tokens = sorted(token_set(fact.content))
        if not tokens:
            continue
        trusted = not R.is_untrusted_source(fact.source_type)
        count = min(len(tokens), 32767)
        rows += [(fact.workspace_id, fact.pk, fact.origin_key, trusted, term, count)
                 for term in sorted(set(sealing.term_hashes(fact.workspace_id, fact.origin_key, tokens)))]  # fmt: skip
    if new and rows and connection.vendor == "postgresql":
        columns = ("workspace_id", "fact_id", "origin_key", "trusted", "term", "token_count")
        bulk_copy.copy_rows(FactTerm._meta.db_table, columns, rows)
        _bump(Counter((ws, origin, trusted, term) for ws, _, origin, trusted, term, _ in rows), +1)
        return
    added: Counter = Counter()
    if connection.vendor == "postgresql" and len(rows) > 500:
        # Many facts at once (those an undone dream brings back): each chunk as one JSON document,
        # not statements of 3,000 placeholders that psycopg parses one by one.
        for start in range(0, len(rows), 20_000):
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {_table(FactTerm)} (workspace_id, fact_id, origin_key, trusted, term, token_count) "
                    f"SELECT (e->>0)::bigint, (e->>1)::bigint, e->>2, (e->>3)::boolean, (e->>4)::bigint, "
                    f"(e->>5)::smallint FROM json_array_elements(%s::json) AS e "
                    "ON CONFLICT (fact_id, term) DO NOTHING RETURNING workspace_id, origin_key, trusted, term",
                    [json.dumps(rows[start : start + 20_000])],
                )
                added.update((ws, origin, trusted, term) for ws, origin, trusted, term in cursor.fetchall())
        _bump(added, +1)
        return
    for start in range(0, len(rows), 500):
        chunk = rows[start : start + 500]
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {_table(FactTerm)} (workspace_id, fact_id, origin_key, trusted, term, token_count) "
                f"VALUES {', '.join(['(%s, %s, %s, %s, %s, %s)'] * len(chunk))} "
                "ON CONFLICT (fact_id, term) DO NOTHING RETURNING workspace_id, origin_key, trusted, term",
                [value for row in chunk for value in row],
            )
            # SQLite returns 0/1 for a boolean; the frequency key must match either way.
            added.update((ws, origin, bool(trusted), term) for ws, origin, trusted, term in cursor.fetchall())
    _bump(added, +1)


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
    table = _table(TermStat)
    items = list(counts.items())
    if connection.vendor == "postgresql" and len(items) > 500:
        # A bulk import's batch moves thousands of terms: one statement with the rows as one JSON
        # document, not chunks of 2,500 placeholders that psycopg parses one by one.
        rows = [[ws, origin, trusted, term, sign * n] for (ws, origin, trusted, term), n in items]
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (workspace_id, origin_key, trusted, term, df) "
                f"SELECT (e->>0)::bigint, e->>1, (e->>2)::boolean, (e->>3)::bigint, (e->>4)::integer "
                f"FROM json_array_elements(%s::json) AS e "
                f"ON CONFLICT (workspace_id, origin_key, trusted, term) DO UPDATE SET df = {table}.df + excluded.df",
                [json.dumps(rows)],
            )
        return
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


@dataclass(frozen=True)
class Duplicates:
    exact: list[int]  # ids of active facts with the same keyed content hash
    near: list[NearDuplicate]  # best first


def find_near_duplicates(
    *, workspace_id: int, origin_key: str, trusted: bool, content: str, exclude: Iterable[int] = ()
) -> list[NearDuplicate]:
    """Active facts of this origin and trust class whose token Jaccard with `content` is ≥ 0.85, best first."""
    return find_duplicates(workspace_id=workspace_id, origin_key=origin_key, trusted=trusted, content=content,
                           exclude=exclude).near  # fmt: skip


def find_duplicates(*, workspace_id: int, origin_key: str, trusted: bool, content: str, content_hash: str | None = None,
                    exclude: Iterable[int] = ()) -> Duplicates:  # fmt: skip
    """Exact repeats (by keyed hash, if given) and near-duplicates of `content`, in at most two
    statements: a write runs this while it holds its workspace's lock, where every round trip counts.

    The first reads the document frequencies of the content's tokens together with any exact repeat;
    the second, needed only when the prefix's tokens occur at all, fetches the candidates and counts
    their full overlap inside the database. Each statement is shaped so that the planner can only
    take exact index paths (see the SQL below): a workspace created since the tables were last
    analysed has no statistics, and the obvious shapes then read all of its rows on every write.
    (A content is at most 1,000 characters, so its tokens stay well inside SQLite's 500-part limit
    on a compound SELECT.)"""
    tokens = sorted(token_set(content))
    n = len(tokens)
    hashes = dict(zip(tokens, sealing.term_hashes(workspace_id, origin_key, tokens), strict=True)) if n else {}
    skip = sorted(set(exclude))
    parts, params = [], []
    if content_hash is not None:
        parts.append(_EXACT_SQL.format(fact=_table(Fact), untrusted=_placeholders(R.UNTRUSTED_SOURCE_TYPES),
                                       negate="NOT " if trusted else "", nulls="IS NULL" if trusted else "IS NOT NULL",
                                       andor="OR" if trusted else "AND",
                                       skip=f"AND id NOT IN ({_placeholders(skip)})" if skip else ""))  # fmt: skip
        params += [content_hash, workspace_id, origin_key, *R.UNTRUSTED_SOURCE_TYPES, *skip]
    if n:
        terms = " UNION ALL ".join(["SELECT %s AS term"] + ["SELECT %s"] * (n - 1))
        parts.append(_FREQUENCY_SQL.format(stat=_table(TermStat), terms=terms))
        params += [workspace_id, origin_key, trusted, *hashes.values()]
    if not parts:
        return Duplicates([], [])
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        rows = cursor.fetchall()
    exact = [value for kind, value, _ in rows if kind == "exact"]
    df = {value: count or 0 for kind, value, count in rows if kind == "df"}
    if exact or n == 0:  # Jaccard(∅, ∅) = 0: all-stopword texts never dedup (ENGINE-SPEC §2 step 6)
        return Duplicates(exact, [])
    overlap_needed, smallest, largest = _bounds(n)
    # The prefix is the rarest tokens: a token no active fact holds yet (df 0) rules everything out.
    prefix = sorted(tokens, key=lambda token: (df.get(hashes[token], 0), hashes[token]))[: n - overlap_needed + 1]
    if all(df.get(hashes[token], 0) <= 0 for token in prefix):
        return Duplicates([], [])
    prefix_terms = [hashes[token] for token in prefix]
    skip_sql = f"AND p.fact_id NOT IN ({_placeholders(skip)})" if skip else ""
    candidates = " UNION ALL ".join([_CANDIDATES_SQL.format(term=_table(FactTerm), skip=skip_sql)] * len(prefix_terms))
    sql = _NEAR_SQL.format(term=_table(FactTerm), wanted=_placeholders(hashes), candidates=candidates)
    params = [*hashes.values()]
    for term in prefix_terms:
        params += [workspace_id, origin_key, trusted, term, smallest, largest, *skip]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, overlap_needed])
        rows = cursor.fetchall()
    near = []
    for fact_id, token_count, overlap in rows:
        similarity = overlap / (n + token_count - overlap)
        if similarity >= THRESHOLD:
            near.append(NearDuplicate(fact_id, similarity))
    near.sort(key=lambda item: (-item.similarity, item.fact_id))
    return Duplicates([], near)


# The same keyed content hash, active, same origin and trust class (a NULL source type is trusted).
# `workspace_id + 0` keeps the planner on the hash index: a new workspace has no statistics yet, and
# with its own index the planner would walk every fact of the workspace (unary "+ 0" works in both
# PostgreSQL and SQLite). The hash is keyed by workspace and origin, so it alone finds the row.
_EXACT_SQL = """SELECT 'exact', id, 0 FROM {fact} WHERE content_hash = %s AND workspace_id + 0 = %s AND origin_key = %s
 AND lifecycle = 'active' AND (source_type {nulls} {andor} {negate}source_type IN ({untrusted})) {skip}"""
# One exact-key lookup per token (a correlated subquery): with the terms as a list instead, a new
# workspace's missing statistics let the planner read all of the workspace's terms to filter them.
_FREQUENCY_SQL = """SELECT 'df', w.term, (SELECT s.df FROM {stat} s
  WHERE s.workspace_id = %s AND s.origin_key = %s AND s.trusted = %s AND s.term = w.term)
 FROM ({terms}) w"""
# Prefix filtering (see the module docstring): the facts of this origin and trust class holding a
# prefix token within the size window (one index range per token, for the same reason), each with
# its overlap with every token of the content.
_NEAR_SQL = """SELECT c.fact_id, c.token_count, COUNT(*) FROM {term} c
 WHERE c.term IN ({wanted}) AND c.fact_id IN ({candidates})
 GROUP BY c.fact_id, c.token_count HAVING COUNT(*) >= %s"""
_CANDIDATES_SQL = """SELECT p.fact_id FROM {term} p WHERE p.workspace_id = %s AND p.origin_key = %s AND p.trusted = %s
 AND p.term = %s AND p.token_count >= %s AND p.token_count <= %s {skip}"""


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _placeholders(values) -> str:
    return ", ".join(["%s"] * len(values))


def similarity(a: str, b: str) -> float:
    from memory.engine.recall.tokenize import jaccard

    return jaccard(token_set(a), token_set(b))


__all__ = ["NearDuplicate", "find_near_duplicates", "index_facts", "unindex_facts", "similarity", "Fact"]
