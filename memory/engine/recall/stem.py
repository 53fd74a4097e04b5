"""A rule-based English stemmer in the manner of Porter (1980), plus a small irregular-form table.

Recall compares words, and English inflects them: "volunteers", "volunteered" and "volunteering"
should meet at one term. `stem(word)` strips suffixes in five ordered steps, each guarded by the
*measure* m of what would remain, so short words keep their endings:

* the measure m of a stem is the number of vowel→consonant transitions in it, where a, e, i, o, u
  are vowels and y is a vowel when it follows a consonant ("tree" m=0, "trouble" m=1,
  "private" m=2);
* step 1 undoes inflection: plurals (-sses → -ss, -ies → -i, -s dropped unless -ss or -us),
  -eed → -ee when m > 0, and -ed / -ing dropped when the rest has a vowel, then repairing what
  that leaves (-at → -ate, -bl → -ble, -iz → -ize, a doubled final consonant undoubled except l, s,
  z; a short consonant-vowel-consonant stem of m = 1 regains its e: "hoping" → "hope");
  a final y after a consonant becomes i ("happy" → "happi");
* step 2 maps double suffixes to single ones when m > 0 ("-ational" → "-ate", "-iveness" → "-ive",
  "-ization" → "-ize", …);
* step 3 drops or shortens -icate, -ative, -alize, -iciti, -ical, -ful, -ness when m > 0;
* step 4 drops a final derivational suffix (-al, -ance, -ence, -er, -ic, -able, -ible, -ant,
  -ement, -ment, -ent, -sion/-tion's -ion, -ou, -ism, -ate, -iti, -ous, -ive, -ize) when m > 1;
* step 5 drops a final e when m > 1 (or m = 1 and the stem does not end consonant-vowel-consonant),
  and undoubles a final ll when m > 1.

Three refinements over the textbook rules, all general English rather than tuned to any text:
words of three letters or fewer are left alone (stripping "bus" or "gas" only adds collisions); a
final -us is not a plural ("campus", "status" keep their s); and a table maps common irregular verb
forms and plurals to their base ("went" → "go", "children" → "child") before the rules run.
Tokens with digits or non-ASCII letters, and tokens longer than any English word, are returned
unchanged.

Stems are index keys, not words: "happi" and "volunt" are fine as long as both sides agree.
"""

from __future__ import annotations

from functools import lru_cache

_VOWELS = frozenset("aeiou")

# Longer tokens are not stemmed but returned as they are. The longest word in major English
# dictionaries has 45 letters ("pneumonoultramicroscopicsilicovolcanoconiosis"), so anything past
# 64 is a code, a hash or a run of one letter, for which suffix rules mean nothing. Returning it
# unchanged (rather than cutting it) keeps it an exact key: the index and a query stem with this
# same function, so the two sides always agree. The cap also bounds the work per token.
MAX_STEMMED_LENGTH = 64

# Irregular forms → base form. Common English verbs whose past or participle shares no suffix with
# the base, and irregular plurals. Words that are also frequent nouns or names with another sense
# are left out ("left", "found", "saw", "lay", "felt", "ground"), so a table hit never merges
# unrelated meanings.
_IRREGULAR = {
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "has": "have", "had": "have", "having": "have",
    "did": "do", "does": "do", "done": "do", "doing": "do",
    "went": "go", "gone": "go", "goes": "go",
    "began": "begin", "begun": "begin", "bought": "buy", "brought": "bring", "built": "build",
    "caught": "catch", "chose": "choose", "chosen": "choose", "came": "come", "drew": "draw",
    "drawn": "draw", "drank": "drink", "drunk": "drink", "drove": "drive", "driven": "drive",
    "ate": "eat", "eaten": "eat", "fell": "fall", "fallen": "fall", "fought": "fight",
    "flew": "fly", "flown": "fly", "forgot": "forget", "forgotten": "forget", "froze": "freeze",
    "frozen": "freeze", "gave": "give", "given": "give", "got": "get", "gotten": "get",
    "grew": "grow", "grown": "grow", "heard": "hear", "held": "hold", "kept": "keep",
    "knew": "know", "known": "know", "led": "lead", "lent": "lend", "lost": "lose", "made": "make",
    "meant": "mean", "met": "meet", "paid": "pay", "ran": "run", "rode": "ride", "ridden": "ride",
    "rang": "ring", "rung": "ring", "rose": "rise", "risen": "rise", "said": "say", "sang": "sing",
    "sung": "sing", "sat": "sit", "sold": "sell", "sent": "send", "seen": "see", "shook": "shake",
    "shot": "shoot", "slept": "sleep", "spent": "spend", "spoke": "speak", "spoken": "speak",
    "stole": "steal", "stolen": "steal", "stood": "stand", "swam": "swim", "swum": "swim",
    "taught": "teach", "took": "take", "taken": "take", "thought": "think", "threw": "throw",
    "thrown": "throw", "told": "tell", "understood": "understand", "woke": "wake", "woken": "wake",
    "won": "win", "wore": "wear", "worn": "wear", "wrote": "write", "written": "write",
    "children": "child", "men": "man", "women": "woman", "people": "person", "feet": "foot",
    "teeth": "tooth", "mice": "mouse", "geese": "goose", "wives": "wife", "knives": "knife",
    "lives": "life", "leaves": "leaf", "selves": "self", "halves": "half",
}  # fmt: skip

