"""The character n-gram lane (memory/engine/recall/ngrams.py): features, TF-IDF cosine, candidate statistics."""

import numpy as np
import pytest

from memory.engine.recall.ngrams import NgramIndex, gram_features
from memory.engine.recall.tokenize import MAX_INDEX_TOKEN_LENGTH

DOCS = [
    "My grandmother lives in Sweden.",
    "I took the puppy to the vet.",
    "The pride festival was last year.",
    "Weather in the mountains is cold.",
]
ALL = np.ones(len(DOCS), dtype=bool)


def test_features_are_each_word_and_its_three_and_four_character_windows():
    assert gram_features("Dog") == ["w:dog", "g:^do", "g:dog", "g:og$", "g:^dog", "g:dog$"]


def test_stopwords_give_no_features():
    assert gram_features("what is the") == []


def test_a_text_is_fully_similar_to_itself_and_scores_lie_in_zero_to_one():
    scores = NgramIndex(DOCS).cosine(DOCS[1], ALL)
    assert scores[1] == pytest.approx(1.0)
    assert (scores >= 0).all() and (scores <= 1.0 + 1e-9).all()


@pytest.mark.parametrize(("query", "expected"), [("grandma", 0), ("pup", 1), ("fesetival", 2)])
def test_word_pieces_find_related_forms_and_typos_that_share_no_whole_word(query, expected):
    scores = NgramIndex(DOCS).cosine(query, ALL)
    assert int(np.argmax(scores)) == expected and scores[expected] > 0


def test_facts_outside_the_candidates_score_zero_and_do_not_shift_the_statistics():
    """Isolation: IDF and norms are over the candidate set, so a hidden fact changes nothing."""
    docs = ["alpha beta", "alpha gamma", "alpha delta", "beta beta beta"]
    visible = np.array([True, True, True, False])
    with_hidden = NgramIndex(docs).cosine("alpha beta", visible)
    without = NgramIndex(docs[:3]).cosine("alpha beta", np.ones(3, dtype=bool))
    assert with_hidden[3] == 0.0
    assert with_hidden[:3] == pytest.approx(without)


def test_statistics_are_cached_per_candidate_set():
    index = NgramIndex(DOCS)
    some = np.array([True, True, False, False])
    index.cosine("puppy", ALL)
    index.cosine("puppy", some)
    index.cosine("vet", ALL)
    assert len(index._stats) == 2


def test_unknown_query_words_lower_the_cosine():
    """A query half made of words the memory has never seen is only half like anything in it."""
    index = NgramIndex(DOCS)
    plain = index.cosine("puppy", ALL)[1]
    diluted = index.cosine("puppy xylophone quasar", ALL)[1]
    assert 0 < diluted < plain


def test_a_query_without_features_or_candidates_scores_nothing():
    index = NgramIndex(DOCS)
    assert not index.cosine("the of is", ALL).any()
    assert not index.cosine("puppy", np.zeros(len(DOCS), dtype=bool)).any()
    assert not NgramIndex([]).cosine("puppy", np.zeros(0, dtype=bool)).any()


def test_a_word_brings_a_bounded_number_of_features_however_long():
    """Words are cut to the recall cap: 1,000 letters give the features of the first 128, not 2,000."""
    features = gram_features("y" * 1000)
    assert len(features) == 1 + (MAX_INDEX_TOKEN_LENGTH + 2 - 2) + (MAX_INDEX_TOKEN_LENGTH + 2 - 3)
    index = NgramIndex(["y" * 1000, "a plain fact"])
    assert index.cosine("y" * 5000, np.ones(2, dtype=bool))[0] == pytest.approx(1.0)


