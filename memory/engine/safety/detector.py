"""The injection detector (ENGINE-SPEC Decision 18): a learned linear model over the words, word pairs
and letter runs of an untrusted text, trained on many public sources and validated by leaving a whole
source out.

The rules of `directive_rules` name the shapes of an order precisely, and explain themselves; they
also learn the phrasings they were written from. This detector reads what they miss: a task hijack
inside an e-mail ("include the phrase … in your reply"), a prompt leak ("what were you told before
this?"), a jailbreak written as a role to play. It needs no language model and downloads nothing:

* the text is folded (`deobfuscate.fold`: look-alike letters, accents, case) and its misspelt trigger
  words are read as what they spell (`deobfuscate.respell`);
* its features are every word, every pair of adjacent words and every run of three to five
  characters (spaces included, so "iunstructions" shares most of its runs with "instructions"),
  each hashed into one of `2**BITS` weights; a text is the unit vector of the features it holds;
* the score is a logistic regression's probability. A long text is read in overlapping windows of
  `WINDOW` characters and scores its most order-like window, so an order hidden in the middle of a
  long page reads as it would alone.

Measured honestly it is modest: on a source it never saw it adds only a few attacks to what the rules
and the word list hold (docs/BENCHMARKS.md, leave one source out); its score is shown to the reviewer
of every held write either way.

The weights are a file the repository ships (`data/injection_detector.npz`), written by
`python -m bench.training.train_injection_detector`, which records the sources it was trained on and
the threshold chosen on held-out sources. Scoring costs well under a millisecond per thousand
characters (numpy over the characters; one hash per word).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from memory.engine.safety.deobfuscate import fold, respell

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "injection_detector.npz"
RULE = "detector"
BITS = 18
WINDOW = 1500  # characters a window reads
STRIDE = 1000  # a window starts this far after the last: each order sits wholly inside one
MAX_CHARS = 200_000  # read whole up to here (linear); validation refuses far longer texts first
NGRAMS = (3, 4, 5)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_SPACES = re.compile(r"\s+")
_MASK = np.uint64((1 << BITS) - 1)
_MULT = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: spreads the polynomial's low bits
_BASE = np.uint64(1_000_003)


def _grams(text: str) -> np.ndarray:
    """The hashed indices of every run of 3, 4 and 5 characters of `text` (a space before and after)."""
    codes = np.frombuffer(f" {text} ".encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    out = []
    for n in NGRAMS:
        if len(codes) < n:
            continue
        h = np.zeros(len(codes) - n + 1, dtype=np.uint64)
        for j in range(n):  # polynomial hash over the run; uint64 arithmetic wraps, which is what we want
            h = h * _BASE + codes[j : len(codes) - n + 1 + j]
        h = h * np.uint64(n) + np.uint64(n)  # runs of different lengths never share an index by construction
        out.append(((h * _MULT) >> np.uint64(64 - BITS)) & _MASK)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint64)


def _word_index(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) & int(_MASK)


def prepare(text: str) -> str:
    """The text as the detector reads it: folded, misspelt trigger words respelt, spaces single."""
    return _SPACES.sub(" ", respell(fold(text[:MAX_CHARS]))).strip()


def features(prepared: str) -> tuple[np.ndarray, list[str]]:
    """(unique hashed indices, the words) of one prepared window."""
    words = _WORD.findall(prepared)
    tokens = [f"w {w}" for w in words] + [f"b {a} {b}" for a, b in zip(words, words[1:], strict=False)]
    crc32 = zlib.crc32  # `_word_index` of every token, without a call per token
    hashed = np.fromiter((crc32(t.encode("utf-8")) for t in tokens), dtype=np.uint32, count=len(tokens))
    indices = np.concatenate([(hashed & np.uint32(_MASK)).astype(np.int32), _grams(prepared).astype(np.int32)])
    indices.sort()  # then each index once: np.unique does the same ten times slower on a few thousand
    return indices[np.concatenate(([True], indices[1:] != indices[:-1]))] if len(indices) else indices, words


def windows(prepared: str) -> list[str]:
    """Overlapping windows of a prepared text (one window when it is short)."""
    if len(prepared) <= WINDOW:
        return [prepared]
    starts = range(0, len(prepared) - WINDOW + STRIDE, STRIDE)
    return [prepared[start : start + WINDOW] for start in starts]


# fmt: off
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as",
    "into", "onto", "about", "than", "then", "so", "that", "this", "these", "those", "it", "its", "is", "are",
    "was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have", "had", "will", "would", "can",
    "could", "may", "might", "must", "shall", "should", "i", "me", "my", "we", "our", "you", "your", "he", "him",
    "his", "she", "her", "they", "them", "their", "there", "here", "what", "which", "who", "whom", "whose", "when",
    "where", "why", "how", "all", "any", "each", "every", "some", "no", "not", "more", "most", "other", "such",
    "only", "own", "same", "too", "very", "just", "also", "s", "t",
})
# fmt: on


class DetectorUnavailable(ValueError):
    """The weights file is missing or not in the expected shape."""


@dataclass(frozen=True, eq=False)
class Detector:
    weights: np.ndarray  # float32, 2**BITS
    bias: float
    threshold: float  # a probability at or above it holds the text for review
    meta: dict = field(default_factory=dict)

    def window_score(self, prepared_window: str) -> float:
        indices, _ = features(prepared_window)
        if not len(indices):
            return 0.0
        z = self.bias + float(self.weights[indices.astype(np.intp)].sum()) / np.sqrt(len(indices))
        return float(1.0 / (1.0 + np.exp(-z))) if z > -60 else 0.0

    def score(self, text: str) -> float:
        """How likely `text` carries an injected order, 0–1 (its most order-like window)."""
        prepared = prepare(text)
        return max((self.window_score(window) for window in windows(prepared)), default=0.0)

    def holds(self, text: str) -> bool:
        return self.score(text) >= self.threshold

    def telling_words(self, text: str, limit: int = 5) -> list[str]:
        """The words and word pairs that weigh most towards an order in the text's most order-like window
        (what a reviewer reads beside the score); a word or pair of function words alone ("of the") says
        nothing to a person and is left out."""
        prepared = prepare(text)
        best = max(windows(prepared), key=self.window_score, default="")
        words = _WORD.findall(best)
        weighed = {w: float(self.weights[_word_index(f"w {w}")]) for w in words if w not in _FUNCTION_WORDS}
        for a, b in zip(words, words[1:], strict=False):
            if not (a in _FUNCTION_WORDS and b in _FUNCTION_WORDS):
                weighed[f"{a} {b}"] = float(self.weights[_word_index(f"b {a} {b}")])
        ranked = [w for w, weight in sorted(weighed.items(), key=lambda kv: -kv[1]) if weight > 0]
        chosen: list[str] = []
        for phrase in ranked:  # a pair says more than either of its words: no word twice
            if not any(set(phrase.split()) & set(other.split()) for other in chosen):
                chosen.append(phrase)
            if len(chosen) == limit:
                break
        return chosen


def load(path: str | Path = DEFAULT_PATH) -> Detector:
    try:
        with np.load(path, allow_pickle=False) as data:
            weights = data["weights"].astype(np.float32)
            meta = json.loads(str(data["meta"]))
        if weights.shape != (1 << BITS,):
            raise ValueError(f"expected {1 << BITS} weights, found {weights.shape}")
        return Detector(weights, float(meta["bias"]), float(meta["threshold"]), meta)
    except (OSError, ValueError, KeyError) as error:
        raise DetectorUnavailable(f"{path}: {error}") from error


def save(detector: Detector, path: str | Path) -> int:
    """Writes the weights (float16, compressed) and what made them; returns the file's size in bytes."""
    meta = {**detector.meta, "bias": detector.bias, "threshold": detector.threshold, "bits": BITS}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        np.savez_compressed(
            handle, weights=detector.weights.astype(np.float16), meta=np.array(json.dumps(meta))
        )
    return Path(path).stat().st_size


@lru_cache(maxsize=1)
def shipped() -> Detector | None:
    """The detector that travels with the package (None when its file is missing: the rules judge alone)."""
    try:
        return load(DEFAULT_PATH)
    except DetectorUnavailable:
        return None
