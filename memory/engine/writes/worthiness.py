"""The worthiness gate (ENGINE-SPEC Decision 15): is this text durable knowledge, or chat noise?

Rules, in order:

1. `force=True` skips the gate, but only for a trusted writer (the owner, a user, a channel peer, the
   dream, or a legacy caller without a source type). An untrusted writer's `force` is ignored, so a
   tool result cannot push "ok" into memory by asking nicely.
2. Empty or whitespace-only content is refused.
3. Too short: under 12 characters once whitespace runs are collapsed. Wide characters (CJK, full-width)
   count twice, because "我对花生过敏" ("I am allergic to peanuts") says in six what English says in 24.
4. No words: only punctuation, symbols or emoji.
5. Conversational filler: every word is an acknowledgement, a thank-you, a greeting or laughter ("ok
   thanks so much!", "good morning everyone", "hahaha lol"). Stretched words count as their plain
   form ("thanksss", "loooool"). One word that is not filler ("thanks, the deploy is on Friday") makes
   the content worth keeping.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from memory.engine.facts.records import SOURCE_TYPES, is_untrusted_source
from memory.engine.writes.gate import UnworthyFactError

MIN_CONTENT_CHARS = 12

# Lower-case words that carry no fact on their own. "it", "you", "so" and "a" are listed only so that
# "got it", "thank you so much" and "thanks a lot" are filler as a whole; any other word breaks it.
_FILLER_GROUPS = (
    # acknowledgements
    (
        "ok okay okey k kk sure yes yeah yep yup ya yea no nope nah alright right fine cool great nice good "
        "awesome perfect excellent noted done understood roger gotcha got it sounds that that's thats works "
        "agreed correct exactly indeed true absolutely definitely of course"
    ),
    # thanks
    "thanks thank thankyou thx ty tysm cheers much so very a lot appreciate appreciated many you",
    # greetings
    (
        "hi hello hey heya hiya yo morning evening afternoon night bye goodbye cya see later ttyl everyone "
        "all there guys folks"
    ),
    # reactions and laughter
    "lol lmao rofl haha hahaha hehe heh wow omg oh ah hmm huh uh um oops yay woo ugh meh xd",
    # the same in other languages
    (
        "merci beaucoup gracias muchas danke schön schoen vielen dank obrigado obrigada grazie mille спасибо "
        "большое vale oui si sí ja nein non ciao hola bonjour salut hallo"
    ),
)
FILLER_WORDS = frozenset(word for group in _FILLER_GROUPS for word in group.split())

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_LAUGHTER = re.compile(r"(?:ha|he|hi|ja|je|xa|ah)+h?|l+o+l+|x+d+")
_STRETCH = re.compile(r"(.)\1{2,}")


@dataclass(frozen=True)
class Worthiness:
    worthy: bool
    reason: str
    rule: str  # "worthy", "forced", "empty", "too_short", "no_words" or "filler"

    def to_error(self) -> UnworthyFactError:
        return UnworthyFactError(self.reason, (self.rule,))


def _is_filler(word: str) -> bool:
    # "thanksss" and "loooool": try the word with stretched letters cut to one and to two.
    forms = {word, _STRETCH.sub(r"\1", word), _STRETCH.sub(r"\1\1", word)}
    return any(form in FILLER_WORDS or _LAUGHTER.fullmatch(form) for form in forms)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def assess_worthiness(content: str, *, force: bool = False, source_type: str | None = None) -> Worthiness:
    """Whether `content` is worth storing (module docstring, rules 1–5), with the reason."""
    # An unknown source type is not trusted with `force` (fail closed, like the write gate).
    trusted = source_type is None or (source_type in SOURCE_TYPES and not is_untrusted_source(source_type))
    if force and trusted:
        return Worthiness(True, "kept without the worthiness check: a trusted writer forced it", "forced")
    note = " (force is honoured only for trusted writers)" if force else ""

    text = " ".join(content.split())
    if not text:
        return Worthiness(False, "empty — nothing to remember" + note, "empty")
    if _width(text) < MIN_CONTENT_CHARS:
        return Worthiness(False, "too short — not durable knowledge" + note, "too_short")
    words = _WORD.findall(text.lower().replace("’", "'"))
    if not words:
        return Worthiness(False, "no words, only symbols — not durable knowledge" + note, "no_words")
    if all(_is_filler(word) for word in words):
        return Worthiness(False, "conversational filler — not durable knowledge" + note, "filler")
    return Worthiness(True, "worth keeping", "worthy")
