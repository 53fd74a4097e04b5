"""Model-free entity resolution: recurring proper-noun spans across facts (ENGINE-SPEC §5.6).

A derived graph pass: which capitalised names recur in several facts. Unused by production recall in
the original; kept as a pure primitive for entity notes and the graph view.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Capitalised words that are almost never the entity a memory is about ("User likes…", "The…").
ENTITY_STOPWORDS = frozenset(
    "the a an i i'm im my me you your we our he she they it this that these those user owner and or "  # noqa: SIM905
    "but so then when where why how what his her their its is are was were to of in on at for with by "
    "as if".split()
)
_LEADING = re.compile(r'^[("\[]+')
# The whole trailing run of closing punctuation (the look-behind anchors the match at the run's start).
_TRAILING = re.compile(r"""(?<![.,;:!?'")\]])[.,;:!?'")\]]+$""")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_APOSTROPHE = re.compile(r"['’]$")
_CAPITALISED = re.compile(r"^[A-Z][A-Za-z0-9'-]*$")


@dataclass(frozen=True)
class Entity:
    """A recurring name: its most common spelling and the facts (distinct, first-seen order) naming it."""

    name: str
    mentions: tuple[str, ...]


def _strip(text: str) -> str:
    return _TRAILING.sub("", _LEADING.sub("", text))


def proper_noun_spans(content: str) -> list[str]:
    """Runs of consecutive capitalised, non-stopword words, punctuation and possessives stripped.

    A word is stripped of leading `( " [`, its trailing run of `. , ; : ! ? ' " ) ]`, then a trailing
    `'s` and a trailing apostrophe; it counts when it starts with A–Z and continues with letters,
    digits, `'` or `-`. A span shorter than two characters is dropped.
    """
    spans: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            span = _strip(" ".join(run))
            if len(span) > 1:
                spans.append(span)
            run.clear()

    for raw in content.split():
        word = _APOSTROPHE.sub("", _POSSESSIVE.sub("", _strip(raw)))
        if _CAPITALISED.match(word) and word.lower() not in ENTITY_STOPWORDS:
            run.append(word)
        else:
            flush()
    flush()
    return spans


def resolve_entities(facts: Iterable[tuple[str, str]], *, min_mentions: int = 2) -> list[Entity]:
    """Names mentioned by at least `min_mentions` distinct facts, given `(memory_id, content)` pairs.

    Spans are grouped case-insensitively; a fact naming one twice counts once, for the mention and
    for its spelling. The canonical name is the spelling used by the most facts (the first seen wins a
    tie). Sorted by number of mentioning facts, most first, then by name.
    """
    mentions: dict[str, list[str]] = {}
    spellings: dict[str, dict[str, int]] = {}
    for memory_id, content in facts:
        seen: set[str] = set()
        for span in proper_noun_spans(content):
            key = span.lower()
            if key in seen:
                continue
            seen.add(key)
            ids = mentions.setdefault(key, [])
            if memory_id not in ids:
                ids.append(memory_id)
            forms = spellings.setdefault(key, {})
            forms[span] = forms.get(span, 0) + 1
    out = []
    for key, ids in mentions.items():
        if len(ids) < min_mentions:
            continue
        forms = spellings[key]
        best = max(forms.values())
        name = next(form for form, count in forms.items() if count == best)
        out.append(Entity(name, tuple(ids)))
    out.sort(key=lambda e: (-len(e.mentions), e.name.casefold(), e.name))
    return out
