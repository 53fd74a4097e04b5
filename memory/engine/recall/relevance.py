"""How well a recalled fact answers its query, on a fixed scale from 0 to 1 (ENGINE-SPEC §3.6, Decision 20).

The fused lane ranks facts by scores scaled to the best candidate of each query, so its best hit
scores about the same whether it matches perfectly or not. Relevance instead asks, of each hit, the
same two questions for every query and workspace:

1. **Does the fact hold the query's important words?** Every query word (a stem, as recall indexes
   them) weighs its rarity in the memory (BM25's IDF over the caller's candidates); function words
   ("would", "about", "me") and dates weigh nothing, since a question's grammar and its "on 21 May"
   say nothing about whether a fact is on topic (facts carry their own time). `coverage` is the
   weight the fact holds over the weight of the words the memory knows. Spelling (the n-gram lane's
   similarity) stands in when it is higher (a typo, "grandma" against "grandmother").
2. **Does the memory know what the query is about?** A word no candidate fact holds (a name the
   memory has never heard, a topic it has nothing on) gets the weight of the rarest possible word.
   `known` is the share of the query's weight the memory holds at all; an unknown word that is not
   a name counts at `UNKNOWN_WORD_WEIGHT` (the memory may word the same thing differently: "job"
   against "work"), an unknown name in full (a person it has never heard of is a different person).

    relevance = max(coverage, spelling) × known ** UNKNOWN_POWER

`spelling` is the n-gram cosine rescaled so the n-gram lane's own floor (`ngram_floor`: below it a
fact sharing no word is not returned) is 0 and identical text 1: below that floor two texts share
only the letters every English text shares.

With a learned embedder, its cosine rescaled so the embedder's own floor is 0 and identical meaning 1
(`past_floor`) can stand in too: `similarity × named ** UNKNOWN_POWER`, where `named` is the
share of the query's weight that is not a name the memory has never heard of (the embedder reads
meaning, so a word worded differently does not count against it; an unknown person still does).

A fact reached only through links (the graph lane) is judged by its own words like any other: the
walk proposes candidates, it never lends them relevance.

Generic attribute nouns (`GENERIC_WORDS`: "name", "status", "items") weigh nothing, like function
words: "What is my dog's name?" is about a dog, and a memory that holds names but no dog holds nothing
for it. The thing whose attribute is asked for ("dog" in "Maya's dog's name", "the name of my
dog", "colour" in "my favourite colour"), when no fact holds it, weighs like a name the memory has
never heard of: naming the owner does not make the owner's facts an answer about the dog. A query word the fact holds only in another
form of the same family ("allergic" against "allergy", which stemming keeps apart) counts
`FAMILY_CREDIT` of its weight, in the fact and in what the memory knows.

Recall returns only hits whose relevance reaches the workspace's floor (`DEFAULT_FLOOR` unless a
person or an approved proposal changed it), so a question about something the memory does not hold
gets nothing, and only those whose match strength reaches `DEFAULT_MATCH_CUT` × the best hit's
(`selection.py`; a cut on relevance, `DEFAULT_CUT`, is off by default). `DEFAULT_FLOOR` and
`DEFAULT_MATCH_CUT` were chosen by leave-one-conversation-out cross-validation on LoCoMo's
development conversations (`python -m bench.memory.abstention --cv`: the lowest floor that leaves
60% of foreign questions with nothing, the lowest cut that makes a quarter of what is returned
evidence); `UNKNOWN_POWER` and `UNKNOWN_WORD_WEIGHT` likewise (searching them again per
fold, `--search-knobs`, scores worse on the held-out folds, so they stay) (figures in
docs/BENCHMARKS.md). Pure: no Django.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from memory.engine.recall.stem import stem
from memory.engine.recall.tokenize import index_tokens, strip_clitics

UNKNOWN_POWER = 6.0
UNKNOWN_WORD_WEIGHT = 0.1
MIN_SPELLING_LENGTH = 5  # shorter words are too often a real word one edit from another
DEFAULT_FLOOR = 0.0152
DEFAULT_CUT = 0.0  # a hit needs this share of the best hit's relevance (selection.py): off by default
DEFAULT_MATCH_CUT = 0.65  # and this share of the best hit's match strength (selection.py)
# With a learned embedder the blend gives its cosine a share, which flattens the matches: the same
# procedure chooses a higher cut there (every held-out fold chose it; docs/BENCHMARKS.md).
DEFAULT_LEARNED_MATCH_CUT = 0.725

# Words that shape a question but never say what it is about. Recall still matches on them; only
# relevance ignores them. Surface forms, as a person types them (compared before stemming).
FUNCTION_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me might more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same shall she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what whatever when where
    whether which while who whom whose why will with would you your yours yourself yourselves
    anything something everything nothing tell know remember recall say said ever also
    kind type sort thing things likely""".split()  # noqa: SIM905 - a word list reads best as words
)
# Nouns that name an attribute of whatever the question is about ("my dog's *name*", "the *status* of
# the order"), not the thing itself. A fact holding only such a word holds nothing the question asks
# about; they weigh nothing unless the question has no other word ("what is my name?").
GENERIC_WORDS = frozenset(
    """name names named called item items stuff topic topics status way ways lot lots many much often
    example examples detail details info information part parts""".split()  # noqa: SIM905
)
# Two stems are one word family ("allergic"/"allergy": allerg/allergi) when the shorter has at least
# FAMILY_MIN letters and the longer is the shorter plus at most FAMILY_MAX_EXTRA letters.
# A family match counts FAMILY_CREDIT of the word's weight: a derived word is close, not the same.
FAMILY_MIN = 5
FAMILY_MAX_EXTRA = 2
FAMILY_CREDIT = 0.8
# Calendar words and numbers: a question's date is answered by a fact's time, not its words.
_DATE_WORD = re.compile(
    r"^(?:\d+(?:st|nd|rd|th|s)?|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?"
    r"|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|yesterday|today|tomorrow|tonight|week|weeks|weekend|month|months"
    r"|year|years|day|days|ago|last|next|recently|lately)$"
)