def test_norms_summed_a_few_entries_at_a_time_equal_one_pass_to_the_last_bit(monkeypatch):
    """A build sums squared weights in steps (bounded memory); the sums must be exactly one pass's."""
    from bench.memory.corpus import Corpus
    from memory.engine.recall import ngrams

    docs = [fact.content for fact in Corpus(seed=3).facts(400)]
    one_pass = NgramIndex(docs).weights
    expected = np.bincount(one_pass.indices, weights=np.square(one_pass.data, dtype=np.float64), minlength=len(docs))
    monkeypatch.setattr(ngrams, "ENTRY_CHUNK", 7)
    stepped = NgramIndex(docs)
    assert stepped._s0.tobytes() == expected.tobytes()
    query = docs[5]
    assert np.array_equal(stepped.cosine(query, np.ones(len(docs), dtype=bool)), NgramIndex(docs).cosine(query, np.ones(len(docs), dtype=bool)))


def test_each_idf_is_within_a_half_grid_step_of_the_exact_formula():
    """b = ln(df + 1) lies on a grid of 1/B_STEPS, so no IDF is more than half a step from
    `ln((n + 1) / (df + 1)) + 1`: at most 0.05% of an IDF, which is never below 1."""
    from bench.memory.corpus import Corpus
    from memory.engine.recall.ngrams import B_STEPS

    docs = [fact.content for fact in Corpus(seed=5).facts(600)]
    index = NgramIndex(docs)
    mask = np.ones(len(docs), dtype=bool)
    mask[::3] = False
    idf, _ = index.statistics(mask)
    df = np.add.reduceat(mask[index.weights.indices].astype(np.float64), index.weights.indptr[:-1])
    exact = np.log((mask.sum() + 1.0) / (df + 1.0)) + 1.0
    assert np.abs(idf - exact).max() <= 0.5 / B_STEPS + 1e-12
    assert (np.abs(idf - exact) / exact).max() <= 0.0005


def test_a_write_corrects_few_postings_however_many_facts_share_its_pieces():
    """A new fact's common pieces move their df by one; the candidate set after each write is derived
    from the one before by correcting only the features whose b crossed a grid line, not every fact
    holding a common piece (which made the first recall after a write grow with the workspace)."""
    from memory.engine.recall import ngrams

    common = "coffee morning garden"
    docs = [f"{common} note{i}" for i in range(20_000)]
    index = NgramIndex(docs)
    mask = np.ones(len(docs), dtype=bool)
    index.candidate_sums(mask)
    writes = 40
    for i in range(writes):
        index.extend([f"{common} entry{i}"])
        mask = np.append(mask, True)
        index.candidate_sums(mask)
    drift = index.candidate_sums(mask).drift
    shared = len(set(ngrams.gram_features(common)))
    # Exact b would correct every holder of each shared piece on every write: writes × shared × 20,000.
    # On the grid a df of 20,000 crosses a line about once per 20,000 / B_STEPS ≈ 20 writes.
    assert drift < writes * shared * len(docs) / 10
    fresh = NgramIndex(docs + [f"{common} entry{i}" for i in range(writes)])
    assert np.allclose(index.cosine("coffee garden", mask), fresh.cosine("coffee garden", mask), rtol=1e-12, atol=0)


def test_small_indexes_and_loaded_snapshots_share_one_copy_of_each_word_and_letter_run():
    """Unpickled (a snapshot restored), every small index held its own copy of every feature and
    term: a third more memory than the same indexes built in the process."""
    import pickle
    import sys

    from memory.engine.recall.bm25 import Bm25Index

    documents = ["The keeper waters the roses at dawn.", "Mira keeps bees behind the orchard."]
    built = NgramIndex(documents)
    assert built.vocabulary and all(sys.intern(feature) is feature for feature in built.vocabulary)
    loaded = pickle.loads(pickle.dumps(NgramIndex(documents)))
    assert loaded.vocabulary == built.vocabulary
    assert all(a is b for a, b in zip(loaded.vocabulary, built.vocabulary, strict=True))  # the very same strings

    terms = Bm25Index(documents)
    terms.term_names()  # the lazy column-order list, pickled with the vocabulary
    loaded_terms = pickle.loads(pickle.dumps(terms))
    assert loaded_terms.vocabulary == terms.vocabulary
    assert all(sys.intern(word) is word for word in loaded_terms.vocabulary)
    assert loaded_terms.term_names() == terms.term_names()
    assert all(a is b for a, b in zip(loaded_terms.term_names(), loaded_terms.vocabulary, strict=True))
