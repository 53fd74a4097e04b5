"""Readings of a text with its disguises taken off, for the directive detector (ENGINE-SPEC Decision 18).

An attacker hides "ignore previous instructions" from a keyword reader in many ways: look-alike
letters from other scripts or Unicode's styled alphabets (𝐢𝐠𝐧𝐨𝐫𝐞, ⓘⓖⓝⓞⓡⓔ, ɪɢɴᴏʀᴇ, 🅸🅶🅽🅾🆁🅴), one
letter at a time with spaces, dots, dashes or underscores between them, leetspeak (1gn0r3),
stretched letters (ignoooore), text written backwards, ROT13 and other shifts, and encodings
(base64, base32, hex, binary, %xx, \\uXXXX and \\xXX escapes). `readings(text)` returns the text as
a plain lower-case Latin reading plus each undisguised variant that differs from it; a detector
runs its rules over all of them.

Everything here is linear in the text's length: each reading is one pass (a translation table, a
bounded regex substitution, a slice), and decoding is limited to `MAX_RUNS` runs of at most
`MAX_RUN` characters, so a megabyte of adversarial input costs a few passes over a megabyte.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import html
import re
import unicodedata
import urllib.parse
from typing import NamedTuple

MAX_RUN = 4096  # longest encoded run decoded
MAX_RUNS = 24  # decoded runs per text, all encodings together
MIN_RUN = 12  # shorter runs are words, ids or hashes more often than hidden sentences

# Letters that look Latin but are not, and Unicode alphabets NFKC leaves alone.
_FOLD = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w",
    "ѵ": "v", "ү": "y", "ɡ": "g",
    # Armenian and Cherokee look-alikes
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "ք": "f", "Ꭲ": "t", "Ꭺ": "a", "Ᏼ": "b", "Ꮯ": "c", "Ꭼ": "e",
    "Ꮋ": "h", "Ꮶ": "k", "Ꮇ": "m", "Ꮲ": "p", "Ꮪ": "s", "Ꮩ": "v", "Ꮃ": "w", "Ꮓ": "z",
    # Greek
    "ϲ": "c", "ϳ": "j", "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "n", "ι": "i", "κ": "k", "μ": "m", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w",
    # Latin small capitals and other look-alikes
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
    "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z", "ı": "i", "ȷ": "j", "ℓ": "l", "Ꭵ": "i", "ꭵ": "i",
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
}  # fmt: skip
# Squared, negative circled and negative squared Latin capitals (U+1F130–U+1F189) read as letters.
for _base in (0x1F130, 0x1F150, 0x1F170):
    for _offset in range(26):
        _FOLD[chr(_base + _offset)] = chr(ord("a") + _offset)
_FOLD.update({capital.lower(): latin for capital, latin in list(_FOLD.items()) if "\u13a0" <= capital <= "\u13f5"})
_FOLD["ς"] = "c"  # what NFKC makes of the lunate sigma "ϲ"
_FOLD_TABLE = str.maketrans(_FOLD)
# Capitals that imitate Latin capitals, read before lower-casing: Greek "Η" looks like "H" though its
# small letter "η" looks like "n"; Greek "Ν" like "N" though "ν" looks like "v".
_CAPITALS = str.maketrans({
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S",
})  # fmt: skip
# Combining accents, and the short-vowel marks of Arabic script (written or left out at will).
_MARKS = re.compile("[\u0300-\u036f\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]+")
_PAREN_LETTER = re.compile(r"\(([a-z0-9])\)")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "6": "g", "@": "a", "$": "s", "!": "i", "z": "s",
                       "|": "l", "+": "t"})  # fmt: skip
_LEET_L = str.maketrans({**{chr(k): v for k, v in _LEET.items()}, "1": "l", "|": "i"})  # "1" stands for "l" as often as for "i"
_LEET_WORD = re.compile(r"(?<![\w.])(?=[a-z0-9@$!|+]*[a-z])(?=[a-z0-9@$!|+]*[0-9@$!|+])[a-z0-9@$!|+]{2,}(?![\w.])")
# Single letters strung with one separator between each, and a wider gap between words: "i g n o r e",
# "I.G.N.O.R.E", "s-e-n-d", "t_o  t_h_e", "t o  c o l l e c t @ d r o p . i o" (a two-letter word is
# only read as part of a longer run).
_SPACED = re.compile(r"(?<![\w@])(?:[^\W_]|['@])(?:[ ._\-\u00b7\u2022\u2219\u22c5/]{1,3}(?:[^\W_]|['@])){2,}(?![\w@])")
_SEPARATORS = re.compile(r"[ ._\-\u00b7\u2022\u2219\u22c5/]{1,3}")
_WORD_SEPARATOR = re.compile(r"(?<=[a-z])[-_.](?=[a-z])")
_CALLED_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}(?=\()")
_NOT_LETTER = re.compile(r"[^a-z]+")
_UTF7_RUN = re.compile(rf"\+[A-Za-z0-9+/]{{4,{MAX_RUN}}}-")
_MORSE = {".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
          ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
          "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z"}  # fmt: skip
_MORSE_RUN = re.compile(r"(?:[.\-]{1,5}[ /]+){6,2000}[.\-]{1,5}")
_SPLIT_WORD = re.compile(r"\b([a-z]{2,})(?:[-_]|-\s+)([a-z]{2,})\b")  # not ".": domains stay whole
_STRETCH = re.compile(r"([a-z])\1{2,}")

_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/]{{{MIN_RUN},{MAX_RUN}}}={{0,2}}")
_BASE32_RUN = re.compile(rf"[A-Z2-7]{{{MIN_RUN},{MAX_RUN}}}={{0,6}}")
_HEX_RUN = re.compile(rf"(?:[0-9a-fA-F]{{2}}){{{MIN_RUN // 2},{MAX_RUN // 2}}}")
_BINARY_RUN = re.compile(r"(?:[01]{8}[ ]?){4,512}")
_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2})")


def fold(text: str) -> str:
    """NFKC, look-alikes and styled alphabets to plain Latin, invisible characters and accents gone,
    lower case. Real words of other scripts stay readable to rules written for them."""
    if text.isascii():  # nothing to normalise, fold or strip: the common case, kept cheap
        return _PAREN_LETTER.sub(r"\1", text.lower())
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).translate(_CAPITALS).lower().translate(_FOLD_TABLE)
    text = _MARKS.sub("", unicodedata.normalize("NFKD", text))
    return _PAREN_LETTER.sub(r"\1", text)


def _despace(text: str) -> str:
    def join(match: re.Match[str]) -> str:
        run = match.group()
        gaps = _SEPARATORS.findall(run)
        inner = max(set(gaps), key=gaps.count)  # the commonest gap joins letters; any other breaks words
        def close(gap: re.Match[str]) -> str:
            if gap.group() == inner:
                return ""
            rest = gap.group().replace(inner, "").strip() if len(inner) == 1 else gap.group().strip()
            return rest[:1] or " "  # "p . i o" keeps the dot of a domain; "t  t" is a space
        return _SEPARATORS.sub(close, run)

    text = _SPACED.sub(join, text)
    for _ in range(3):  # "in-struc-tions": each pass joins one more piece
        text = _SPLIT_WORD.sub(r"\1\2", text)
    return text


def _unleet(text: str, table: dict[int, str] = _LEET) -> str:
    glyphs = len(_LEET_GLYPH.findall(text, 0, 4000))
    if glyphs >= 2:
        text = _LEET_GLYPH.sub(lambda m: _GLYPHS[m.group()], text)
    if glyphs >= 4:  # a text drawn in glyphs: single characters stand for letters too ("(" c, "6" g, "8" b)
        text = _LEET_SINGLE.sub(lambda m: _SINGLES[m.group()], text)
    text = _LEET_WORD.sub(lambda m: m.group().translate(table), text)
    # Among leet words, a short word of digits alone is one too ("70" for "to", "17" for "it").
    text = _LEET_DIGITS.sub(lambda m: m.group().translate(table), text)
    if glyphs >= 4:  # again, now that the digits beside them are letters ("(0ntact")
        text = _LEET_SINGLE.sub(lambda m: _SINGLES[m.group()], text)
    return text


# Letters drawn with several characters; the longest first, so "\/\/" is a w before "\/" is a v.
_GLYPHS = {"/-\\": "a", "`/": "y", "|\\|": "n", "/\\/\\": "m", "|\\/|": "m", "\\/\\/": "w", "|-|": "h", "]-[": "h", "/\\": "a", "\\/": "v", "|)": "d",
           "|_": "l", "|<": "k", "|2": "r", "|3": "b", "><": "x", "()": "o", "[]": "o", "|>": "p", "(_)": "u", "|_|": "u",
           "7|-|": "th", "|=": "f", "|*": "p"}  # fmt: skip
_LEET_GLYPH = re.compile("|".join(re.escape(g) for g in sorted(_GLYPHS, key=len, reverse=True)))
_SINGLES = {"(": "c", "6": "g", "8": "b", "9": "g", "!": "i", "`": "", "[": "c", "<": "c", "{": "c"}
_LEET_SINGLE = re.compile(r"(?<=[a-z])[(68!9`\[<{]|[(68!9`\[<{](?=[a-z])")
_LEET_DIGITS = re.compile(r"(?<![\w.$€£,])[013457]{2,3}(?![\w.,%])")


def _printable(raw: bytes) -> str | None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(c.isalpha() or c.isspace() for c in decoded)
    return decoded if decoded and letters / len(decoded) >= 0.75 else None


def _decoded_runs(text: str) -> list[str]:
    """Sentences hidden in encoded runs (each at most MAX_RUN characters, MAX_RUNS in all)."""
    found: list[str] = []

    def add(value: str | None) -> None:
        if value and len(found) < MAX_RUNS:
            found.append(value)

    for match in _BASE64_RUN.finditer(text):
        if len(found) >= MAX_RUNS:
            break
        run = match.group()
        for candidate in (run, run[::-1]):  # a reversed payload is a known trick
            try:
                add(_printable(base64.b64decode(candidate + "=" * (-len(candidate) % 4), validate=True)))
            except (binascii.Error, ValueError):
                continue
    for match in _BASE32_RUN.finditer(text):
        try:
            add(_printable(base64.b32decode(match.group() + "=" * (-len(match.group()) % 8))))
        except (binascii.Error, ValueError):
            continue
    for match in _HEX_RUN.finditer(text):
        add(_printable(bytes.fromhex(match.group())))
    for match in _BINARY_RUN.finditer(text) if "0101" in text or "0110" in text else ():
        bits = match.group().replace(" ", "")
        add(_printable(bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - 7, 8))))
    if "%" in text:
        unquoted = urllib.parse.unquote(text)
        if unquoted != text:
            add(unquoted)
    if "&" in text and ";" in text:
        unescaped = html.unescape(text)
        if unescaped != text:
            add(unescaped)
    for match in _UTF7_RUN.finditer(text) if "+" in text else ():
        try:
            add(match.group().encode("ascii").decode("utf-7"))
        except (UnicodeDecodeError, UnicodeEncodeError):
            continue
    for match in _MORSE_RUN.finditer(text) if ".-" in text or "-." in text else ():
        words = match.group().split("/")
        add(" ".join("".join(_MORSE.get(code, "") for code in word.split()) for word in words))
    if _ESCAPES.search(text):
        add(_ESCAPES.sub(lambda m: chr(int(m.group()[2:], 16)), text))
    return found


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_CAESAR_BACK = str.maketrans(_LOWER, _LOWER[-3:] + _LOWER[:-3])  # undoes Caesar's own shift of 3
_ATBASH = str.maketrans(_LOWER, _LOWER[::-1])


# Three words in a row with no vowel-consonant shape of the language around them ("rtmliv kiverlfh"):
# consonant clusters of four or more, the mark of shifted or reversed text.
# A text that names its own cipher ("rot13", "shift 7", "read it backwards") is read deciphered too.
_CIPHER_NAMED = re.compile(r"\b(?:rot-?\s?\d{1,2}|caesar|atbash|cipher|shift(?:ed)?\s+(?:by\s+)?\d{1,2}|backwards|"
                           r"reversed?|reverse\s+(?:the\s+)?(?:word\s+)?order|mirror(?:ed)?|right[\s-]+to[\s-]+left)\b")
_ODD_RUN = re.compile(r"(?:\b\w*[bcdfghjklmnpqrstvwxz]{4}\w*\b\W+){2}")


# Pig Latin moves a word's first consonants to its end and adds "ay" ("isregardday"); a vowel-initial
# word gains "way" ("andway"). Which consonants moved is ambiguous, so two readings are made: one
# letter moved back, and a common English pair ("th", "sh", "pr") moved back where the word ends in one.
_PIG_WORD = re.compile(r"\b[a-z]{1,30}ay\b")
_WORD = re.compile(r"\b[a-z]{2,}\b")
_PAIRS = frozenset(("th", "sh", "ch", "wh", "ph", "pr", "tr", "gr", "br", "cr", "fr", "pl", "cl", "bl", "gl", "sl", "sp",
                    "st", "sc", "sk", "sm", "sn", "sw", "qu"))  # fmt: skip


def _pig_latin(text: str) -> bool:
    """Most words end in "ay": the mark of Pig Latin."""
    sample = text[:4000]
    if sample.count("ay") < 5:
        return False
    words = len(_WORD.findall(sample))
    return words >= 5 and len(_PIG_WORD.findall(sample)) >= 0.5 * words


def _unvigenere(text: str) -> list[str]:
    """A Vigenère cipher whose key the text gives ("Vigenère, key LEDGER: Nldtkv elh ..."): the text after
    the key, deciphered from its next colon or line (where the ciphertext starts) and from right after it."""
    named = _VIGENERE_KEY.search(text, 0, 4000)
    if named is None:
        return []
    key = [ord(c) - 97 for c in (named.group(1) or named.group(2))]
    starts = {named.end()}
    colon = re.compile(r"[:\n]").search(text, named.end(), named.end() + 60)
    if colon:
        starts.add(colon.end())
    readings = []
    for start in sorted(starts):
        out, k = [], 0
        for ch in text[start : start + MAX_RUN]:
            if "a" <= ch <= "z":
                out.append(chr((ord(ch) - 97 - key[k % len(key)]) % 26 + 97))
                k += 1
            else:
                out.append(ch)
        readings.append("".join(out))
    return readings


_VIGENERE_KEY = re.compile(r"vigenere\b[^.\n]{0,40}?\bkey\s*[:=]?\s*[\"'\u201c]?([a-z]{3,24})\b|\bkey\s*[:=]?\s*[\"'\u201c]?"
                           r"([a-z]{3,24})\b[^.\n]{0,20}?vigenere")


def _unpig(text: str, *, pairs: bool) -> str:
    def word(match: re.Match[str]) -> str:
        stem = match.group()[:-2]
        if stem.endswith("w") and len(stem) > 2 and stem[0] in "aeiou":
            return stem[:-1]
        moved = 2 if pairs and stem[-2:] in _PAIRS and len(stem) > 2 else 1
        return stem[-moved:] + stem[:-moved]

    return _PIG_WORD.sub(word, text)


# Everyday words and trigger words written backwards (none of them a word forwards).
_REVERSED_COMMON = frozenset(("eht", "dna", "uoy", "ruoy", "rof", "taht", "htiw", "siht", "era", "ton", "lliw",
                              "evah", "lla", "morf", "erongi", "suoiverp", "snoitcurtsni", "dnes", "laever"))  # fmt: skip


_REVERSED_WORD = re.compile(r"\b(?:" + "|".join(sorted(_REVERSED_COMMON)) + r")\b")


def _looks_reversed(text: str) -> bool:
    """Two everyday words written backwards ("eht", "uoy", "lla"): a reversed sentence inside prose."""
    found = _REVERSED_WORD.search(text, 0, 4000)
    return found is not None and _REVERSED_WORD.search(text, found.end(), 4000) is not None


_OTHER_SCRIPT = re.compile("[\u0370-\u03ff\u0400-\u052f\u0590-\u08ff\u0900-\u0dff\u0e00-\u0eff\u1100-\u11ff"
                           "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_LATIN_LETTER = re.compile(r"[a-z]")
_ANY_LETTER = re.compile(r"[^\W\d_]")


_WORD_RUN = re.compile(r"[\w'.@-]+")
_OTHER_SCRIPT_RUN = re.compile(_OTHER_SCRIPT.pattern + "+")
PAD = 160  # characters kept on each side of a disguise, so a phrase around it still reads whole
_MAX_WINDOWS = 64


def _around(text: str, spans: list[tuple[int, int]]) -> str:
    """The stretches of `text` around `spans` (PAD characters each side, overlaps merged), joined by
    an ellipsis; one that does not begin the text starts with it too, so it never reads as a start."""
    merged: list[list[int]] = []
    for start, end in sorted(spans)[: _MAX_WINDOWS * 8]:
        start, end = max(0, start - PAD), min(len(text), end + PAD)
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts = [("" if start == 0 else "… ") + text[start:end] for start, end in merged[:_MAX_WINDOWS]]
    return " ".join(parts)


def _few_vowels(text: str) -> bool:
    """Letters with under 30% vowels: a letter shift moves the vowels away (English has about 38%)."""
    letters = text[:4000].encode("ascii", "ignore").translate(None, _NOT_ASCII_LETTER)
    return len(letters) >= 12 and sum(letters.count(vowel) for vowel in b"aeiou") < 0.30 * len(letters)


_NOT_ASCII_LETTER = bytes(b for b in range(256) if not 97 <= b <= 122)


def _mostly_latin(text: str) -> bool:
    """Whether nearly every letter is a-z: shifted or reversed Latin text, not another language's."""
    sample = text[:4000]
    if sample.isascii():
        return True
    letters = len(_ANY_LETTER.findall(sample))
    return letters >= 12 and len(_LATIN_LETTER.findall(sample)) >= 0.9 * letters