@dataclass(frozen=True)
class QueryWord:
    stem: str
    surface: str  # the word as the query spelt it, for explanations
    weight: float  # 0 for a function word or a date
    known: bool  # some candidate fact holds it
    name: bool  # capitalised inside the sentence: probably a name


@dataclass(frozen=True)
class QueryWords:
    """A query's words, weighed once per query against the caller's candidates."""

    words: tuple[QueryWord, ...]
    known_weight: float  # the weight of the important words some candidate holds
    unknown_name_weight: float  # of the names no candidate holds
    unknown_word_weight: float  # of the other words no candidate holds (before UNKNOWN_WORD_WEIGHT)

    @property
    def known_share(self) -> float:
        return known_share(self.known_weight, self.unknown_name_weight, self.unknown_word_weight)

    @property
    def name_share(self) -> float:
        """The share of the query's weight that is not a name the memory has never heard of."""
        return name_share(self.known_weight, self.unknown_name_weight, self.unknown_word_weight)

    @property
    def important(self) -> tuple[QueryWord, ...]:
        return tuple(w for w in self.words if w.weight > 0)


@dataclass(frozen=True)
class Match:
    """One hit's relevance and the evidence behind it."""

    relevance: float
    coverage: float
    spelling: float
    known_share: float
    similarity: float = 0.0
    weights: tuple[float, float, float] = (0.0, 0.0, 0.0)  # known, unknown names, other unknown words
    matched: tuple[str, ...] = ()  # important words the fact holds (as the query spelt them)
    missed: tuple[str, ...] = ()  # important words the memory holds but this fact does not
    unknown: tuple[str, ...] = ()  # important words no fact in the memory holds
    names_missed: tuple[str, ...] = ()  # of missed and unknown, those that look like names
    related: tuple[str, ...] = ()  # of matched, those the fact holds only in another form ("allergy")

    def as_components(self, trust: float = 1.0) -> dict:
        """The match as hit components. `relevance` is the words' evidence × the fact's `trust`
        (source weight × confidence factor): an untrusted page that words a claim like the owner's
        fact answers the question less surely than the owner's fact does."""
        return {
            "relevance": _clean(self.relevance * trust),
            "evidence": self.relevance,
            "relevance_trust": trust,
            "relevance_formula": "evidence * trust; evidence = max(max(coverage, spelling) * known_share ** p, "
                                 "similarity * name_share ** p)",
            "spelling": self.spelling,
            "coverage": self.coverage,
            "similarity": self.similarity,
            "known_share": self.known_share,
            "unknown_power": UNKNOWN_POWER,
            "unknown_word_weight": UNKNOWN_WORD_WEIGHT,
            "query_weights": list(self.weights),
            "matched_words": list(self.matched),
            "missed_words": list(self.missed),
            "unknown_words": list(self.unknown),
            "names_missed": list(self.names_missed),
            "related_words": list(self.related),
            "relevance_via_link": False,  # the service marks a fact only the link walk reached
        }


