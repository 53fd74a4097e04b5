"""Model-free contradiction detection: which pairs of facts of one origin cannot both be true.

Two facts are worth a reviewer's time only when they say the same thing about the same subject and
differ in exactly one place that cannot hold twice. So every rule here first requires a shared
frame: after dropping stop words, both facts' content words (stemmed) line up, and the divergence is
localised in one slot. "I owe Priya a reply about the invoice" / "… about the contract" share a
frame but differ in a common noun: two tasks, both can be true. What counts as a conflict:

* slot: both facts carry the same subject key and say different things;
* negation: one fact negates the other ("I speak Spanish" / "I don't speak Spanish");
* antonym: the slot holds opposite words from a small general table (love/hate, allowed/forbidden);
* value: the slot holds two different numbers, times, years, weekdays, months, colours or
  identifiers, or two proper nouns in a frame that holds one value ("I live in Porto" / "… Lisbon"),
  but not after a verb that takes many objects ("I visited Rome" / "I visited Florence");
* swap: the same words with the two sides of a comparison swapped ("prefers email over calls").

A divergence inside the subject ("The invoice for March was paid" / "… for April …") names two
subjects, not two values, and is skipped. A pair whose trust differs says so in its reason.

Candidates are never all pairs: facts are grouped by origin, then paired within a subject key and by
the Jaccard join over content words (words held by very many facts are left out of the join).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from memory.engine.maintenance.jaccard_join import iter_jaccard_pairs
from memory.engine.recall.stem import stem

# Candidate generation: the Jaccard bar over content words, how many facts a word may appear in
# before it is too common to pair on, and how many facts of one subject key are compared at most.
JOIN_THRESHOLD = 0.25
MAX_POSTINGS = 200
MAX_SUBJECT_BLOCK = 50
# Facts that share a word this rare are paired even below the Jaccard bar: "I dislike spicy food" and
# "I love spicy piri-piri chicken" share one word of six, and that word is what they are about.
RARE_WORD_POSTINGS = 32


@dataclass(frozen=True)
class ClaimRecord:
    """What the detector needs to know about one active fact.

    `vector` is carried for callers that hold the learned embedder's vectors; the model-free rules
    here decide on words alone and do not read it.
    """

    id: str
    content: str
    segment: str = ""
    origin_key: str = ""
    subject_key: str = ""
    trusted: bool = True
    created_ms: int = 0
    vector: Sequence[float] | None = None


@dataclass(frozen=True)
class Candidate:
    """A pair that looks contradictory: `a` is the older fact, `b` the newer.

    `kind` is the rule that fired: "slot", "negation", "antonym", "value" or "swap". `reason` names
    the shared subject and what diverges; `trust_mismatch` says one side came from an untrusted source.
    `cosine` is the learned embedder's similarity of the two facts, None without one
    (`contradiction_vectors`).
    """

    a: str
    b: str
    kind: str
    confidence: float
    reason: str
    trust_mismatch: bool = False
    cosine: float | None = None


@dataclass(frozen=True)
class Verdict:
    """What `judge` found for two texts."""

    kind: str
    confidence: float
    reason: str


@dataclass(frozen=True)
class Detection:
    candidates: list[Candidate]
    pairs_scored: int


# ---------------------------------------------------------------------------------------------- words

_WORD = re.compile(r"\d+(?:[:.]\d+)?\s?[ap]\.?m\b\.?|[A-Za-z0-9]+(?:[:.][0-9]+)*(?:['’][A-Za-z]+)?", re.I)
# Phrases that mean one word, rewritten before splitting.
_PHRASES = (
    (re.compile(r"\bcan(?:no|['’])t\s+stand\b", re.I), "hate"),
    (re.compile(r"\bno longer\b", re.I), "not"),
    (re.compile(r"\bcannot\b", re.I), "can not"),
    (re.compile(r"\bwon['’]t\b", re.I), "will not"),
    (re.compile(r"\bcan['’]t\b", re.I), "can not"),
    (re.compile(r"n['’]t\b", re.I), " not"),
)


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_CLITIC = re.compile(r"['’](?:s|m|re|ve|d|ll)$", re.I)
_DOTS = re.compile(r"[\s.]")
_DIGIT = re.compile(r"\d")

NEGATIONS = _wordset("not no never none nothing nobody neither nor without quit stopped")
# Function words, be/have/do forms and modals: they carry no subject and no value.
STOP = _wordset("""a an the and or but of to in on at by for from with about as into onto than then that this these
    those it its i me my mine we us our you your he him his she her they them their there here
    am is are was were be been being have has had having do does did doing will would shall should
    can could may might must also just so too very really quite""")
# Degree, frequency and time-of-utterance words: they qualify a fact without changing what it says.
SOFT = _wordset("""still already anymore ever now currently today completely fully totally absolutely any all some
    usually often always generally actually definitely every much bit""")

_NUMBER_WORDS = _wordset("""zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million first second third fourth fifth sixth seventh eighth ninth tenth ground
    dozen half""")
_WEEKDAYS = _wordset("monday tuesday wednesday thursday friday saturday sunday")
_MONTHS = _wordset("january february march april may june july august september october november december")
_COLOURS = _wordset("red blue green yellow purple orange black white grey gray pink brown silver gold")
_FREQUENCIES = _wordset("daily weekly monthly yearly hourly nightly annually")

# Pairs of words that cannot describe the same slot at once. General English, kept small on purpose.
_ANTONYM_WORDS = """
like dislike | love hate | like hate | enjoy hate | love dislike | allowed forbidden | allowed banned |
permitted forbidden | allowed prohibited | enabled disabled | on off | open closed | include exclude |
included excluded | accept refuse | accept reject | early late | morning evening | morning night |
day night | older younger | elder younger | left right | single married | single engaged |
home office | alone with | true false | yes no | increase decrease | above below | before after |
first last | win lose | pass fail | online offline | public private | hot cold | warm cold |
cheap expensive | big small | large small | high low | fast slow | full empty | light dark |
possible impossible | legal illegal | safe unsafe | healthy unhealthy | vegetarian meat |
vegetarian steak | vegetarian chicken | vegetarian beef | vegetarian pork | vegan meat | vegan steak |
vegan chicken | vegan beef | vegan cheese | free costs | free paid | open 24 | stay move | tabs spaces |
agree disagree | present absent | alive dead | employed unemployed | sober drunk | awake asleep
"""
ANTONYMS = frozenset(
    frozenset((stem(x), stem(y)))
    for pair in _ANTONYM_WORDS.split("|")
    if pair.strip()
    for x, y in [pair.split()]
)
_ANTONYM_STEMS = frozenset(word for pair in ANTONYMS for word in pair)

# Words general enough that any more specific object falls under them ("spicy food" ⊇ "spicy chicken").
_GENERIC = frozenset(
    stem(word) for word in _wordset("food foods thing things stuff anything everything drink drinks people")
)
# Classes and some of their members: "never on weekends" covers Saturday, "no meat" covers chicken.
_CLASS_MEMBERS = {
    "weekend": "saturday sunday",
    "weekday": "monday tuesday wednesday thursday friday",
    "meat": "chicken beef pork steak bacon lamb ham sausage",
    "alcohol": "wine beer whisky vodka gin rum cocktail",
    "caffeine": "coffee espresso tea cola",
    "dairy": "milk cheese butter yogurt cream",
    "sugar": "cake candy chocolate dessert sweets",
    "pet": "dog cat hamster rabbit parrot",
}
_MEMBERS = {
    stem(name): frozenset(stem(member) for member in members.split())
    for name, members in _CLASS_MEMBERS.items()
}
_MEMBERS.update({stem(name + "s"): frozenset(_MEMBERS[stem(name)]) for name in _CLASS_MEMBERS})
# Every word that can stand for a more specific one (see `_specialises`).
_GENERAL = _GENERIC | frozenset(_MEMBERS)

# Verbs that take many objects at once: two different objects are two facts, not a conflict.
_ADDITIVE = frozenset(
    stem(word)
    for word in _wordset("""like love enjoy hate dislike visit visited follow speak use recommend recommended read
    buy bought plant planted meet met call called own owe need ask send sent discuss discussed mention
    review remind know play watch listen drink cook learn study try see saw want miss miss collect
    support teach taught sell sold""")
)
# Words that say the slot holds one value at a time.
_SINGLE_VALUED = frozenset(
    stem(word)
    for word in _wordset("""am is are was were be live lives lived work works born move moving moved written
    prefer prefers favourite favorite main only leave leaves expire expires end ends start starts
    begin opens closes cost costs weigh join joined married manager name password""")
)
# Words that say the slot holds exactly one choice, whatever kind of word fills it.
_EXCLUSIVE = frozenset(
    stem(word) for word in _wordset("prefer prefers preferred favourite favorite only main")
)
_COPULA = _wordset("am is are was were")
_COMPARATORS = _wordset("over than rather")


@dataclass(frozen=True)
class _Parsed:
    words: tuple[str, ...]  # every word, lowercased, contractions expanded
    content: tuple[str, ...]  # stems of the content words, in order
    surface: tuple[str, ...]  # the content words as written, aligned with `content`
    proper: tuple[bool, ...]  # whether each content word is written as a name
    before_verb: tuple[bool, ...]  # whether each content word sits before the first be-verb
    negated: bool
    has_copula: bool
    denied: tuple[str, ...] = ()  # the word right after each "no" ("has no caching layer" → caching)
    subject: tuple[str, ...] = ()  # content words before the first negation
    bag: frozenset[str] = frozenset()  # `content` as a set, made once: every pair a fact is in needs it
    ordered: tuple[str, ...] = ()  # `content` sorted, and the words of the antonym table it holds:
    opposable: frozenset[str] = frozenset()  # both made once for `_may_differ_in_one_slot`


def parse(text: str) -> _Parsed:
    for pattern, replacement in _PHRASES:
        text = pattern.sub(replacement, text)
    raw = [_DOTS.sub("", _CLITIC.sub("", token)) for token in _WORD.findall(text)]
    words = tuple(token.lower() for token in raw)
    negations = 0
    content, surface, proper, before = [], [], [], []
    seen_verb = False
    denied: list[str] = []
    subject: list[str] = []
    expect_denied = False
    for position, (word, written) in enumerate(zip(words, raw, strict=True)):
        if word in _COPULA:
            seen_verb = True
        if word in NEGATIONS:
            negations += 1
            expect_denied = word == "no"
            continue
        is_month = word == "may" and position > 0 and written[:1].isupper()  # the month, not the modal
        if (word in STOP or word in SOFT) and not is_month:
            continue
        token = word if _has_digit(word) else stem(word)
        if expect_denied:
            denied.append(token)
            expect_denied = False
        if not negations:
            subject.append(token)
        content.append(token)
        surface.append(word)
        proper.append(position > 0 and written[:1].isupper())
        before.append(not seen_verb)
    copula = any(word in _COPULA for word in words)
    bag = frozenset(content)
    return _Parsed(
        words, tuple(content), tuple(surface), tuple(proper), tuple(before), negations % 2 == 1, copula,
        tuple(denied), tuple(subject), bag, tuple(sorted(content)), _ANTONYM_STEMS & bag,
    )  # fmt: skip


def _has_digit(word: str) -> bool:
    return _DIGIT.search(word) is not None


def _value_class(word: str) -> str | None:
    """The kind of value a word names, if it names one that a slot holds only once."""
    if re.fullmatch(r"\d+(?:[:.]\d+)?(?:am|pm)?", word):
        if ":" in word or word.endswith(("am", "pm")):
            return "time"
        if re.fullmatch(r"(?:19|20)\d\d", word):
            return "year"
        return "number"
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", word) or word in _NUMBER_WORDS:
        return "number"
    if _has_digit(word):
        return "identifier"
    if word in _WEEKDAYS or word.rstrip("s") in _WEEKDAYS:
        return "weekday"
    if word in _MONTHS:
        return "month"
    if word in _COLOURS:
        return "colour"
    if word in _FREQUENCIES:
        return "frequency"
    return None


# -------------------------------------------------------------------------------------------- judging


def judge(a_text: str, b_text: str, a_subject: str = "", b_subject: str = "") -> Verdict | None:
    """Why two facts cannot both be true, or None when they can (or when nothing says they cannot)."""
    if a_text.strip().lower() == b_text.strip().lower():
        return None
    return _judge_parsed(parse(a_text), parse(b_text), a_subject, b_subject)


def _judge_parsed(a: _Parsed, b: _Parsed, a_subject: str, b_subject: str) -> Verdict | None:
    if a_subject and a_subject == b_subject:
        found = _frame_verdict(a, b)
        detail = f"; {found.reason}" if found else ""
        return Verdict(
            "slot", 0.9 if found else 0.75, f"same subject key '{a_subject}', different values{detail}"
        )
    return _frame_verdict(a, b)


def _frame_verdict(a: _Parsed, b: _Parsed) -> Verdict | None:
    shared = len(a.bag & b.bag)
    if shared == 0:
        return None
    if not _may_conflict(a, b):
        return None  # no verdict below can hold: skip the alignment (most candidate pairs end here)
    blocks = _diff(a.content, b.content)
    replaced = [block for block in blocks if block[1] and block[3]]
    one_sided = sum(len(block[1]) + len(block[3]) for block in blocks if not (block[1] and block[3]))
    overlap = shared / len(a.bag | b.bag)
    topic = _topic(a, b)

    if a.negated != b.negated:
        positive, negative = (b, a) if a.negated else (a, b)
        shown = f"'{_words(positive)}' vs '{_words(negative)}' (negated)"
        # The negated side may speak of a whole class the positive side names one member of.
        general = [block for block in replaced if _specialises(block, negative is a, a, b)]
        if len(general) == len(replaced) and one_sided <= (2 if shared >= 3 else 1):
            return Verdict("negation", round(0.7 + 0.25 * overlap, 3), f"same subject {topic}; {shown}")
        if _denied_thing_present(negative, positive):
            return Verdict("negation", round(0.6 + 0.2 * overlap, 3), f"same subject {topic}; {shown}")
        return None  # opposite polarity plus another change: too loose to call

    if _same_bag_swapped(a, b):
        return Verdict("swap", 0.75, f"same subject {topic}; the two sides of the comparison are swapped")

    opposed = [block for block in replaced if _opposes(block, a, b)]
    if len(opposed) == 1 and one_sided == 0:
        rest = [block for block in replaced if block is not opposed[0]]
        if all(_specialises(block, True, a, b) or _specialises(block, False, a, b) for block in rest):
            _, left, _, right = opposed[0]
            shown = f"'{' '.join(a.surface[i] for i in left)}' vs '{' '.join(b.surface[i] for i in right)}'"
            confidence = round(0.7 + 0.25 * overlap - 0.05 * len(rest), 3)
            return Verdict("antonym", confidence, f"same subject {topic}; {shown}")

    if len(replaced) != 1 or one_sided > 0:
        return None
    _, left, _, right = replaced[0]
    if len(left) > 2 or len(right) > 2 or len(left) == len(right) == 2:
        return None  # a long divergence, or two words changed side by side: two slots differ, not one
    if any(a.before_verb[i] for i in left) and a.has_copula and b.has_copula:
        return None  # the divergence names a different subject ("the invoice for March / April")
    left_surface = [a.surface[i] for i in left]
    right_surface = [b.surface[i] for i in right]
    left_stems = {a.content[i] for i in left}
    right_stems = {b.content[i] for i in right}
    shown = f"'{' '.join(left_surface)}' vs '{' '.join(right_surface)}'"

    if any(frozenset((x, y)) in ANTONYMS for x in left_stems for y in right_stems):
        return Verdict("antonym", round(0.7 + 0.25 * overlap, 3), f"same subject {topic}; {shown}")

    classes_left = {_value_class(word) for word in left_surface} - {None}
    classes_right = {_value_class(word) for word in right_surface} - {None}
    common = classes_left & classes_right
    if common:
        kind = sorted(common)[0]
        label = {"number": "numbers", "time": "times", "year": "years", "weekday": "weekdays",
                 "month": "months", "colour": "colours", "identifier": "values",
                 "frequency": "frequencies"}[kind]  # fmt: skip
        return Verdict(
            "value", round(0.65 + 0.3 * overlap, 3), f"same subject {topic}; {label} differ: {shown}"
        )

    frame = a.bag & b.bag
    if frame & _EXCLUSIVE and len(left) == len(right) == 1:
        return Verdict(
            "value", round(0.55 + 0.3 * overlap, 3), f"same subject {topic}; the one choice differs: {shown}"
        )
    names = all(a.proper[i] for i in left) and all(b.proper[i] for i in right)
    if names and not (frame & _ADDITIVE) and (frame & _SINGLE_VALUED or a.has_copula and b.has_copula):
        return Verdict(
            "value", round(0.55 + 0.3 * overlap, 3), f"same subject {topic}; names differ: {shown}"
        )
    return None


def _may_conflict(a: _Parsed, b: _Parsed) -> bool:
    """Whether any verdict of `_frame_verdict` can hold for the pair (a cheap necessary condition)."""
    return _may_differ_in_one_slot(a, b) if a.negated == b.negated else _may_negate(a, b)


def _may_negate(a: _Parsed, b: _Parsed) -> bool:
    """A necessary condition for a verdict on two facts of opposite polarity.

    A "no X" fact may deny a thing the other asserts whatever else differs. Otherwise every word one
    side has and the other lacks sits in a one-sided block (two words at most), except the negated
    side's generic or class word that a specific one replaces ("no meat" / "chicken"): without such a
    word there is no replaced block, so the two word sets differ in two words at most."""
    negative, positive = (a, b) if a.negated else (b, a)
    if negative.denied:
        return True
    if len(negative.bag - positive.bag - _GENERAL) > 2:
        return False
    return bool(negative.bag & _GENERAL) or len(negative.bag ^ positive.bag) <= 2


def _may_differ_in_one_slot(a: _Parsed, b: _Parsed) -> bool:
    """A necessary condition for every verdict of two facts of the same polarity, cheap to test.

    A swap needs the same words; an antonym needs an opposed pair of words; every other verdict
    needs the alignment to be equal but for one replaced block of one word against one or two. The
    two sides of a replaced block share no word (the aligner would have matched it), so that block
    is exactly what remains between the longest common prefix and suffix: one word against at most
    two, with no word in common."""
    left, right = a.content, b.content
    if a.ordered == b.ordered:
        return True
    if a.opposable and b.opposable and any(frozenset((x, y)) in ANTONYMS for x in a.opposable
                                           for y in b.opposable):  # fmt: skip
        return True
    n_left, n_right = len(left), len(right)
    if not -1 <= n_left - n_right <= 1:
        return False  # one word against at most two
    shortest = min(n_left, n_right)
    prefix = 0
    while prefix < shortest and left[prefix] == right[prefix]:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and left[-1 - suffix] == right[-1 - suffix]:
        suffix += 1
    middle_left, middle_right = left[prefix : n_left - suffix], right[prefix : n_right - suffix]
    return (
        0 < len(middle_left) <= 2 and 0 < len(middle_right) <= 2 and len(middle_left) + len(middle_right) <= 3
        and not set(middle_left) & set(middle_right)
    )  # fmt: skip


def _opposes(block: tuple, a: _Parsed, b: _Parsed) -> bool:
    _, left, _, right = block
    if len(left) > 2 or len(right) > 2 or len(left) == len(right) == 2:
        return False  # two words changed side by side: two slots differ, not one
    return any(frozenset((a.content[i], b.content[j])) in ANTONYMS for i in left for j in right)


def _specialises(block: tuple, a_is_general: bool, a: _Parsed, b: _Parsed) -> bool:
    """Whether one side of a replaced block is a generic word or a class the other side names a member of."""
    _, left, _, right = block
    general, specific = (left, right) if a_is_general else (right, left)
    general_side, specific_side = (a, b) if a_is_general else (b, a)
    if len(general) != 1 or len(specific) > 3:
        return False
    word = general_side.content[general[0]]
    members = {specific_side.content[k] for k in specific}
    return word in _GENERIC or bool(members & _MEMBERS.get(word, frozenset()))


def _denied_thing_present(negative: _Parsed, positive: _Parsed) -> bool:
    """ "S has no X …" against a fact about S doing or having X: the thing denied is asserted."""
    return (
        bool(negative.denied)
        and all(head in positive.content for head in negative.denied)
        and set(negative.subject) <= positive.bag
    )


def _diff(left: Sequence[str], right: Sequence[str]) -> list[tuple[str, list[int], str, list[int]]]:
    """The non-equal blocks of aligning two stem sequences, as index lists into each side."""
    matcher = SequenceMatcher(a=list(left), b=list(right), autojunk=False)
    return [
        (tag, list(range(i1, i2)), tag, list(range(j1, j2)))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _same_bag_swapped(a: _Parsed, b: _Parsed) -> bool:
    return (
        len(a.content) >= 3
        and sorted(a.content) == sorted(b.content)
        and a.content != b.content
        and any(word in _COMPARATORS for word in a.words)
    )


def _topic(a: _Parsed, b: _Parsed) -> str:
    shared = [word for word, token in zip(a.surface, a.content, strict=True) if token in b.bag]
    return "'" + " ".join(shared[:5]) + "'"


def _words(parsed: _Parsed) -> str:
    return " ".join(parsed.surface)


# ------------------------------------------------------------------------------------------ detection


def find_candidates(records: Iterable[ClaimRecord], *, limit: int | None = None) -> Detection:
    """Contradiction candidates among active facts, best first, never across origins."""
    by_origin: dict[str, list[ClaimRecord]] = defaultdict(list)
    for record in records:
        by_origin[record.origin_key].append(record)
    found: list[Candidate] = []
    scored = 0
    for group in by_origin.values():
        parsed = [parse(record.content) for record in group]
        codes = _candidate_codes(group, parsed)
        scored += len(codes)
        for i, j in prescreen(codes, group, parsed):  # each fact is parsed once, not once per pair it is in
            a, b = parsed[i], parsed[j]
            # Most pairs fail `_frame_verdict`'s first test; checking it here saves four calls per pair
            # (a shared subject key is judged whatever the words).
            if not _may_conflict(a, b):
                key = group[i].subject_key
                if not key or key != group[j].subject_key:
                    continue
            candidate = _score(group[i], group[j], a, b)
            if candidate is not None:
                found.append(candidate)
    found.sort(key=lambda c: (-c.confidence, c.a, c.b))
    return Detection(found if limit is None else found[:limit], scored)


# The prescreen compares the first PRESCREEN_WIDTH words of each fact (longer facts always pass it),
# and only runs for at least PRESCREEN_MIN_PAIRS pairs: below that, building its arrays costs more.
PRESCREEN_WIDTH = 24
PRESCREEN_MIN_PAIRS = 10_000


def prescreen(pairs: np.ndarray | set[tuple[int, int]], group: Sequence[ClaimRecord],
              parsed: Sequence[_Parsed]) -> list[tuple[int, int]]:  # fmt: skip
    """The pairs that may pass `_may_conflict` or share a subject key, screened with array operations.

    A looser form of the same test, for all pairs at once (millions at 100,000 facts, where a Python
    call per pair costs more than everything after it): a same-polarity pair passes when it may hold
    the same words or an opposed pair, or when its longest common prefix and suffix leave one word
    against one or two; every pair of opposite polarity passes. Whatever passes is tested exactly."""
    count = len(parsed)
    if isinstance(pairs, np.ndarray):  # coded as `_candidate_codes` gives them
        codes = pairs
    else:  # (i, j) tuples, as the learned path collects them
        codes = np.fromiter((i * count + j for i, j in pairs), dtype=np.int64, count=len(pairs))
    if len(codes) < PRESCREEN_MIN_PAIRS:
        return list(zip((codes // count).tolist(), (codes % count).tolist(), strict=True))
    ids: dict[str, int] = {}
    width = PRESCREEN_WIDTH
    left = np.full((count, width), -1, dtype=np.int32)  # words from the start, -1 after the end
    right = np.full((count, width), -1, dtype=np.int32)  # words from the end backwards
    length = np.zeros(count, dtype=np.int32)
    negated = np.zeros(count, dtype=bool)
    loose = np.zeros(count, dtype=bool)  # too long to screen, or holding a word of the antonym table
    ordered = np.zeros(count, dtype=np.int64)
    keys: dict[str, int] = {}
    key = np.full(count, -1, dtype=np.int64)
    for k, (record, fact) in enumerate(zip(group, parsed, strict=True)):
        words = [ids.setdefault(word, len(ids)) for word in fact.content]
        length[k], negated[k] = len(words), fact.negated
        loose[k] = len(words) > width or bool(fact.opposable)
        left[k, : min(len(words), width)] = words[:width]
        right[k, : min(len(words), width)] = words[::-1][:width]
        ordered[k] = hash(fact.ordered)
        if record.subject_key:
            key[k] = keys.setdefault(record.subject_key, len(keys))
    i, j = codes // count, codes % count
    keep = np.zeros(len(i), dtype=bool)
    for start in range(0, len(i), 200_000):  # in slices: two (slice × width) arrays at a time
        a, b = i[start : start + 200_000], j[start : start + 200_000]
        prefix = _run_length(left[a], left[b])
        shortest = np.minimum(length[a], length[b])
        suffix = np.minimum(_run_length(right[a], right[b]), shortest - prefix)
        middle_a, middle_b = length[a] - prefix - suffix, length[b] - prefix - suffix
        one_slot = (middle_a >= 1) & (middle_b >= 1) & (middle_a + middle_b <= 3)
        keep[start : start + 200_000] = (
            (negated[a] != negated[b]) | loose[a] | loose[b] | (ordered[a] == ordered[b]) | one_slot
            | ((key[a] >= 0) & (key[a] == key[b]))
        )  # fmt: skip
    return list(zip(i[keep].tolist(), j[keep].tolist(), strict=True))


def _run_length(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per row, how many leading columns hold the same word on both sides (padding never matches)."""
    same = (x == y) & (x >= 0)
    return np.where(same.all(axis=1), x.shape[1], same.argmin(axis=1)).astype(np.int32)