def _undo(piece: str) -> str:
    """A short stretch with every pulling-apart undone (stretched letters, spacing, leetspeak)."""
    joined = _despace(_STRETCH.sub(r"\1", piece))
    return _unleet(joined) if _LEET_WORD.search(joined) else joined


def _worth_reading(base: str, spans: list[tuple[int, int]], worth, undo) -> list[tuple[int, int]]:
    """The spans whose undone neighbourhood (a word either side) says something `worth` a reading:
    hyphenated words, version numbers and user names are everywhere in honest text, and reading the
    whole text again for each of them is what made dense text slow."""
    if worth is None:
        return spans
    pieces = ((start, end, base[max(0, start - 16) : end + 16]) for start, end in spans)
    return [(start, end) for start, end, piece in pieces if worth(piece, undo(piece))]


class Views(NamedTuple):
    readings: list[str]  # the text as written (folded; and other scripts as written), then undisguised readings
    ciphered: list[str]
    # Per reading, whether it undid a disguise; reading words run together apart ("send_email") does not:
    # that is how code and URLs are written.
    hidden: list[bool]


def views(text: str, *, depth: int = 2, worth=None) -> Views:
    """(readings, ciphered, hidden): the folded text and every distinct undisguised reading of it, and apart
    the reversed and letter-shifted readings (gibberish for ordinary text, so a detector reads them
    for its core phrases only). Decoded runs are read again, `depth` layers deep. A reading is only
    made when the text shows the disguise it undoes, so plain text costs one or two readings;
    `worth(written, undone)`, when given, further skips a disguise whose undoing brings in nothing
    the reader looks for."""
    base = fold(text)
    out, ciphered, hidden = [base], [], [False]
    seen = {base}

    def add(value: str, into: list[str] = out, disguised: bool = True) -> None:
        if value not in seen:
            seen.add(value)
            into.append(value)
            if into is out:
                hidden.append(disguised)

    respelt = respell(base)  # a misspelt trigger word is read as what it spells (a slip, not a disguise)
    if respelt != base:
        add(respelt, disguised=False)
    if not text.isascii() and _OTHER_SCRIPT.search(text):
        plain = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()  # other scripts as written
        add(_around(plain, [m.span() for m in _OTHER_SCRIPT_RUN.finditer(plain)]), disguised=False)
    # Two undisguised readings at most, each every undoing at once and each only of the stretches
    # around a disguise (a rule already read the rest in the folded text): one that joins what was
    # pulled apart ("i g n o r e", "in-struc-tions", "1gn0r3"), one that splits what was run
    # together ("reveal-the-system-prompt").
    pulled = [m.span() for pattern in (_STRETCH, _SPACED, _SPLIT_WORD, _LEET_WORD) for m in pattern.finditer(base)]
    pulled = _worth_reading(base, pulled, worth, _undo)
    if pulled:
        window = _around(base, pulled)
        stretched = _STRETCH.sub(r"\1", window)
        joined = _despace(stretched)
        leet = _LEET_WORD.search(joined)
        add(_unleet(joined) if leet else joined)
        if leet and "1" in joined:
            add(_unleet(joined, _LEET_L))
    if len(_LEET_GLYPH.findall(base, 0, 4000)) >= 4:  # letters drawn with several characters ("|\\|", "/-\\")
        add(_unleet(base))
        add(_unleet(base, _LEET_L))
    # Words run together ("send_email", "reveal-the-system-prompt") are how code and URLs are written:
    # reading them apart is not undoing a disguise.
    # A name that is called or defined ("test_ignores_previous_instructions()") is code, read as written.
    called = [m.span() for m in _CALLED_NAME.finditer(base)] if "(" in base else []
    separators = [m.span() for m in _WORD_SEPARATOR.finditer(base)
                  if not any(a <= m.start() < b for a, b in called)]  # fmt: skip
    split = _worth_reading(base, separators, worth,
                           lambda piece: _WORD_SEPARATOR.sub(" ", _undo(piece)))
    if split:
        window = _STRETCH.sub(r"\1", _around(base, split))
        add(_WORD_SEPARATOR.sub(" ", _unleet(window) if _LEET_WORD.search(window) else window), disguised=False)
    reversed_words = _looks_reversed(base) or _CIPHER_NAMED.search(base, 0, 4000)
    if _ODD_RUN.search(base) or reversed_words or (_mostly_latin(base) and _few_vowels(base)):
        for value in (base[::-1], codecs.encode(base, "rot13"), base.translate(_CAESAR_BACK), base.translate(_ATBASH)):
            add(value, ciphered)
    if reversed_words:  # each word backwards in its place ("llet eht resu"), or the words in reverse order
        add(_WORD_RUN.sub(lambda m: m.group()[::-1], base), ciphered)
        add(" ".join(reversed(base.split())), ciphered)
    for value in _unvigenere(base):
        add(value, ciphered)
    if _pig_latin(base):
        add(_unpig(base, pairs=False), ciphered)
        add(_unpig(base, pairs=True), ciphered)
    if depth > 0:
        for decoded in _decoded_runs(text):
            inner, inner_ciphered, _ = views(decoded, depth=depth - 1, worth=worth)
            for value in inner:
                add(value)
            for value in inner_ciphered:
                add(value, ciphered)
    return Views(out, ciphered, hidden)