def known_share(known: float, unknown_names: float, unknown_words: float,
                word_weight: float = UNKNOWN_WORD_WEIGHT) -> float:  # fmt: skip
    """The share of a query's weight the memory holds; an unknown name counts in full, another
    unknown word (a synonym the memory words differently) at `word_weight`."""
    total = known + unknown_names + word_weight * unknown_words
    return known / total if total > 0 else 0.0


def combine(words, similarity, weights: tuple[float, float, float], *, power: float = UNKNOWN_POWER,
            word_weight: float = UNKNOWN_WORD_WEIGHT):  # fmt: skip
    """The formula, on numbers or arrays alike (the abstention bench scores other knobs with it):
    the words' evidence max(coverage, spelling) discounted by what the memory does not know, or the
    learned similarity discounted only by unknown names (it reads meaning, not words)."""
    lexical = np.asarray(words, dtype=np.float64) * known_share(*weights, word_weight=word_weight) ** power
    return np.maximum(lexical, np.asarray(similarity, dtype=np.float64) * name_share(*weights) ** power)


def name_share(known: float, unknown_names: float, unknown_words: float) -> float:
    total = known + unknown_names + unknown_words
    return 1.0 - unknown_names / total if total > 0 else 0.0


def _surface_pairs(query: str) -> list[tuple[str, str]]:
    """(stem, surface word) for every recall term of the query, in order, first surface per stem."""
    seen: dict[str, str] = {}
    for token in index_tokens(strip_clitics(query)):
        seen.setdefault(stem(token), token)
    return list(seen.items())


