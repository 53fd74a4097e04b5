"""The optional learned directive classifier (ENGINE-SPEC Decision 18): logistic regression over MiniLM sentence vectors.

The rules of `memory.engine.safety.directives` stay the floor: this classifier can only *add* holds. An
untrusted text the rules allow is held for review when the probability that it addresses the agent
reaches the shipped threshold; a rule's hold or refusal is never weakened, so turning the classifier
on can cost false holds of honest text but never lets through an attack the rules catch.

The weights (384 numbers, a bias and a threshold) are trained by
`python -m bench.training.train_directive_classifier` and shipped in `data/directive_classifier.json`
with the fingerprint of the embedder whose vector space they live in; a caller must check that
fingerprint against the embedder it runs (`memory.services.writes.untrusted` does).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memory.engine.safety.directives import Verdict

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "directive_classifier.json"
RULE = "learned_directive"
REASON = "it reads as text that addresses the agent (learned classifier): held for a person to decide"
FORMAT = 1


class ClassifierUnavailable(ValueError):
    """The weights file is missing, unreadable or not in the expected shape."""


class HasThreshold(Protocol):
    threshold: float


# eq=False: identity hashing, so a loaded classifier can key a cache (its arrays are not hashable).
@dataclass(frozen=True, eq=False)
class Classifier:
    weights: np.ndarray  # (dims,) float64
    bias: float
    threshold: float
    fingerprint: str  # the embedder's fingerprint: model id and a hash of its exact weights
    model: str
    meta: dict[str, Any]  # training date, corpus hash, chosen L2 strength, cross-validated figures

    @property
    def dims(self) -> int:
        return int(self.weights.shape[0])


def load_weights(path: str | Path = DEFAULT_PATH) -> Classifier:
    """The classifier stored at `path`; ClassifierUnavailable when it cannot be read as one."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        weights = np.asarray(raw["weights"], dtype=np.float64)
        classifier = Classifier(weights=weights, bias=float(raw["bias"]), threshold=float(raw["threshold"]),
                                fingerprint=str(raw["fingerprint"]), model=str(raw["model"]),
                                meta={k: v for k, v in raw.items() if k not in ("weights", "bias")})  # fmt: skip
        shaped = raw["format"] == FORMAT and weights.ndim == 1 and int(raw["dims"]) == weights.shape[0]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ClassifierUnavailable(f"cannot read the directive classifier at {path}: {error}") from error
    if not shaped:
        raise ClassifierUnavailable(f"{path} is not a format-{FORMAT} directive classifier of consistent dimension")
    # A threshold above 1 never holds: the way to ship the classifier switched off.
    if not (np.isfinite(weights).all() and math.isfinite(classifier.bias) and classifier.threshold > 0.0):
        raise ClassifierUnavailable(f"{path} holds non-finite weights or a threshold that is not positive")
    return classifier


def sigmoid(z: np.ndarray | float) -> np.ndarray:
    """The logistic function, without overflow warnings for large |z|."""
    z = np.asarray(z, dtype=np.float64)
    return np.exp(-np.logaddexp(0.0, -z))


def probability(vector: np.ndarray, classifier: Classifier) -> float:
    """P(directive) for one L2-normalised sentence vector of the classifier's embedder."""
    vector = np.asarray(vector, dtype=np.float64).reshape(-1)
    if vector.shape[0] != classifier.dims:
        raise ValueError(f"a {vector.shape[0]}-d vector for a {classifier.dims}-d classifier")
    return float(sigmoid(vector @ classifier.weights + classifier.bias))


def combine(verdict: Verdict, probability: float, settings: HasThreshold) -> Verdict:
    """The rules' verdict, or a hold when the rules allow and the classifier is at least as sure as
    `settings.threshold`. Holds and refusals pass through untouched: the rules are the floor."""
    if verdict.action != "allow" or not probability >= settings.threshold:  # NaN never holds
        return verdict
    return Verdict("hold", (RULE,), REASON)
