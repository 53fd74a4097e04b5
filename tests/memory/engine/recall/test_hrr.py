"""The HRR embedder and cosine (ENGINE-SPEC §3.5)."""

import numpy as np
import pytest

from memory.engine.recall.hrr import DIMS, EMBEDDER_ID, HrrEmbedder, cosine, cosine_many, features


def test_the_empty_text_vector_has_the_pinned_component():
    """BEHAVIOURS 41: component 1 of the empty-text vector is 0.03892841099936575."""
    assert HrrEmbedder().embed_one("")[1] == 0.03892841099936575


def test_whitespace_and_punctuation_embed_like_the_empty_text():
    empty = HrrEmbedder().embed_one("")
    assert np.array_equal(HrrEmbedder().embed_one("   \n\t"), empty)
    assert np.array_equal(HrrEmbedder().embed_one("?!"), empty)


def test_the_empty_vector_is_a_finite_256_d_unit_vector_with_no_zero_sine_component():
    """BEHAVIOURS 41."""
    vector = HrrEmbedder().embed_one("")
    assert vector.shape == (256,) and np.isfinite(vector).all()
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-12)
    assert np.count_nonzero(vector[1::2]) == 128


def test_two_embedder_instances_give_identical_vectors():
    """BEHAVIOURS 41."""
    assert np.array_equal(
        HrrEmbedder().embed_one("I live in Pune"), HrrEmbedder().embed_one("I live in Pune")
    )


def test_the_batch_form_is_a_float32_matrix_of_unit_rows_matching_single_embeds():
    texts = ["I live in Hyderabad, India.", "", "tabs over spaces", "tabs over spaces"]
    matrix = HrrEmbedder().embed(texts)
    assert matrix.dtype == np.float32 and matrix.shape == (4, DIMS)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)
    for row, text in zip(matrix, texts, strict=True):
        assert np.allclose(row, HrrEmbedder().embed_one(text), atol=1e-7)
    assert matrix[1, 1] == np.float32(0.03892841099936575)


def test_an_empty_batch_is_an_empty_matrix():
    assert HrrEmbedder().embed([]).shape == (0, DIMS)


def test_the_embedder_identifies_itself_and_its_default_floor():
    embedder = HrrEmbedder()
    assert embedder.id == EMBEDDER_ID == "hrr-v1:256"
    assert embedder.dims == 256 and embedder.min_sim == 0.3


def test_features_keep_stopwords_and_add_framed_trigrams():
    """ENGINE-SPEC §13.14: HRR features keep stopwords while BM25 drops them."""
    assert features("I am") == ["w:i", "g:^i$", "w:am", "g:^am", "g:am$"]
    assert features("") == ["w:__hrr_empty__"]


def test_texts_sharing_words_are_closer_than_unrelated_texts():
    embedder = HrrEmbedder()
    base = embedder.embed_one("I deploy on Fridays")
    assert cosine(base, embedder.embed_one("we deploy on Friday afternoons")) > cosine(
        base, embedder.embed_one("my cat is named Mochi")
    )


def test_cosine_edge_cases_follow_the_spec():
    """BEHAVIOURS 40."""
    assert cosine([1, 0], [1, 0, 0]) == 0.0
    assert cosine([], []) == 0.0
    assert cosine([0, 0], [1, 0]) == 0.0
    assert cosine([0.6, 0.8], [0.6, 0.8]) == pytest.approx(1.0)
    assert cosine([0.6, 0.8], [0.8, 0.6]) == pytest.approx(0.96)


def test_cosine_many_agrees_with_cosine_and_gives_zero_for_zero_rows():
    matrix = np.array([[0.6, 0.8], [0.8, 0.6], [0.0, 0.0]])
    assert cosine_many(np.array([0.6, 0.8]), matrix).tolist() == pytest.approx([1.0, 0.96, 0.0])
    assert cosine_many(np.array([1.0, 0.0, 0.0]), matrix).tolist() == [0.0, 0.0, 0.0]