def readings(text: str, *, depth: int = 2) -> list[str]:
    """Every reading of `views`, undisguised ones first."""
    plain, ciphered, _ = views(text, depth=depth)
    return plain + ciphered


def compact(folded: str) -> str:
    """Every letter of an already folded text, un-leeted and run together ("dis re gard" →
    "disregard"), for rules that look for whole phrases written without their spaces."""
    return _NOT_LETTER.sub("", _unleet(folded))


# Words an order is made of, read as they are spelt when one letter is added, dropped, changed or two
# swapped ("iunstructions", "ignroe", "previuos"): a public injection template's one misspelt word
# is enough to pass a reader that looks for the word as written.
TRIGGER_WORDS = frozenset({
    "instructions", "instruction", "previous", "ignore", "disregard", "forget", "override", "system", "prompt",
    "prompts", "guidelines", "directives", "directive", "developer", "assistant", "administrator", "confidential",
    "password", "passwords", "secret", "reveal", "jailbreak", "unrestricted", "restrictions", "pretend", "roleplay",
    "initial", "verbatim", "response", "immediately", "everything", "preceding", "forward", "credentials", "message",
    "messages", "command", "commands", "respond", "answer", "output", "include", "summarize", "summarise", "instead",
})
# Real words one edit from a trigger word (found in a 30,000-word English vocabulary): never respelt.
_REAL_NEIGHBOURS = frozenset({
    "precious", "forgot", "forge", "forged", "developed", "repeal", "massage", "commando", "commandos", "respond",
    "responses", "systemd",
})
_DELETES: dict[str, list[tuple[str, int]]] = {}
for _word in TRIGGER_WORDS:
    for _i in range(len(_word)):
        _DELETES.setdefault(_word[:_i] + _word[_i + 1 :], []).append((_word, _i))
