"""The recall tokenizer, the index analyzer for space-less scripts, and token-set Jaccard.

ENGINE-SPEC §3.1 and §1.11, plus Decision 14 (CJK and other space-less scripts get character n-grams).

* `tokenize` is the original's tokenizer, unchanged: lowercase, split on every run of characters that
  are not letters or numbers, drop the 41 stopwords. Dedup (`token_set`, `jaccard`) uses it.
* `index_tokens` is what the BM25 index and its queries use: the same tokens, plus character bigrams
  for runs of Chinese, Japanese, Korean, Thai, Lao, Khmer or Myanmar text. Those scripts do not put
  spaces between words, so `tokenize` leaves a whole sentence as one token and a query can only match
  it by repeating the exact run; bigrams let "咖啡" find "用户喜欢咖啡".
* `index_tokens` and `recall_terms` cut every token to `MAX_INDEX_TOKEN_LENGTH` characters (see there);
  `tokenize` does not, since dedup decides with it whether a write is a new fact.
* `recall_terms` is the analyzer of the default (fused) recall lane: `index_tokens` after English
  clitics are cut off, with every token reduced to its stem (`stem.py`), so "volunteered" finds
  "volunteers" and "Maria's" is the term "maria" alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memory.engine.recall.stem import stem

# `[\W_]+` is `[^\p{L}\p{N}]+` for `re`: `\w` is letters, numbers and `_`, so excluding `_` leaves L and N.
_SEPARATORS = re.compile(r"[\W_]+")

# An apostrophe clitic after a letter: possessive or contracted "'s", and "'d", "'ll", "'re", "'ve",
# "'m". `tokenize` would leave each as a token of its own ("s" from "Maria's") that only says a
# word had that ending. "n't" stays: "not" is meaning, and the original keeps negations.
_CLITIC = re.compile(r"(?<=[^\W\d_])['’](?:s|d|ll|re|ve|m)\b", re.IGNORECASE)

# Written as the spec writes them, so the two lists can be compared by eye.
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from had has have how i in is it its me my of on or "  # noqa: SIM905
    "that the this to was what when where which who will with you your".split()
)

# Scripts written without spaces between words (or, for Hangul, with particles glued onto words).
# Ranges are inclusive code points.
_SPACELESS_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3005, 0x3007),  # ideographic iteration mark, closing mark, number zero
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


# The recall indexes keep only the first 128 characters of a token. Nothing a person searches for is
# longer: words stop near 45 letters, and the longest common identifier, a SHA-512 digest in hex,
# has 128. Past that a token is a run of one character or a blob (a fact can hold 1,000), and each
# character would still cost the n-gram lane two features and every cache a longer key. Cutting
# keeps such a fact findable by the same token (a query is cut the same way), where dropping the
# token would make it unfindable; two blobs alike in their first 128 characters merely share a term.
MAX_INDEX_TOKEN_LENGTH = 128


def capped_tokens(text: str) -> list[str]:
    """`tokenize(text)` with each token cut to `MAX_INDEX_TOKEN_LENGTH` characters."""
    lowered = text.lower()  # as `tokenize` does (lowercasing can lengthen a text: "İ" becomes two)
    tokens = [tok for tok in _SEPARATORS.split(lowered) if tok and tok not in STOPWORDS]
    # Most facts are shorter than the cap, so none of their tokens can pass it: no per-token check.
    if len(lowered) <= MAX_INDEX_TOKEN_LENGTH or max(map(len, tokens), default=0) <= MAX_INDEX_TOKEN_LENGTH:
        return tokens
    return [token[:MAX_INDEX_TOKEN_LENGTH] for token in tokens]


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens, dropping the 41 stopwords (ENGINE-SPEC §3.1).

    Separators are runs of anything that is not a Unicode letter or number. There is no stemming and
    no minimum length, and duplicates are kept because BM25 counts term frequency. A CJK run without
    spaces comes back as one token.
    """
    return [tok for tok in _SEPARATORS.split(text.lower()) if tok and tok not in STOPWORDS]


def _is_spaceless(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _SPACELESS_RANGES)


def _spaceless_runs(text: str) -> Iterable[tuple[int, int]]:
    """Yield (start, end) of each maximal run of space-less-script characters.

    A combining mark (Unicode category M) continues a run: Thai vowel signs and tone marks are marks,
    and `tokenize` splits on them, so a Thai word would otherwise never be matched whole.
    """
    start = None
    for pos, char in enumerate(text):
        if _is_spaceless(char) or (start is not None and unicodedata.category(char).startswith("M")):
            if start is None:
                start = pos
        elif start is not None:
            yield start, pos
            start = None
    if start is not None:
        yield start, len(text)


def _is_word_char(text: str, pos: int) -> bool:
    return 0 <= pos < len(text) and _SEPARATORS.match(text[pos]) is None


def index_tokens(text: str) -> list[str]:
    """`tokenize(text)` followed by character bigrams of every space-less-script run (Decision 14),
    each token cut to `MAX_INDEX_TOKEN_LENGTH` characters.

    A run of three or more characters adds each overlapping pair ("用户喜欢" adds 用户, 户喜, 喜欢).
    A run of one or two characters adds itself, unless it already stands alone as a token (so "部署"
    in "deploy 部署 v2" is not counted twice, but "部署" inside "deploy部署" is added). Single
    characters are never emitted from longer runs: matching on one shared ideograph would make
    almost every query hit almost every document, which breaks abstention.
    """
    tokens = capped_tokens(text)
    lowered = text.lower()
    if lowered.isascii():
        return tokens
    for start, end in _spaceless_runs(lowered):
        run = lowered[start:end]
        if len(run) >= 3:
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif _is_word_char(lowered, start - 1) or _is_word_char(lowered, end):
            tokens.append(run)
        elif any(unicodedata.category(char).startswith("M") for char in run):
            # `tokenize` split this short run at a mark, so it is not a token of its own yet.
            tokens.append(run)
    return tokens


def strip_clitics(text: str) -> str:
    """The text with English apostrophe clitics cut ("Maria's" → "Maria")."""
    return _CLITIC.sub("", text)


def recall_terms(text: str) -> list[str]:
    """The default lane's terms: clitics cut, then `index_tokens`, then each token's stem.

    "Maria's kids volunteered" → ["maria", "kid", "volunt"]. Stopwords are dropped before stemming
    (the list holds surface forms). Numbers and non-Latin tokens pass through `stem` unchanged.
    """
    return [stem(token) for token in index_tokens(strip_clitics(text))]


def token_set(text: str) -> frozenset[str]:
    """The set of recall tokens of a content (ENGINE-SPEC §1.11); what dedup compares."""
    return frozenset(tokenize(text))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """|A ∩ B| / |A ∪ B| of two token sets, and 0 when both are empty.

    Two all-stopword contents therefore never count as duplicates of each other.
    """
    left, right = set(a), set(b)
    union = left | right
    if not union:
        return 0.0
    return len(left & right) / len(union)