_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
    ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
    ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
    ("logi", "log"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""),
    ("ness", ""),
)  # fmt: skip
# Longest first where one suffix ends another ("ement" before "ment" before "ent").
_STEP4 = (
    "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous",
    "ive", "ize", "ion", "al", "er", "ic", "ou",
)  # fmt: skip


def _is_consonant(word: str, i: int) -> bool:
    """A letter is a consonant unless it is a, e, i, o, u, or a y that follows a consonant.

    Only a y depends on what precedes it, and only through the run of y's it ends: the run's first y
    is a consonant at the start of the word or after a vowel, a vowel after a consonant, and the
    rest alternate. So this walks back over the run once (no recursion: a token of a thousand y's
    used to recurse a thousand deep and crash recall).
    """
    char = word[i]
    if char in _VOWELS:
        return False
    if char != "y":
        return True
    start = i
    while start > 0 and word[start - 1] == "y":
        start -= 1
    first_is_consonant = start == 0 or word[start - 1] in _VOWELS
    return first_is_consonant == ((i - start) % 2 == 0)


def _consonant_flags(word: str) -> list[bool]:
    """`_is_consonant` of every position, in one pass (each y looks at the letter just before it)."""
    flags: list[bool] = []
    previous_consonant = False  # so that a y at the start is a consonant
    for char in word:
        if char in _VOWELS:
            consonant = False
        elif char == "y":
            consonant = not previous_consonant
        else:
            consonant = True
        flags.append(consonant)
        previous_consonant = consonant
    return flags


def measure(stem: str) -> int:
    """m: how many times a run of vowels is followed by a consonant in `stem`."""
    m, previous_vowel = 0, False
    for consonant in _consonant_flags(stem):
        if consonant and previous_vowel:
            m += 1
        previous_vowel = not consonant
    return m


def _has_vowel(stem: str) -> bool:
    return not all(_consonant_flags(stem))


def _ends_double_consonant(stem: str) -> bool:
    return len(stem) >= 2 and stem[-1] == stem[-2] and _is_consonant(stem, len(stem) - 1)


def _ends_cvc(stem: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "snow")."""
    n = len(stem)
    return (
        n >= 3
        and _is_consonant(stem, n - 3)
        and not _is_consonant(stem, n - 2)
        and _is_consonant(stem, n - 1)
        and stem[-1] not in "wxy"
    )


def _step1(word: str) -> str:
    if word.endswith(("sses", "ies")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us")):
        word = word[:-1]

    if word.endswith("eed"):
        if measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = _repair(word[: -len(suffix)])
                break

    if word.endswith("y") and len(word) > 2 and _is_consonant(word, len(word) - 2):
        word = word[:-1] + "i"
    return word


def _repair(stem: str) -> str:
    """After -ed/-ing: restore an e or undouble a consonant, so "hoping" and "hopping" differ."""
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if _ends_double_consonant(stem) and stem[-1] not in "lsz":
        return stem[:-1]
    if measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def _replace(word: str, rules: tuple[tuple[str, str], ...], min_measure: int) -> str:
    """Apply the first rule whose suffix ends the word; it fires only if the stem's m exceeds the floor."""
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if measure(stem) > min_measure else word
    return word


def _step4(word: str) -> str:
    for suffix in _STEP4:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if measure(stem) <= 1:
                return word
            if suffix == "ion" and not stem.endswith(("s", "t")):
                return word
            return stem
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = measure(stem)
        if m > 1 or (m == 1 and not _ends_cvc(stem)):
            word = stem
    if word.endswith("ll") and measure(word) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The stem of one lowercase token (see the module docstring for the rules).

    Irregular forms map to their base first; words of three letters or fewer or longer than
    `MAX_STEMMED_LENGTH`, and tokens holding anything but ASCII letters (numbers, other scripts),
    come back unchanged. Cost is linear in the word's length.
    """
    base = _IRREGULAR.get(word)
    if base is not None:
        return base
    if not 3 < len(word) <= MAX_STEMMED_LENGTH or not (word.isascii() and word.isalpha()):
        return word
    word = _step1(word)
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    word = _step4(word)
    return _step5(word)


def stem_all(tokens: list[str]) -> list[str]:
    """`stem` of every token, order and duplicates kept."""
    return [stem(token) for token in tokens]
