"""Live score of a fact: importance decayed by time since last access, lifted by use (ENGINE-SPEC §3.3).

Also the feedback arithmetic of §3.12, which moves the same importance the decay starts from.
Every function takes `now` (epoch ms) from the caller; nothing here reads a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DAY_MS = 86_400_000
BASE_HALF_LIFE_DAYS = 11.25
DECAY_BETA = 0.8
FEEDBACK_DELTA = {"up": 0.05, "down": -0.10}


def effective_score(importance, decay_rate, access_count, last_accessed_at, now, permanent=False):
    """`importance · exp(−λ'·days) · (1 + 0.1·ln(1 + accessCount))`, clamped to [0, 1].

    days = max(0, now − lastAccessedAt) in days; the half-life is 11.25·(1 + importance) days, so
    λ = 0.8·ln 2 / half-life, and the segment's decay rate speeds it up: λ' = λ·(1 + decayRate).
    A fact in the `permanent` tier always scores 1. Trust, confidence and status play no part. A fresh,
    never-used fact scores exactly its importance.

    Accepts scalars or numpy arrays (broadcast together); returns a float for scalars, else an array.
    """
    scalar = all(np.ndim(x) == 0 for x in (importance, decay_rate, access_count, last_accessed_at, permanent))
    importance = np.asarray(importance, dtype=np.float64)
    days = np.maximum(0.0, (now - np.asarray(last_accessed_at, dtype=np.float64)) / DAY_MS)
    half_life = BASE_HALF_LIFE_DAYS * (1.0 + importance)
    rate = (math.log(2) / np.maximum(half_life, 0.001)) * DECAY_BETA
    rate = rate * (1.0 + np.asarray(decay_rate, dtype=np.float64))
    decayed = importance * np.exp(-rate * days)
    reinforcement = 1.0 + 0.1 * np.log(1.0 + np.asarray(access_count, dtype=np.float64))
    score = np.clip(decayed * reinforcement, 0.0, 1.0)
    score = np.where(np.asarray(permanent, dtype=bool), 1.0, score)
    return float(score) if scalar else score


@dataclass(frozen=True)
class FeedbackOutcome:
    """What a `feedback` signal does to an active fact (ENGINE-SPEC §3.12)."""

    importance: float
    confidence: float | None
    touch: bool  # True ⇒ set lastAccessedAt = now and accessCount += 1


def apply_feedback(importance: float, confidence: float | None, signal: str) -> FeedbackOutcome:
    """`up` adds 0.05 and counts as a use; `down` subtracts 0.10 and leaves the access clock alone.

    Importance moves by the delta and is clamped to [0, 1]; a confidence, when the fact has one, moves
    by the same delta and clamp. Only active facts take feedback: the caller checks that.
    """
    if signal not in FEEDBACK_DELTA:
        raise ValueError(f"feedback signal must be 'up' or 'down', got {signal!r}")
    delta = FEEDBACK_DELTA[signal]
    new_confidence = None if confidence is None else min(1.0, max(0.0, confidence + delta))
    return FeedbackOutcome(min(1.0, max(0.0, importance + delta)), new_confidence, signal == "up")