_ALPHA_WORD = re.compile(r"[a-z]{5,16}")
_SHORTEST, _LONGEST = min(map(len, TRIGGER_WORDS)) - 1, max(map(len, TRIGGER_WORDS)) + 1


def _spelt(word: str) -> str | None:
    """The trigger word `word` is one slip away from (None: none, or `word` is a real word)."""
    if word in TRIGGER_WORDS or word in _REAL_NEIGHBOURS or not _SHORTEST <= len(word) <= _LONGEST:
        return None
    for target, _ in _DELETES.get(word, ()):  # a letter dropped
        if not (target.startswith(word) and len(target) == len(word) + 1 and target[-1] == "s"):
            return target
    for i in range(len(word)):
        shorter = word[:i] + word[i + 1 :]
        if shorter in TRIGGER_WORDS and i < len(word) - 1:  # a letter added (not an inflection's last letter)
            return shorter
        for target, j in _DELETES.get(shorter, ()):  # a letter changed (same place) or two swapped
            if len(target) == len(word) and (i == j or (abs(i - j) == 1 and word[i] == target[j] and word[j] == target[i])):
                return target
    return None


@functools.cache
def _one_slip_away() -> dict[str, str]:
    """Every word `_spelt` reads as a trigger word, with the word it reads: all words one edit (a letter
    dropped, added, changed, or two swapped) from a trigger word, judged once (about 0.2 s, on first use).
    A text's words are then looked up, not judged one by one."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    edits = set()
    for word in TRIGGER_WORDS:
        for i in range(len(word) + 1):
            edits.update(word[:i] + c + word[i:] for c in letters)
            if i < len(word):
                edits.add(word[:i] + word[i + 1 :])
                edits.update(word[:i] + c + word[i + 1 :] for c in letters)
            if i < len(word) - 1:
                edits.add(word[:i] + word[i + 1] + word[i] + word[i + 2 :])
    return {edit: target for edit in edits if (target := _spelt(edit))}


def respell(folded: str) -> str:
    """A folded text with every word one slip away from a trigger word spelt as that word."""
    respelt = _one_slip_away()
    if respelt.keys().isdisjoint(_ALPHA_WORD.findall(folded)):
        return folded  # most texts: no slip to mend, no string rebuilt
    return _ALPHA_WORD.sub(lambda m: respelt.get(m.group(), m.group()), folded)
