"""The wording of an order (ENGINE-SPEC Decision 18): a weighted list of words and word pairs, learned from the
labelled injection corpus, that reads the paraphrases the rules of `directive_rules` do not.

Rules name the shapes of an order; attackers who know a filter exists reword them ("the brief your
operator handed you has lapsed", "the sole agenda from then on"). Their vocabulary still differs
from honest text's: this list gives each word and each pair of adjacent words of the folded text
(`deobfuscate.fold`: look-alikes, accents and case undone) a weight, and a text whose weights add
up past the threshold is held for review like a rule's hold, named `wording`.

It is no language model and needs nothing installed: a table of a few thousand entries in
`data/directive_lexicon.tsv`, readable by a person (the heaviest entries are the words of orders:
"approve", "forward", "your instructions"), scored with dictionary lookups in well under a
millisecond. `python -m bench.training.train_directive_lexicon` fits it (class-balanced logistic
regression over the words present, each text's vector of unit length) and chooses the threshold by
cross-validation so that it adds at most 1% held benign texts beyond the rules' own, then raises it
until it adds at most 1% of each public source's honest texts (bench/data/injection_sources, never
trained on): e-mails, documentation and other languages the project's own look-alikes do not cover.
A text laid out as a record (`directives.is_record`) is not weighed by it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "directive_lexicon.tsv"
RULE = "wording"
MAX_CHARS = 4000  # an order sits in a text's first few thousand characters as well as anywhere else
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]")


def features(folded: str) -> set[str]:
    """The words and adjacent word pairs of a folded text ("ignore", "your brief")."""
    words = _TOKEN.findall(folded[:MAX_CHARS])
    return {*words, *(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))}


class LexiconUnavailable(ValueError):
    """The table is missing or not in the expected shape."""


@dataclass(frozen=True, eq=False)
class Lexicon:
    weights: dict[str, float]
    bias: float
    threshold: float
    meta: dict[str, str] = field(default_factory=dict)

    def probability(self, folded: str) -> float:
        """How likely the folded text is an order, by its words."""
        present = features(folded)
        if not present:
            return 0.0
        total = sum(self.weights.get(feature, 0.0) for feature in present)
        z = self.bias + total / math.sqrt(len(present))  # each text's vector has unit length
        return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0

    def holds(self, folded: str) -> bool:
        return self.probability(folded) >= self.threshold


def read(path: str | Path = DEFAULT_PATH) -> Lexicon:
    """The table at `path`: `# key<TAB>value` header lines (bias, threshold, how it was made), then
    `weight<TAB>feature` lines."""
    weights: dict[str, float] = {}
    meta: dict[str, str] = {}
    try:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.startswith("# ") and "\t" in line:
                key, value = line[2:].split("\t", 1)
                meta[key] = value
            elif line and not line.startswith("#"):
                weight, feature = line.split("\t", 1)
                weights[feature] = float(weight)
        return Lexicon(weights, float(meta["bias"]), float(meta["threshold"]), meta)
    except (OSError, ValueError, KeyError) as error:
        raise LexiconUnavailable(f"{path}: {error}") from error


def write(lexicon: Lexicon, path: str | Path) -> int:
    """Writes the table, heaviest entries first; returns its size in bytes."""
    head = [f"# {key}\t{value}" for key, value in {**lexicon.meta, "bias": f"{lexicon.bias:.6g}",
                                                     "threshold": f"{lexicon.threshold:.6g}"}.items()]  # fmt: skip
    body = [f"{weight:.4g}\t{feature}" for feature, weight in sorted(lexicon.weights.items(), key=lambda kv: -abs(kv[1]))]
    text = "\n".join(["# The wording of an order: see memory/engine/safety/directive_lexicon.py", *head, *body]) + "\n"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


@lru_cache(maxsize=1)
def shipped() -> Lexicon | None:
    """The table that travels with the package (None when it is missing: the rules judge alone)."""
    try:
        return read(DEFAULT_PATH)
    except LexiconUnavailable:
        return None

