"""The rule-based English stemmer (memory/engine/stem.py) and the default lane's analyzer."""

import pytest

from memory.engine.stem import measure, stem, stem_all
from memory.engine.tokenize import recall_terms, tokenize


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
