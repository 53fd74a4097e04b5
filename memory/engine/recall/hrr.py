"""The default, model-free embedder: holographic phase vectors (ENGINE-SPEC §3.5).

Each feature of a text (its words, and the character trigrams of each word) gets a fixed random
"atom": 128 phases derived from SHA-256, so the same feature maps to the same atom in every process.
A text's vector superposes its atoms phase by phase (sum the unit phasors, keep the angle) and writes
each angle as a (cos, sin) pair; the 256 numbers are then scaled to unit length. Texts that share
words or word pieces share atoms, so their phases lean the same way and their cosine rises.

Vectorised: all distinct features of a batch are hashed once (and cached), and the per-text sums
are one sparse × dense product.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from scipy import sparse

PHASES = 128
DIMS = 2 * PHASES
EMBEDDER_ID = f"hrr-v1:{DIMS}"
DEFAULT_MIN_SIM = 0.3
EMPTY_FEATURE = "w:__hrr_empty__"
ATOM_CACHE_SIZE = 50_000

# Same word split as the recall tokenizer, but stopwords are kept (ENGINE-SPEC §13.14).
_SEPARATORS = re.compile(r"[\W_]+")


def features(text: str) -> list[str]:
    """The features of a text, duplicates kept: `w:<word>` then `g:<trigram>` for each window of `^word$`.

    A text without any word (empty, whitespace, punctuation) has the single feature `w:__hrr_empty__`,
    so it still gets a well-defined unit vector. Windows are over code points; the original counted
    UTF-16 units, which differs only for characters outside the Basic Multilingual Plane.
    """
    out: list[str] = []
    for word in _SEPARATORS.split(text.lower()):
        if not word:
            continue
        out.append("w:" + word)
        framed = "^" + word + "$"
        out.extend("g:" + framed[i : i + 3] for i in range(len(framed) - 2))
    return out or [EMPTY_FEATURE]


def _atom(feature: str) -> np.ndarray:
    """128 phases for a feature: SHA-256 of `feature:round` read as little-endian uint16 values.

    Each round yields 16 phases (u · 2π / 65536); eight rounds fill the atom.
    """
    chunks = []
    for round_no in range(PHASES // 16):
        digest = hashlib.sha256(f"{feature}:{round_no}".encode()).digest()
        chunks.append(np.frombuffer(digest, dtype="<u2"))
    return np.concatenate(chunks).astype(np.float64) * 2.0 * math.pi / 65536.0


class _AtomCache:
    """FIFO cache of (cos, sin) of atom phases; the first-in entry leaves when the cache is full."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def phasors(self, names: Sequence[str]) -> np.ndarray:
        """A (len(names), 2, 128) array of cos and sin of each feature's atom."""
        out = np.empty((len(names), 2, PHASES), dtype=np.float64)
        for i, name in enumerate(names):
            with self._lock:
                cached = self._entries.get(name)
            if cached is None:
                phases = _atom(name)
                cached = np.stack([np.cos(phases), np.sin(phases)])
                with self._lock:
                    self._entries[name] = cached
                    while len(self._entries) > self.capacity:
                        self._entries.popitem(last=False)
            out[i] = cached
        return out


_CACHE = _AtomCache(ATOM_CACHE_SIZE)


class HrrEmbedder:
    """Deterministic 256-d text embedder; `embed` returns one unit row per text."""

    id = EMBEDDER_ID
    dims = DIMS
    min_sim = DEFAULT_MIN_SIM

    def embed(self, texts: Sequence[str], dtype: type = np.float32) -> np.ndarray:
        """Embed texts into a (len(texts), 256) matrix of unit rows.

        Per phase index i: C_i = Σ cos(atom_f[i]) and S_i = Σ sin(atom_f[i]) over the text's features
        (duplicates count), φ_i = atan2(S_i, C_i); the row is (cos φ_0, sin φ_0, cos φ_1, …) divided by
        its L2 norm. Computed in float64; `dtype` (float32 by default, for storage) is the output type.
        """
        if len(texts) == 0:
            return np.zeros((0, DIMS), dtype=dtype)
        per_text = [features(text) for text in texts]
        names = list(dict.fromkeys(f for feats in per_text for f in feats))
        column = {name: i for i, name in enumerate(names)}
        rows = [r for r, feats in enumerate(per_text) for _ in feats]
        cols = [column[f] for feats in per_text for f in feats]
        counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), len(names)))
        phasors = _CACHE.phasors(names)
        cos_sum = counts @ phasors[:, 0, :]
        sin_sum = counts @ phasors[:, 1, :]
        angle = np.arctan2(sin_sum, cos_sum)
        vectors = np.empty((len(texts), DIMS), dtype=np.float64)
        vectors[:, 0::2] = np.cos(angle)
        vectors[:, 1::2] = np.sin(angle)
        vectors /= np.sqrt((vectors * vectors).sum(axis=1, keepdims=True))
        return vectors.astype(dtype, copy=False)

    def embed_one(self, text: str, dtype: type = np.float64) -> np.ndarray:
        """Embed a single text (float64 by default, the original's precision)."""
        return self.embed([text], dtype=dtype)[0]


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """dot / (|a|·|b|); 0 when the lengths differ, either side is empty, or either norm is zero."""
    left, right = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if left.shape != right.shape or left.size == 0:
        return 0.0
    norms = float(np.linalg.norm(left)) * float(np.linalg.norm(right))
    if norms == 0.0:
        return 0.0
    return float(left @ right) / norms


def cosine_many(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Cosine of one query vector against every row of a matrix (0 for zero-norm rows or query)."""
    q = np.asarray(query, dtype=np.float64)
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[1] != q.shape[0] or q.size == 0:
        return np.zeros(m.shape[0] if m.ndim == 2 else 0, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1) * float(np.linalg.norm(q))
    dots = m @ q
    out = np.zeros(m.shape[0], dtype=np.float64)
    np.divide(dots, norms, out=out, where=norms > 0)
    return out
