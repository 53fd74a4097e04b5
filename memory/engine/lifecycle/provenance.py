"""The provenance cascade of a hard purge (ENGINE-SPEC §6.1, §6.2), as plain Python.

A fact names what it was derived from in two ways: its `source_pointers` and its `derived_from`
links. Purging a fact takes with it the facts derived from it, transitively, unless such a fact
still stands on another live source that is not being purged (a summary of two conversations
survives the purge of one of them).

The cascade is the LARGEST set that is consistent, not the smallest: start from everything
reachable from the seeds along derivations, then let go of every member that has a live source
outside the set (or no source inside it), until nothing changes. So two facts derived from the
seed and from each other go with the seed: they only stand on each other. Facts are opaque ids;
an id that names no fact, or a fact that is not live (archived, pruned, held), keeps nothing alive.

`eligible` (retention passes it) limits the cascade to facts that may go themselves: a member
that is not eligible stays, and keeps alive what stands on it if it is live. Seeds always go.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Cascade:
    seeds: tuple[str, ...]  # the seeds that name a known fact, in the order given
    cascaded: tuple[str, ...]  # members that go only because of the cascade, in discovery order

    @property
    def purged(self) -> tuple[str, ...]:
        return self.seeds + self.cascaded


def sources_of(
    source_pointers: Mapping[str, Iterable[str]], derived_from: Iterable[tuple[str, str]]
) -> dict[str, set[str]]:
    """fact id → the ids it was derived from (both kinds merged; a fact never counts as its own source)."""
    sources: dict[str, set[str]] = defaultdict(set)
    for fact, pointers in source_pointers.items():
        sources[fact].update(p for p in pointers or () if p and p != fact)
    for fact, source in derived_from:
        if fact != source:
            sources[fact].add(source)
    return sources


def cascade(
    seeds: Iterable[str],
    sources: Mapping[str, Collection[str]],
    live: Collection[str],
    *,
    known: Collection[str] | None = None,
    eligible: Collection[str] | Callable[[str], bool] | None = None,
    follow: bool = True,
) -> Cascade:
    """What a purge of `seeds` removes.

    `sources`: fact → ids it was derived from (see `sources_of`); `live`: ids of live facts;
    `known`: ids of facts that exist (seeds naming nothing are dropped; None keeps every seed);
    `eligible`: facts the cascade may take (a set or a predicate; None: any); `follow=False`: the
    seeds alone.
    """
    seed_list = list(dict.fromkeys(s for s in seeds if known is None or s in known))
    seed_set = set(seed_list)
    if not follow or not seed_set:
        return Cascade(tuple(seed_list), ())
    may = _predicate(eligible)

    derivers: dict[str, list[str]] = defaultdict(list)
    for fact, srcs in sources.items():
        for source in srcs:
            derivers[source].append(fact)

    # Reach: everything standing (transitively) on a seed, through eligible facts only.
    order: list[str] = []
    members = set(seed_set)
    queue = deque(seed_list)
    while queue:
        for fact in derivers.get(queue.popleft(), ()):
            if fact not in members and (known is None or fact in known) and may(fact):
                members.add(fact)
                order.append(fact)
                queue.append(fact)

    # Shrink: a member goes only if a source of it goes and none of its live sources stays.
    inside: dict[str, int] = {}
    live_outside: dict[str, int] = {}
    for fact in order:
        srcs = sources.get(fact, ())
        inside[fact] = sum(1 for s in srcs if s in members)
        live_outside[fact] = sum(1 for s in srcs if s in live and s not in members)
    doomed = deque(f for f in order if inside[f] == 0 or live_outside[f])
    while doomed:
        fact = doomed.popleft()
        if fact not in members:
            continue
        members.discard(fact)
        for deriver in derivers.get(fact, ()):
            if deriver not in members or deriver in seed_set:
                continue
            inside[deriver] -= 1
            if fact in live:
                live_outside[deriver] += 1
            if inside[deriver] == 0 or live_outside[deriver]:
                doomed.append(deriver)
    return Cascade(tuple(seed_list), tuple(f for f in order if f in members))


def _predicate(eligible: Collection[str] | Callable[[str], bool] | None) -> Callable[[str], bool]:
    if eligible is None:
        return lambda _fact: True
    if callable(eligible):
        return eligible
    return eligible.__contains__