def _as_written(query: str, surface: str) -> tuple[str, bool]:
    """The word as the query first spells it, and whether it looks like a name (capitalised
    somewhere other than the start of a sentence)."""
    written, name = surface, False
    for i, found in enumerate(re.finditer(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", query, re.IGNORECASE)):
        if i == 0:
            written = found.group(0)
        before = query[: found.start()].rstrip()
        if found.group(0)[0].isupper() and before and before[-1] not in ".!?:\"'“":
            return found.group(0), True
    return written, name


def weigh_query(query: str, idf: dict[str, float], unknown_idf: float,
                spell: Callable[[str], tuple[str, float] | None] | None = None) -> QueryWords:  # fmt: skip
    """Weigh the query's words: `idf` maps the stems some candidate holds to their IDF over the
    candidates; any other stem is unknown and weighs `unknown_idf` (the IDF of a word no fact holds).
    When every word is a function word or a date, they all weigh their IDF instead (a query must be
    about something: "what about May?").

    `spell`, given an unknown stem, may return a known stem one edit away and its IDF: a typo
    ("educaton") then counts as the word it misspells, not as something the memory never heard of."""
    pairs = _surface_pairs(query)
    if spell is not None:
        for i, (s, surface) in enumerate(pairs):
            if s not in idf and len(s) >= MIN_SPELLING_LENGTH and not _ignored(surface):
                fixed = spell(s)
                if fixed is not None:
                    pairs[i] = (fixed[0], surface)
                    idf = {**idf, fixed[0]: fixed[1]}
    plain = [(s, surface) for s, surface in pairs if not _ignored(surface)]
    chosen = set(s for s, _ in plain) if plain else set(s for s, _ in pairs)
    words = []
    owners = _owners_of_attributes(query)
    for s, surface in pairs:
        known = s in idf
        written, name = _as_written(query, surface)
        if not known and surface in owners:  # "my dog's name": the dog is what the question is about
            name = True
        weight = (idf[s] if known else unknown_idf) if s in chosen else 0.0
        words.append(QueryWord(s, written, weight, known, name))
    known = sum(w.weight for w in words if w.known)
    names = sum(w.weight for w in words if not w.known and w.name)
    others = sum(w.weight for w in words if not w.known and not w.name)
    return QueryWords(tuple(words), known, names, others)


_GENERIC = "|".join(sorted(GENERIC_WORDS))
_ATTRIBUTE_OF = re.compile(r"\b([^\W\d_]+)['’]s\s+(" + _GENERIC + r")\b"
                           r"|\b(?:" + _GENERIC + r")\s+of\s+(?:(?:my|the|his|her|their|our|your|a|an)\s+)?"
                           r"(?:[^\W\d_]+['’]s\s+)?([^\W\d_]+)"
                           r"|\b(?:favou?rite|preferred)\s+([^\W\d_]+)", re.IGNORECASE)  # fmt: skip


def _owners_of_attributes(query: str) -> set[str]:
    """The words whose generic attribute a question asks for ("dog" in "my dog's name", "the name of
    my dog") or whose favourite it asks for ("colour" in "my favourite colour"): the thing the
    question is about, as a surface form."""
    return {(m.group(1) or m.group(3) or m.group(4)).lower() for m in _ATTRIBUTE_OF.finditer(query)}


def _ignored(surface: str) -> bool:
    return surface in FUNCTION_WORDS or surface in GENERIC_WORDS or bool(_DATE_WORD.match(surface))


def same_family(a: str, b: str) -> bool:
    """Whether two different stems are forms of one word (see `FAMILY_MIN`)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if short == long or len(short) < FAMILY_MIN or len(long) - len(short) > FAMILY_MAX_EXTRA:
        return False
    return long.startswith(short)


def family_of(word: str, stems: Iterable[str]) -> str | None:
    """The first of `stems` in `word`'s family, or None."""
    if len(word) < FAMILY_MIN:
        return None
    return next((s for s in stems if s != word and same_family(word, s)), None)


def match(query: QueryWords, fact_stems: Iterable[str] | set[str], spelling: float = 0.0,
          similarity: float = 0.0) -> Match:  # fmt: skip
    """How well one fact, holding `fact_stems`, answers `query`; `spelling` and `similarity` are its
    n-gram and learned similarity on relevance's scale (`past_floor`; 0 when there is none)."""
    present = fact_stems if isinstance(fact_stems, (set, frozenset)) else set(fact_stems)
    important = query.important
    known_weight = sum(w.weight for w in important if w.known)
    held = [w for w in important if w.known and w.stem in present]
    kin = [w for w in important if w.known and w.stem not in present and family_of(w.stem, present) is not None]
    held_weight = sum(w.weight for w in held) + FAMILY_CREDIT * sum(w.weight for w in kin)
    coverage = held_weight / known_weight if known_weight > 0 else 0.0
    spelling = max(0.0, min(1.0, float(spelling)))
    similarity = max(0.0, min(1.0, float(similarity)))
    share = query.known_share
    weights = (query.known_weight, query.unknown_name_weight, query.unknown_word_weight)
    relevance = float(combine(max(coverage, spelling), similarity, weights))
    missed = [w for w in important if w.known and w.stem not in present and w not in kin]
    unknown = [w for w in important if not w.known]
    return Match(
        relevance=_clean(relevance), coverage=_clean(coverage), spelling=spelling, known_share=share, similarity=similarity,
        weights=weights,
        matched=tuple(w.surface for w in held + kin), missed=tuple(w.surface for w in missed),
        unknown=tuple(w.surface for w in unknown), names_missed=tuple(w.surface for w in missed + unknown if w.name),
        related=tuple(w.surface for w in kin),
    )  # fmt: skip


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit(word: str) -> Iterable[str]:
    """Every string one deletion, transposition, substitution or insertion (a–z) from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    for left, right in splits:
        if right:
            yield left + right[1:]
            for c in _LETTERS:
                if c != right[0]:
                    yield left + c + right[1:]
        if len(right) > 1:
            yield left + right[1] + right[0] + right[2:]
        for c in _LETTERS:
            yield left + c + right


def past_floor(value: float, floor: float) -> float:
    """A lane's similarity on relevance's scale: 0 at the lane's own floor (below which it returns
    nothing on that evidence alone), 1 at identity."""
    if value <= floor or floor >= 1.0:
        return 0.0
    return min(1.0, (value - floor) / (1.0 - floor))


def unknown_idf(n_candidates: int) -> float:
    """BM25's IDF of a word no candidate holds: the highest any word can weigh."""
    return math.log(1.0 + (n_candidates + 0.5) / 0.5)


def _clean(value: float) -> float:
    return round(min(1.0, max(0.0, float(value))), 6)


def describe(components: dict) -> str:
    """One sentence a person understands: what the fact matched, what it missed, and why."""
    relevance = components.get("relevance")
    if relevance is None:
        return "No relevance was computed for this hit."
    matched = components.get("matched_words") or []
    missed = components.get("missed_words") or []
    unknown = components.get("unknown_words") or []
    names = set(components.get("names_missed") or [])
    total = len(matched) + len(missed) + len(unknown)
    parts = []
    if components.get("relevance_via_link"):
        parts.append(f"proposed through a link (hop {components.get('hop') or 1}) and judged by its own words")
    related = set(components.get("related_words") or [])
    if total:
        shown = [f"‘{w}’ in another form" if w in related else f"‘{w}’" for w in matched]
        parts.append(f"matched {len(matched)} of {total} important word{'s' if total != 1 else ''}"
                     + (f" ({', '.join(shown)})" if matched else ""))  # fmt: skip
    else:
        parts.append("the query has no word that says what it is about")
    missed_names = [w for w in missed if w in names]
    missed_plain = [w for w in missed if w not in names]
    if missed_names:
        parts.append(f"missed the name{'s' if len(missed_names) > 1 else ''} {', '.join(_quote(missed_names))}")
    if missed_plain:
        parts.append(f"missed {', '.join(_quote(missed_plain))}")
    if unknown:
        label = "no fact in this memory mentions"
        parts.append(f"{label} {', '.join(_quote(unknown))}")
    trust = components.get("relevance_trust")
    if trust is not None and trust < 0.995:
        parts.append(f"its source is trusted at {trust:.2f}, so it counts {trust:.0%} of its evidence")
    coverage = components.get("coverage") or 0
    if (components.get("similarity") or 0) > max(coverage, components.get("spelling") or 0):
        parts.append("close in meaning (learned embedder)")
    elif (components.get("spelling") or 0) > coverage:
        parts.append("spelled alike (character match)")
    sentence = "; ".join(parts)
    return f"Relevance {relevance:.2f}: {sentence}." if sentence else f"Relevance {relevance:.2f}."


def _quote(words: Sequence[str]) -> list[str]:
    return [f"‘{w}’" for w in words]
