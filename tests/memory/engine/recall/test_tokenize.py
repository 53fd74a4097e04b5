"""The recall tokenizer (ENGINE-SPEC §3.1), the index analyzer (Decision 14) and token-set Jaccard (§1.11)."""

from memory.engine.recall.tokenize import (
    MAX_INDEX_TOKEN_LENGTH,
    STOPWORDS,
    index_tokens,
    jaccard,
    recall_terms,
    token_set,
    tokenize,
)


def test_tokenize_lowercases_and_splits_on_anything_that_is_not_a_letter_or_number():
    """BEHAVIOURS 30."""
    assert tokenize("Tabs over Spaces!") == ["tabs", "over", "spaces"]
    assert tokenize("  C++ / Rust-lang  ") == ["c", "rust", "lang"]
    assert tokenize("") == []


def test_tokenize_drops_stopwords():
    """BEHAVIOURS 30."""
    assert tokenize("I prefer the tabs") == ["prefer", "tabs"]
    assert tokenize("x of o") == ["x", "o"]
    assert tokenize("the of is") == []


def test_the_stopword_list_has_exactly_the_41_ascii_words_of_the_spec():
    assert len(STOPWORDS) == 41
    assert all(word.isascii() for word in STOPWORDS)
    assert {"a", "i", "you", "your", "will", "with", "which", "did"} <= STOPWORDS


def test_negations_and_pronouns_outside_the_list_are_kept():
    assert tokenize("no not am now we our they") == ["no", "not", "am", "now", "we", "our", "they"]


def test_tokenize_keeps_duplicates_because_bm25_counts_them():
    assert tokenize("alpha Alpha ALPHA") == ["alpha", "alpha", "alpha"]


def test_underscore_separates_words_like_any_punctuation():
    assert tokenize("home_city is snake_case") == ["home", "city", "snake", "case"]


def test_cyrillic_splits_into_words_and_a_cjk_run_stays_one_token():
    """BEHAVIOURS 31."""
    assert tokenize("Привет, мир") == ["привет", "мир"]
    assert tokenize("用户喜欢咖啡") == ["用户喜欢咖啡"]
    assert tokenize("deploy 部署 v2") == ["deploy", "部署", "v2"]


def test_index_tokens_equal_tokenize_for_text_without_spaceless_scripts():
    assert index_tokens("I deploy on Fridays, 3 times!") == tokenize("I deploy on Fridays, 3 times!")
    assert index_tokens("Привет мир") == ["привет", "мир"]


def test_index_tokens_add_overlapping_bigrams_for_a_cjk_run():
    """Decision 14: a CJK sentence becomes searchable by its words."""
    assert index_tokens("用户喜欢咖啡") == ["用户喜欢咖啡", "用户", "户喜", "喜欢", "欢咖", "咖啡"]


def test_a_short_cjk_token_is_not_counted_twice():
    assert index_tokens("deploy 部署 v2") == ["deploy", "部署", "v2"]


def test_a_cjk_run_glued_to_latin_letters_is_added_on_its_own():
    assert index_tokens("deploy部署") == ["deploy部署", "部署"]
    assert index_tokens("v2版") == ["v2版", "版"]


def test_japanese_kana_and_kanji_get_bigrams():
    assert "コー" in index_tokens("コーヒーが好き")
    assert "好き" in index_tokens("コーヒーが好き")


def test_thai_is_bigrammed_across_its_vowel_marks():
    """`tokenize` splits Thai at combining vowel marks; the bigrams span them so words still match."""
    tokens = index_tokens("ภาษาไทย")
    assert "ไท" in tokens and "ทย" in tokens


def test_korean_words_with_particles_share_a_bigram_with_the_bare_word():
    assert "커피" in index_tokens("커피를 좋아해요")


def test_token_set_is_the_set_of_recall_tokens():
    assert token_set("The cat and the Cat sat") == frozenset({"cat", "sat"})


def test_jaccard_is_intersection_over_union():
    assert jaccard({"a", "b"}, {"b", "c"}) == 1 / 3
    assert jaccard(["x"], ["x"]) == 1.0


def test_jaccard_of_two_empty_sets_is_zero_so_all_stopword_facts_never_dedup():
    assert jaccard(set(), set()) == 0.0
    assert jaccard(token_set("the of is"), token_set("it was a")) == 0.0


# ---------------------------------------------------------------- degenerate tokens


def test_the_recall_analyzers_cut_a_token_to_the_cap_and_a_query_is_cut_alike():
    """A fact may be 1,000 characters of one letter: the index keeps the first 128 of it, and the
    same run in a query is cut the same way, so the fact is still found by it."""
    assert index_tokens("y" * 1000) == ["y" * MAX_INDEX_TOKEN_LENGTH]
    assert recall_terms("note " + "y" * 1000) == ["note", "y" * MAX_INDEX_TOKEN_LENGTH]
    assert index_tokens("喜" * 1000)[0] == "喜" * MAX_INDEX_TOKEN_LENGTH  # the run; its bigrams follow
    assert index_tokens("喜" * 1000).count("喜喜") == 999


def test_tokens_up_to_the_cap_are_kept_whole_and_dedup_sees_every_character():
    digest = "ab" * 64  # a SHA-512 digest in hex is 128 characters: kept whole
    assert index_tokens(f"key {digest}") == ["key", digest]
    assert tokenize("x" * 1000) == ["x" * 1000]  # dedup must tell long blobs apart