def _candidate_pairs(group: Sequence[ClaimRecord], parsed: Sequence[_Parsed]) -> set[tuple[int, int]]:
    """The candidate pairs as (lower index, higher index) tuples (see `_candidate_codes`)."""
    count = len(group)
    codes = _candidate_codes(group, parsed)
    return set(zip((codes // max(count, 1)).tolist(), (codes % max(count, 1)).tolist(), strict=True))


def _candidate_codes(group: Sequence[ClaimRecord], parsed: Sequence[_Parsed]) -> np.ndarray:
    """Every candidate pair once, coded `lower * len(group) + higher`, in increasing order.

    Pairs within a subject key (its newest MAX_SUBJECT_BLOCK facts), pairs over the Jaccard bar on
    words held by at most MAX_POSTINGS facts, and pairs sharing a word held by at most
    RARE_WORD_POSTINGS facts. Built as arrays: at 100,000 facts there are millions."""
    count = len(group)
    chunks: list[np.ndarray] = [np.empty(0, dtype=np.int64)]
    by_subject: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(group):
        if record.subject_key:
            by_subject[record.subject_key].append(index)
    for members in by_subject.values():
        # The newest facts of a key are the ones a reviewer can still act on.
        members = sorted(members, key=lambda k: group[k].created_ms)[-MAX_SUBJECT_BLOCK:]
        chunks.append(_all_pairs(np.array([sorted(members)], dtype=np.int64), count))
    frequency: dict[str, int] = defaultdict(int)
    sets = [p.bag for p in parsed]
    for tokens in sets:
        for token in tokens:
            frequency[token] += 1
    joinable = [frozenset(t for t in tokens if frequency[t] <= MAX_POSTINGS) for tokens in sets]
    for block in iter_jaccard_pairs(joinable, JOIN_THRESHOLD):
        i, j = block.i.astype(np.int64), block.j.astype(np.int64)
        chunks.append(np.minimum(i, j) * count + np.maximum(i, j))
    postings: dict[str, list[int]] = defaultdict(list)
    for index, tokens in enumerate(sets):
        for token in tokens:
            if 1 < frequency[token] <= RARE_WORD_POSTINGS:
                postings[token].append(index)  # in increasing order
    by_size: dict[int, list[list[int]]] = defaultdict(list)
    for members in postings.values():
        by_size[len(members)].append(members)
    for lists in by_size.values():  # one array operation per posting-list length
        chunks.append(_all_pairs(np.array(lists, dtype=np.int64), count))
    return np.unique(np.concatenate(chunks))


def _all_pairs(rows: np.ndarray, count: int) -> np.ndarray:
    """The codes of every pair within each row of ascending indexes."""
    x, y = np.triu_indices(rows.shape[1], 1)
    return (rows[:, x] * count + rows[:, y]).ravel()


def _score(x: ClaimRecord, y: ClaimRecord, px: _Parsed, py: _Parsed) -> Candidate | None:
    (older, p_old), (newer, p_new) = ((x, px), (y, py)) if (x.created_ms, x.id) <= (y.created_ms, y.id) else ((y, py), (x, px))
    if older.content.strip().lower() == newer.content.strip().lower():
        return None
    verdict = _judge_parsed(p_old, p_new, older.subject_key, newer.subject_key)
    if verdict is None:
        return None
    mismatch = older.trusted != newer.trusted
    reason = verdict.reason
    if mismatch:
        untrusted = older if not older.trusted else newer
        reason += f"; untrusted source disagrees with a trusted one ({untrusted.id} is untrusted)"
    return Candidate(older.id, newer.id, verdict.kind, verdict.confidence, reason, mismatch)
