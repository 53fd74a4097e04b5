"""Deterministic, realistic, varied facts for benchmarks (no external data).

Sentences come from templates per segment, filled from vocabularies of generated names, places,
projects and things whose frequencies follow a Zipf law, so a few words are common and most are
rare, as in real memory. The same seed always yields the same facts.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "cl", "dr", "fl", "gr", "kr", "pl", "pr", "sh", "st", "tr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "n", "r", "l", "s", "m", "nd", "rt", "x"]

TEMPLATES = {
    "identity": ["My name is {person}.", "I was born in {place} in {year}.", "I work as a {job} at {org}.",
                 "I speak {language} and some {language2}."],
    "preference": ["I prefer {thing} over {thing2}.", "I like {thing} on {day} mornings.",
                   "I want {thing} reports sent every {day}.", "I avoid {thing} when I travel to {place}."],
    "correction": ["Correction: the {project} runs on {thing}, not {thing2}.",
                   "Correction: {person} moved to {place} in {year}."],
    "relationship": ["{person} is my {relation} and lives in {place}.", "I meet {person} every {day} about {project}.",
                     "{person}'s birthday is on {month} {daynum}."],
    "project": ["The {project} deadline is {month} {daynum}.", "The {project} uses {thing} and {thing2}.",
                "{person} owns the {project} on-call rotation.", "The {project} budget is {number} euros."],
    "knowledge": ["{place} is about {number} km from {place2}.", "The {thing} in {place} opens at {hour}:00.",
                  "{org} was founded in {year} in {place}.", "{thing} pairs well with {thing2}."],
    "context": ["I am reviewing the {project} with {person} today.", "I am in {place} until {day}.",
                "I owe {person} an answer about {thing}."],
}  # fmt: skip
SEGMENT_WEIGHTS = {"identity": 3, "preference": 14, "correction": 3, "relationship": 14, "project": 24,
                   "knowledge": 30, "context": 12}  # fmt: skip
FIXED = {
    "relation": ["sister", "brother", "manager", "friend", "neighbour", "colleague", "dentist", "mentor"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "month": ["January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December"],
    "language": ["English", "Portuguese", "Spanish", "French", "German", "Yoruba", "Hindi", "Japanese"],
    "job": ["backend engineer", "designer", "data scientist", "product manager", "nurse", "teacher", "chef"],
}  # fmt: skip


@dataclass(frozen=True)
class SyntheticFact:
    content: str
    segment: str


class Corpus:
    """Generates facts; `vocabulary` controls how many distinct names and things exist."""

    def __init__(self, seed: int = 7, vocabulary: int = 20_000) -> None:
        self.rng = random.Random(seed)
        words = self._words(vocabulary)
        self.pools = {
            "person": [f"{w.title()} {v.title()}" for w, v in zip(words[0::2], words[1::2], strict=False)],
            "place": [w.title() + self.rng.choice(["", "ville", " Bay", "ford", "a"]) for w in words],
            "thing": words,
            "project": [f"{w} service" for w in words[: vocabulary // 4]],
            "org": [w.title() + self.rng.choice([" Labs", " Freight", " Health", " Bank", ""]) for w in words[: vocabulary // 4]],
        }
        # Cumulative Zipf weights, computed once: `choices` is then a binary search per pick.
        self.cumulative = {name: list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(pool))))
                           for name, pool in self.pools.items()}  # fmt: skip
        self.segments = list(SEGMENT_WEIGHTS)
        self.segment_weights = list(SEGMENT_WEIGHTS.values())

    def _words(self, count: int) -> list[str]:
        seen: set[str] = set()
        out = []
        while len(out) < count:
            syllables = self.rng.choice([2, 2, 3, 3, 4])
            word = "".join(self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS) + self.rng.choice(_CODAS)
                           for _ in range(syllables))  # fmt: skip
            if word not in seen:
                seen.add(word)
                out.append(word)
        return out

    def _pick(self, pool: str) -> str:
        if pool in FIXED:
            return self.rng.choice(FIXED[pool])
        return self.rng.choices(self.pools[pool], cum_weights=self.cumulative[pool])[0]

    def fact(self) -> SyntheticFact:
        segment = self.rng.choices(self.segments, weights=self.segment_weights)[0]
        template = self.rng.choice(TEMPLATES[segment])
        values = {
            "person": self._pick("person"), "place": self._pick("place"), "place2": self._pick("place"),
            "thing": self._pick("thing"), "thing2": self._pick("thing"), "project": self._pick("project"),
            "org": self._pick("org"), "relation": self._pick("relation"), "day": self._pick("day"),
            "month": self._pick("month"), "language": self._pick("language"), "language2": self._pick("language"),
            "job": self._pick("job"), "year": self.rng.randint(1950, 2026), "daynum": self.rng.randint(1, 28),
            "number": self.rng.randint(2, 9000), "hour": self.rng.randint(6, 22),
        }  # fmt: skip
        return SyntheticFact(template.format(**values), segment)

    def facts(self, count: int) -> Iterator[SyntheticFact]:
        for _ in range(count):
            yield self.fact()
