"""The rule-based English stemmer (memory/engine/recall/stem.py) and the default lane's analyzer."""

import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from memory.engine.recall.stem import MAX_STEMMED_LENGTH, measure, stem, stem_all
from memory.engine.recall.tokenize import recall_terms, tokenize


@pytest.mark.parametrize(
    ("stem_", "m"),
    [("tr", 0), ("ee", 0), ("tree", 0), ("y", 0), ("by", 0), ("trouble", 1), ("oats", 1), ("trees", 1),
     ("ivy", 1), ("troubles", 2), ("private", 2), ("oaten", 2), ("orrery", 2)],
)  # fmt: skip
def test_the_measure_counts_vowel_to_consonant_transitions(stem_, m):
    """y after a consonant is a vowel ("ivy" = VCV, m = 1); at the start it is a consonant."""
    assert measure(stem_) == m


@pytest.mark.parametrize(
    ("word", "expected"),
    [("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("caress", "caress"),
     ("campus", "campus"), ("status", "status")],
)  # fmt: skip
def test_plurals_lose_their_s_but_ss_and_us_endings_are_kept(word, expected):
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [("agreed", "agre"), ("feed", "feed"), ("plastered", "plaster"), ("motoring", "motor"),
     ("sing", "sing"), ("conflated", "conflat"), ("troubled", "troubl"), ("sized", "size"),
     ("hopping", "hop"), ("tanned", "tan"), ("falling", "fall"), ("hissing", "hiss"),
     ("fizzed", "fizz"), ("failing", "fail"), ("filing", "file"), ("hoping", "hope")],
)  # fmt: skip
def test_ed_and_ing_are_removed_only_after_a_vowel_and_the_stem_is_repaired(word, expected):
    """-at/-bl/-iz regain an e, a doubled consonant is undoubled (not l, s, z), a short cvc stem
    regains its e: so "hoping" → "hope" and "hopping" → "hop" stay apart."""
    assert stem(word) == expected


def test_a_final_y_after_a_consonant_becomes_i_so_plural_and_singular_meet():
    assert stem("happy") == "happi" and stem("sky") == "sky"
    assert stem("ponies") == stem("pony") == "poni"


@pytest.mark.parametrize(
    ("word", "expected"),
    [("relational", "relat"), ("conditional", "condit"), ("rational", "ration"),
     ("digitizer", "digit"), ("vietnamization", "vietnam"), ("operator", "oper"),
     ("decisiveness", "decis"), ("hopefulness", "hope"), ("formaliti", "formal"),
     ("sensibiliti", "sensibl"), ("triplicate", "triplic"), ("formative", "form"),
     ("electrical", "electr"), ("goodness", "good"), ("revival", "reviv"), ("allowance", "allow"),
     ("inference", "infer"), ("adjustable", "adjust"), ("replacement", "replac"),
     ("adjustment", "adjust"), ("dependent", "depend"), ("adoption", "adopt"),
     ("communism", "commun"), ("effective", "effect"), ("bowdlerize", "bowdler"),
     ("probate", "probat"), ("rate", "rate"), ("cease", "ceas"), ("controll", "control"),
     ("roll", "roll")],
)  # fmt: skip
def test_derivational_suffixes_follow_the_classic_porter_steps(word, expected):
    """Steps 2–5: double suffixes shortened (m > 0), a last suffix dropped (m > 1), a final e and ll."""
    assert stem(word) == expected


def test_a_suffix_is_kept_when_too_little_would_remain():
    """The word "cement" ends in -ement, but "c" has m = 0, and the longest matching suffix decides."""
    assert stem("cement") == "cement"
    assert stem("adoption") == "adopt" and stem("lion") == "lion"  # -ion needs s or t before it


def test_inflections_of_one_word_meet_at_one_stem():
    forms = ["volunteer", "volunteers", "volunteered", "volunteering"]
    assert {stem(f) for f in forms} == {"volunt"}
    assert stem("running") == stem("runs") == "run"


def test_irregular_forms_map_to_their_base():
    assert [stem(w) for w in ("went", "bought", "children", "people", "ran", "taught")] == [
        "go", "buy", "child", "person", "run", "teach",
    ]  # fmt: skip
    assert stem("went") == stem("going") == stem("goes")


def test_short_words_numbers_and_other_scripts_are_left_alone():
    assert [stem(w) for w in ("bus", "gas", "its", "2023", "x86s", "café", "用户喜欢")] == [
        "bus", "gas", "its", "2023", "x86s", "café", "用户喜欢",
    ]  # fmt: skip


def test_stem_all_keeps_order_and_duplicates():
    assert stem_all(["cats", "dogs", "cats"]) == ["cat", "dog", "cat"]


# ---------------------------------------------------------------- bounded on any input

REFERENCE = Path(__file__).parent / "data" / "stem_reference.tsv"


def test_every_stem_of_the_recursive_implementation_is_kept():
    """15,539 (word, stem) pairs recorded from the recursive stemmer this one replaced: the words of
    the docs, code and gold set, every known suffix on sixty bases, random letter strings rich in y,
    and runs and alternations of y up to 64 letters. Stems are index keys, so none may change."""
    pairs = [line.split("\t") for line in REFERENCE.read_text().splitlines()]
    changed = [(word, old, stem(word)) for word, old in pairs if stem(word) != old]
    assert len(pairs) > 15_000 and changed == []


@contextmanager
def _recursion_limit(limit):
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


@pytest.mark.parametrize("letter", list("yabe"))
def test_runs_of_one_letter_never_recurse(letter):
    """A run of y's made the old consonant test recurse once per y: 1,000 of them crashed recall."""
    stem.cache_clear()
    with _recursion_limit(100):
        for n in (MAX_STEMMED_LENGTH - 1, MAX_STEMMED_LENGTH, 1000, 100_000):
            assert stem(letter * n).startswith(letter * min(n - 3, 40))
            assert measure(letter * n) >= 0


def test_the_measure_of_a_long_run_of_y_alternates_as_the_rule_says():
    """y after a consonant is a vowel, so "yyyy" reads c v c v: one transition per pair after the first."""
    with _recursion_limit(100):
        assert measure("y" * 100_000) == 49_999
        assert measure("a" + "y" * 100_000) == 50_000


def test_tokens_longer_than_any_english_word_are_returned_unchanged():
    word = "nationalization" * 5  # 75 letters; stemmed below the cap it would lose "ization"
    assert stem(word) == word
    assert stem(word[: MAX_STEMMED_LENGTH - 4] + "ness") != word[: MAX_STEMMED_LENGTH - 4] + "ness"


# ---------------------------------------------------------------- the default lane's analyzer


def test_recall_terms_are_the_stems_of_the_recall_tokens():
    assert recall_terms("Maria's kids volunteered at the shelter") == ["maria", "kid", "volunt", "shelter"]


def test_clitics_after_a_letter_are_cut_but_not_negations():
    """Clitics such as 's and 'll carry no topic; n't stays, as the original keeps negations."""
    assert recall_terms("John’s car, we're late, I'll go") == ["john", "car", "we", "late", "go"]
    assert "t" in recall_terms("I don't eat meat")


def test_recall_terms_drop_the_same_stopwords_as_the_tokenizer():
    assert recall_terms("what is my dog's name") == ["dog", "name"]
    assert tokenize("what is my dog's name") == ["dog", "s", "name"]


def test_recall_terms_keep_the_bigrams_of_spaceless_scripts():
    assert recall_terms("用户喜欢咖啡")[0] == "用户喜欢咖啡" and "咖啡" in recall_terms("用户喜欢咖啡")
