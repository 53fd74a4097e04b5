"""Content threat scanner (ENGINE-SPEC §2.1, with Decision 8).

`scan_for_threats(content, scope)` says why a text looks like an attack on the agent that will later
read it: an instruction override, exfiltration, persistence, command-and-control chatter, a hard-coded
secret, or characters that hide text from the person reviewing it. The write path scans every
untrusted write with the `strict` scope and refuses a flagged one; recall scans again.

How a text is read:

1. NFKC normalisation, so full-width or mathematical letters read as plain ones.
2. Phrase rules run on a *skeleton*: invisible format characters removed (a zero-width space inside
   "ignore" no longer hides the word), curly quotes made straight, every whitespace run made one
   space (or one newline if it held one). The Latin-script rules read a folded copy in which Cyrillic
   and Greek look-alike letters are Latin and accents are gone. English patterns use ASCII word
   boundaries, so `monkey` never matches `key`.
3. Encoded payloads (base64, hex, %xx, HTML entities, Unicode tag letters, variation-selector bytes)
   are decoded a bounded number of times (runs of at most 4 KB, at most 64 runs, two layers deep) and
   the decoded text, with its surrounding context, is rescanned with every phrase rule.
4. Smuggling rules look for invisible characters outside the places where real writing needs them:
   emoji joiners, Persian/Arabic/Indic joiners, subdivision flags, keycaps, ideographic variants.

Every pattern is linear-time: repetitions are bounded, and the filler words between two keywords are
matched possessively and stop at the first keyword, so nothing is ever re-read by backtracking. Four
spec patterns are narrowed because their literal form flags everyday sentences: `c2_framework` needs
C2 context around "sliver"/"havoc"/"mythic", `c2_beacon` and `c2_pull_tasks` need a server-like
object (not "check-in with Sam", not "pull tasks from Jira"), and `exfil_cat_secrets` needs the
secret file among cat's arguments.

A scanner cannot tell a quotation from an instruction: a fact that quotes "ignore previous
instructions" verbatim is flagged, while a fact that only talks about prompt injection is not.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass

SCOPES = ("all", "context", "strict")  # nested: every `all` rule is also a `context` rule, and so on
_SCOPE_RANK = {name: rank for rank, name in enumerate(SCOPES)}

MAX_RUN_CHARS = 4096  # the longest encoded run that is decoded
MAX_DECODED_RUNS = 64  # decoded runs per scan, all layers together
MAX_RUNS_PER_KIND = 16  # per encoding and layer, so decoys of one kind cannot starve another
MAX_DEPTH = 2  # base64 inside %xx is found; a third layer is not looked for
_CONTEXT = 200  # characters kept on each side of a decoded run, so a split phrase still reads whole
_EXCERPT_CHARS = 80


@dataclass(frozen=True)
class ThreatMatch:
    """One reason a text was flagged. `excerpt` is short and has invisible characters escaped."""

    rule: str
    family: str
    reason: str
    excerpt: str
    encoding: str = ""  # "" for plain text, else how it was hidden, e.g. "base64" or "url-encoded>base64"


@dataclass(frozen=True)
class ScanResult:
    matches: tuple[ThreatMatch, ...] = ()

    @property
    def flagged(self) -> bool:
        return bool(self.matches)

    @property
    def rules(self) -> tuple[str, ...]:
        """Matched rule ids, each once, in report order (the `threats` list of the spec)."""
        return tuple(dict.fromkeys(m.rule for m in self.matches))


# ---------------------------------------------------------------- reading the text

_STRIP = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+"
)
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201b", "'"), ("\u201c", '"'), ("\u201d", '"'))
_LOOKALIKE_MAP = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁһӏԛԝІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοαινρυκ",
    "ABEKMHOPCTXaeopcyxijsdhlqwIJSABEZHIKMNOPTYXoaivpuk",
)
_ANY_LOOKALIKE = re.compile("[" + "АВЕКМНОРСТХаеорсухіјѕԁһӏԛԝІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοαινρυκ" + "]")
_ASCII_LETTER = re.compile("[A-Za-z]")
_ODD_SPACE = re.compile(r"[^\S\n ]")
_HSPACE = re.compile(r"[^\S\n]+")
_NEWLINE_RUN = re.compile(r"\n[ \n]*")


def _skeleton(text: str) -> str:
    if not text.isascii():
        text = _STRIP.sub("", text)
        for curly, straight in _QUOTES:
            text = text.replace(curly, straight)
    # The substitutions are skipped when there is nothing to collapse: on text made of single spaces
    # they would rewrite every one of them.
    if "  " in text or _ODD_SPACE.search(text):
        text = _HSPACE.sub(" ", text)
    if "\n\n" in text or "\n " in text:
        text = _NEWLINE_RUN.sub("\n", text)
    return text.replace(" \n", "\n")


def _views(text: str) -> dict[str, str]:
    """The texts rules read, each also lower-cased.

    `skeleton` keeps every script as written (the Russian and CJK rules read it). `folded` is for the
    Latin-script rules: Cyrillic and Greek look-alikes become Latin letters ("іgnore" with a Cyrillic і)
    and accents go. A real Russian word turns into nonsense there, which no English rule matches.
    """
    skeleton = _skeleton(text)
    folded = skeleton
    if not skeleton.isascii():
        # Look-alikes only disguise something when Latin letters are around them.
        if _ANY_LOOKALIKE.search(skeleton) and _ASCII_LETTER.search(skeleton):
            folded = folded.translate(_LOOKALIKE_MAP)
        folded = _MARKS.sub("", unicodedata.normalize("NFKD", folded))
    return {
        "skeleton": skeleton,
        "folded": folded,
        "skeleton_lower": skeleton.lower(),
        "folded_lower": folded.lower(),
    }


def _escape(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        invisible = unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")
        if invisible or 0xFE00 <= cp <= 0xFE0F or 0xE0000 <= cp <= 0xE0FFF or (ch.isspace() and ch != " "):
            out.append(f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}")
        else:
            out.append(ch)
    return "".join(out)


def _excerpt(text: str, start: int, end: int, pad: int = 0) -> str:
    """The matched text (plus `pad` characters each side), escaped, cut to about 80 characters."""
    snippet = _escape(text[max(0, start - pad) : min(len(text), end + pad, start + _EXCERPT_CHARS)])
    return snippet if len(snippet) <= _EXCERPT_CHARS else snippet[: _EXCERPT_CHARS - 1] + "…"


# ---------------------------------------------------------------- pattern building blocks

Span = tuple[int, int]


def _lead(*words: str, before: str = "[a-z0-9_]") -> str:
    """Alternatives that must start a word (not follow a `before` character).

    The boundary is a lookbehind placed after each literal rather than a leading word boundary, so
    the pattern still begins with a literal and the regex engine can jump between its occurrences.
    """
    return "(?:" + "|".join(f"{word}(?<!{before}{word})" for word in words) + ")"


def _alt(alternation: str) -> str:
    """`alternation` ("instructions?|directives?|guidance") as a prefix tree.

    Python's regex engine tries alternatives one after another; sharing prefixes means each position
    costs one comparison per distinct first character instead of one per word. A `?` after a
    character makes it optional, as in a plain regex.
    """
    trie: dict = {}
    for word in alternation.split("|"):
        spellings = [[]]
        for token in re.findall(r"\\.\??|[^\\]\??", word):
            if token.endswith("?"):
                spellings = [s + [token[:-1]] for s in spellings] + spellings
            else:
                spellings = [s + [token] for s in spellings]
        for spelling in spellings:
            node = trie
            for token in spelling:
                node = node.setdefault(token, {})
            node[""] = {}

    def emit(node: dict) -> str:
        branches = [key + emit(child) for key, child in node.items() if key]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return "(?:" + emit(trie) + ")"


def _not(alternation: str, boundary: bool = True) -> str:
    """A negative lookahead: not at one of the words of `alternation` (a whole word if `boundary`)."""
    return "(?!" + _alt(alternation) + (r"\b" if boundary else "") + ")"


def _gap(stop: str, words: int = 8, boundary: bool = True) -> str:
    """Up to `words` other words before the first `stop`. Possessive: it never gives a word back.

    A filler word is letters, digits, apostrophes, hyphens and quotes; other punctuation ends the
    clause, so "ignore the noise, focus on the previous guidelines" is not one instruction.
    """
    return "(?:" + _not(stop, boundary) + r"[\w'\"-]{1,30}\s){0," + str(words) + "}+"


def _then(alternation: str, words: int = 8) -> str:
    """Up to `words` other words, then one of `alternation`."""
    return _gap(alternation, words) + _alt(alternation)


def _cjk_then(alternation: str, chars: int = 8) -> str:
    """Up to `chars` characters of the same sentence, then one of `alternation` (no spaces to count)."""
    return "(?:" + _not(alternation, boundary=False) + r"[^\n。！？]){0," + str(chars) + "}+" + _alt(alternation)


def _regex(pattern: str, flags: int = re.ASCII) -> Callable[[str], Span | None]:
    compiled = re.compile(pattern, flags)

    def find(text: str) -> Span | None:
        match = compiled.search(text)
        return match.span() if match else None

    return find


def _then_on_same_line(first: str, then: str) -> Callable[[str], Span | None]:
    """`first`, then `then` later on the same line. Each line is read once, however many triggers."""
    head, tail = re.compile(first, re.ASCII), re.compile(then, re.ASCII)

    def find(text: str) -> Span | None:
        pos = 0
        while match := head.search(text, pos):
            eol = text.find("\n", match.end())
            eol = len(text) if eol < 0 else eol
            if hit := tail.search(text, match.end(), eol):
                return match.start(), hit.end()
            pos = eol + 1  # a later trigger on this line would only see a shorter tail of it
        return None

    return find


def _near(
    anchor: str, pattern: str, before: int, after: int, flags: int = re.ASCII
) -> Callable[[str], Span | None]:
    """Search `pattern` only in windows around `anchor`, a word that every match contains.

    Rules with long gaps cost a little at every place their first word occurs; a text repeating that
    word a million times would pay it a million times. Around the (required) last word instead, and
    with overlapping windows merged, every character is searched once. `before` and `after` bound how
    far a match can reach from its anchor.
    """
    anchor_rx, compiled = re.compile(anchor, flags), re.compile(pattern, flags)

    def find(text: str) -> Span | None:
        start = end = -1
        for match in anchor_rx.finditer(text):
            low, high = max(0, match.start() - before), match.end() + after
            if start >= 0 and low <= end:
                end = high
                continue
            if start >= 0 and (hit := compiled.search(text, start, end)):
                return hit.span()
            start, end = low, high
        hit = compiled.search(text, start, end) if start >= 0 else None
        return hit.span() if hit else None

    return find


_COMMENT_WORDS = re.compile(r"\b(?:ignore|override|system\sprompt|secret|hidden\sinstructions?)\b", re.ASCII)


def _find_html_comment(text: str) -> Span | None:
    """An HTML comment `<!-- … -->` with no `>` inside that hides an instruction-like word."""
    pos = 0
    while (close := text.find("-->", pos)) >= 0:
        segment_start = text.rfind(">", pos, close) + 1 or pos
        opening = text.find("<!--", segment_start, close)
        if opening >= 0 and _COMMENT_WORDS.search(text, opening + 4, close):
            return opening, close + 3
        pos = close + 3
    return None


# ---------------------------------------------------------------- phrase rules


@dataclass(frozen=True)
class _Rule:
    id: str
    family: str
    scope: str
    reason: str
    anchors: tuple[str, ...]  # lower-case literals; the rule is skipped when none occurs (speed only)
    find: Callable[[str], Span | None]
    view: str = "folded"  # or "skeleton" (accents kept: Cyrillic й, Japanese kana)
    cased: bool = False  # rules read the lower-cased view unless their pattern is case-sensitive
    describe: Callable[[str], str] | None = None  # a reason computed from the matched text


def _rule(
    rule_id: str, family: str, scope: str, reason: str, anchors: tuple[str, ...], pattern: str,
    cased: bool = False,
) -> _Rule:
    return _Rule(rule_id, family, scope, reason, anchors, _regex(pattern), cased=cased)


_EARLIER = "previous|all|above|prior|earlier|preceding"
_ORDERS = "instructions?|directives?|prompts?|guidance|guidelines"
_SECRET_WORD = r"(?<![a-z0-9])(?:api[_-]?key|apikey|keys?|tokens?|secrets?|passwords?|passwd)(?![a-z0-9])"
_HOSTISH = (  # what a C2 instruction points at: a server, a URL, an IP address
    r"(?:the\s)?(?:c2|server|controller|teamserver|listener|(?:https?|ftp)://|\d{1,3}(?:\.\d{1,3}){3})\b"
)
_CONTEXT_FILES = r"agents\.md|claude\.md|gemini\.md|soul\.md|\.cursorrules|\.clinerules|\.windsurfrules"
_SECRET_FILES = r"\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc"
_AGENT_VARS = "BRIGADE|CLAUDE|ANTHROPIC|OPENAI|AGENT|TIDELINE"
_SECRET_NAMES = ("api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken", "secret",
                 "password", "passwd")
_S = r"\s"  # one whitespace character: the skeleton has made every run a single one


def _override_pattern(verbs: str, earlier: str, orders: str, words: int = 5) -> str:
    """A verb, then within `words` words "previous … instructions" or "instructions … previous"."""
    return (
        _lead(*verbs.split("|"), before=r"\w") + _S + _gap(earlier + "|" + orders, words)
        + "(?:" + _alt(earlier) + _S + _then(orders, words)
        + "|" + _alt(orders) + _S + _then(earlier, 2) + r")\b"
    )


# Order is the spec's file order (the report order): the `all` block, the `context` block, the two
# `all`-scope exfiltration rules, then the `strict` rules. Patterns are lower-case because rules read
# the lower-cased text, except the one case-sensitive rule.
_ENGLISH_RULES = (
    _Rule("ignore_instructions", "override", "all", "tells the reader to ignore its earlier instructions",
          ("instruction", "directive", "prompt", "guidance", "guideline"),
          # "ignore all previous instructions", "ignore the instructions above", "forget prior instructions"
          _near(_alt(_ORDERS), _override_pattern("ignore", _EARLIER, _ORDERS, 8) + "|" + _lead("forget")
                + r"\s(?:all\s|the\s|your\s|any\s){0,2}(?:previous|prior|above|earlier|preceding)\s"
                + _alt(_ORDERS) + r"\b", before=600, after=80)),
    _rule("system_prompt_override", "override", "all", "announces an override of the system prompt",
          ("system",),
          _lead("system") + r"\sprompt\soverride\b|"
          + _lead("override") + r"\s(?:the\s|your\s)?system\sprompt\b"),
    _rule("disregard_rules", "override", "all", "tells the reader to disregard its rules or safety",
          ("disregard",), _lead("disregard") + _S + _then("instructions?|rules|guidelines|safety") + r"\b"),
    _rule("no_restrictions", "override", "all", "asks the reader to act as if it had no restrictions",
          ("restrictions", "rules", "limits"),
          _lead("act") + r"\sas\sif\s" + _then(r"no\srestrictions|no\srules|no\slimits") + r"\b"),
    _Rule("html_comment_injection", "override", "all", "hides an instruction inside an HTML comment",
          ("<!--",), _find_html_comment),
    _rule("translate_and_execute", "override", "all", "asks the reader to translate a text and then run it",
          ("translate",),
          _lead("translate") + _S
          + _then(r"and\sexecute|and\srun|and\seval|and\sthen\sexecute|and\sthen\srun")
          + r"\b"),
    _rule("do_not_tell_user", "override", "all", "asks the reader to keep something from the user",
          ("not", "don't"),
          _lead(r"do\snot", "don't") + r"\s(?:tell|inform|notify|mention\sto)\sthe\suser\b(?!')"),
    _rule("you_are_now", "override", "context", "tries to give the reader a new identity",
          ("now",), _lead("you") + r"(?:\sare|'re)\s" + _then(r"now\sa|now\san|now\sthe|now\sin") + r"\b"),
    _rule("pretend", "override", "context", "asks the reader to pretend to be someone else",
          ("pretend",), _lead("pretend") + r"\s(?:you\sare|you're|to\sbe)\b"),
    _rule("reveal_system_prompt", "exfiltration", "context", "asks the reader to reveal its system prompt",
          ("prompt",),
          _lead("output", "reveal", "print", "repeat", "leak", "dump") + _S
          + _then(r"system\sprompt|initial\sprompt|original\sprompt|hidden\sprompt") + r"\b"),
    _rule("respond_without_safety", "override", "context", "asks for answers without safety filters",
          ("without",),
          _lead("respond", "answer", "reply") + r"\swithout\s" + _then("restrictions|filters|safety")),
    _rule("you_have_been_updated", "override", "context", "claims the reader has been reprogrammed",
          ("been",), _lead("you") + r"(?:\shave|'ve)\sbeen\s(?:updated|upgraded|patched|reprogrammed)\sto\b"),
    _rule("c2_register_node", "c2", "context", "asks the reader to register as a node of a botnet",
          ("register",), _lead("register") + r"\sas\sa\snode\b"),
    _rule("c2_beacon", "c2", "context", "asks the reader to beacon or check in with a server",
          ("heartbeat", "beacon", "check"),
          _lead("heartbeat", "beacon", "check-in", "checkin") + r"\s(?:to|with)\s" + _HOSTISH),
    _rule("c2_pull_tasks", "c2", "context", "asks the reader to pull tasking from a server",
          ("task",),
          _lead("pull") + _S + _gap(r"tasking|tasks\sfrom|task\sfrom")
          + r"(?:tasking\b|tasks?\sfrom\s" + _HOSTISH + ")"),
    _rule("c2_must_connect", "c2", "context", "orders the reader to connect or report to someone",
          ("must",), _lead("you") + r"\smust\s" + _then("register|connect|report|beacon") + r"\b"),
    _rule("c2_framework", "c2", "context", "names a command-and-control framework",
          ("cobalt", "metasploit", "brute", "sliver", "havoc", "mythic"),
          _lead(r"cobalt\sstrike", "metasploit", r"brute\sratel") + r"\b|"
          + _lead("sliver", "havoc", "mythic")
          + r"\s(?:c2|implant|agent|beacon|listener|payload|teamserver)\b"),
    _rule("command_and_control", "c2", "context", "talks about a command-and-control channel",
          ("command", "c2"),
          _lead("command") + r"[\s-]and[\s-]control\b|" + _lead("c2") + r"\s(?:server|channel|node)\b"),
    _rule("anti_forensic_unset", "anti_forensic", "context", "unsets the agent's own environment variables",
          ("unset",),
          _lead("unset") + _S + _gap(_AGENT_VARS, boundary=False) + "(?:" + _AGENT_VARS + ")[A-Z_]{0,64}",
          cased=True),
    _rule("identity_override", "override", "context", "asks the reader to rename itself",
          ("yourself",), _lead("name") + r"\syourself\s\w"),
    _rule("anti_forensic_disk", "anti_forensic", "context", "asks the reader to leave no files on disk",
          ("disk",),
          _lead("never") + _S + _then("create|write") + _S + _then("scripts?|files?") + _S
          + _then("disk") + r"\b"),
    _rule("anti_forensic_oneliner", "anti_forensic", "context", "asks the reader to use only one-liners",
          ("only",), _lead("only") + r"\suse\sone[\s-]?liners?\b"),
    _rule("c2_network_connect", "c2", "context", "asks the reader to connect to the network",
          ("connect",), _lead("connect") + r"\sto\sthe\snetwork\b"),
    _Rule("exfil_curl_secret", "exfiltration", "all", "pairs curl or wget with a key, token or password",
          ("curl", "wget"), _then_on_same_line(_lead("curl", "wget") + r"\b", _SECRET_WORD)),
    _Rule("exfil_cat_secrets", "exfiltration", "all", "prints a credentials file",
          ("cat",),
          # Only options and other paths may stand between `cat` and the file: "my cat knows my
          # credentials" is not a command.
          _near(_SECRET_FILES, _lead("cat") + r"\s(?:-\S{0,20}\s|\S{0,60}[/.~]\S{0,60}\s){0,3}\S{0,120}?(?:"
                + _SECRET_FILES + ")(?![a-z0-9_])", before=600, after=0)),
    _rule("exfil_send_url", "exfiltration", "strict", "asks the reader to send data to a web address",
          ("http", "ftp"),
          _lead("send", "post", "upload", "transmit", "exfiltrate") + _S
          + _gap(r"to\shttps?://|to\sftp://", boundary=False) + r"to\s(?:https?|ftp)://"),
    _rule("exfil_history", "exfiltration", "strict", "asks the reader to leak the conversation",
          ("conversation", "history", "context"),
          _lead("include", "output", "print", "share", "leak", "send", "reveal", "forward") + _S
          + _then(r"conversation|chat\shistory|full\scontext") + r"\b"),
    _rule("persistence_ssh", "persistence", "strict", "touches SSH keys or the agent's secrets file",
          ("authorized_keys", ".ssh", ".brigade"),
          r"authorized_keys\b|(?:add|append|write|edit|copy|cat|read|upload|send|echo|>>|modify|put|insert|replace|overwrite|"
          r"print|dump|show|open|zip|tar|scp|rsync|post|exfiltrate|steal|grab)\b[^\n]{0,60}?\.ssh\b|\.brigade/\.env\b"),
    _rule("persistence_context_file", "persistence", "strict", "asks the reader to edit its instruction file",
          (".md", "rules"),
          _lead("update", "modify", r"append\sto", "overwrite", r"write\sto", "edit", "change", r"add\sto")
          + _S + _then(_CONTEXT_FILES) + r"\b"),
    _rule("hardcoded_secret", "secret", "strict", "contains what looks like a hard-coded secret",
          ("key", "token", "secret", "password", "passwd"),
          # `client_secret` and `DB_PASSWORD_PROD` count; `mysecret` does not.
          _lead(*_SECRET_NAMES, before="[a-z0-9]")
          + r"(?:[_-][a-z0-9]{1,20}){0,3}[\"']?\s?[:=]\s?[\"'](?:[^\"'\n]{20,200}[\"']|[^\"'\s]{20})"),
)

# "Ignore the previous instructions" in other languages: imperative verbs, words for "previous" or
# "all", words for "instructions". Written unaccented: the Latin-script rules read the accent-stripped
# view, so "instruções" and "instrucoes" both match.
_LANGUAGES = {
    "Spanish": (
        (r"ignora|ignore|ignoren|ignorad|olvida|olvide|olviden|olvidad|descarta|descarte|haz\scaso\somiso\sde"
         r"|no\shagas\scaso\sde|no\shagas\scaso\sa"),
        r"anteriores|previas|precedentes|pasadas|todas|de\sarriba",
        r"instrucciones|indicaciones|reglas|ordenes|directrices",
    ),
    "French": (
        (r"ignore|ignorez|ignorer|oublie|oubliez|oublier|ne\stiens\spas\scompte|ne\stenez\spas\scompte"
         r"|fais\sabstraction|faites\sabstraction"),
        r"precedentes|anterieures|ci-dessus|passees|toutes",
        r"instructions|consignes|regles|directives|ordres|indications",
    ),
    "German": (
        r"ignoriere|ignorier|ignoriert|ignorieren|vergiss|vergesst|vergessen|missachte|missachtet|missachten",
        r"vorherigen|vorherige|bisherigen|obigen|vorangegangenen|vorigen|fruheren|alle|samtliche",
        r"anweisungen|anweisung|instruktionen|befehle|regeln|vorgaben|richtlinien|anordnungen",
    ),
    "Portuguese": (
        r"ignore|ignora|ignorem|esqueca|esquece|esquecam|desconsidere|desconsidera|desconsiderem|despreze",
        r"anteriores|previas|precedentes|acima|todas",
        r"instrucoes|instrucao|regras|orientacoes|diretrizes|comandos|ordens",
    ),
    "Italian": (
        (r"ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|non\sconsiderare"
         r"|non\stenere\sconto"),
        r"precedenti|anteriori|sopra|tutte|suddette|sopraindicate|di\sprima",
        r"istruzioni|regole|indicazioni|direttive|comandi|ordini",
    ),
    "Russian": (
        (r"игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|отбрось|отбросьте|пренебреги"
         r"|не\sобращай\sвнимания\sна|не\sобращайте\sвнимания\sна"),
        (r"предыдущие|предыдущих|прежние|прежних|все|всех|вышеуказанные|вышеприведенные|вышеприведённые"
         r"|прошлые|ранее"),
        r"инструкции|инструкций|указания|указаний|правила|правил|команды|команд|распоряжения|установки",
    ),
}


def _stems(orders: str) -> tuple[str, ...]:
    """Anchors for a rule: the first five letters of each word for "instructions", which every match has."""
    return tuple(dict.fromkeys(word[:5] for word in orders.split("|")))


def _override_reason(language: str) -> str:
    return f"tells the reader, in {language}, to ignore its earlier instructions"


_EUROPEAN = [name for name in _LANGUAGES if name != "Russian"]
_EUROPEAN_WORDS = tuple("|".join(_LANGUAGES[name][part] for name in _EUROPEAN) for part in range(3))
_EUROPEAN_ORDERS = _EUROPEAN_WORDS[2]
_BY_LANGUAGE = {name: re.compile(_override_pattern(*_LANGUAGES[name]), re.ASCII) for name in _EUROPEAN}


def _european_reason(matched: str) -> str:
    language = next((name for name, rx in _BY_LANGUAGE.items() if rx.search(matched)), "a European language")
    return _override_reason(language)


_CHINESE_VERBS = "忽略|忽视|忽視|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|跳过|跳過|放弃|放棄"
_CHINESE_EARLIER = "之前|以前|先前|此前|上面|上述|以上|前面|原来|原來|所有|全部|一切"
_CHINESE_ORDERS = "指令|指示|说明|說明|规则|規則|提示|命令|设定|設定|要求"
_JAPANESE_EARLIER = "以前|前|上記|先ほど|これまで|今まで|過去|全て|すべて"
_JAPANESE_ORDERS = "指示|命令|指令|ルール|プロンプト|設定"

_MULTILINGUAL_RULES = (
    # One pass for every Latin-script language: their verbs overlap ("ignore" is French, Spanish and
    # Portuguese), and a pass per language would read the same words again. The language is named
    # afterwards, from the matched words. ASCII mode is enough on the accent-stripped view.
    _Rule("ignore_instructions_multilingual", "override", "all", _override_reason("a European language"),
          _stems(_EUROPEAN_ORDERS),
          _near(_alt(_EUROPEAN_ORDERS), _override_pattern(*_EUROPEAN_WORDS), before=600, after=150),
          describe=_european_reason),
    _Rule("ignore_instructions_multilingual", "override", "all", _override_reason("Russian"),
          _stems(_LANGUAGES["Russian"][2]),
          _near(_alt(_LANGUAGES["Russian"][2]), _override_pattern(*_LANGUAGES["Russian"]), 600, 150, flags=0),
          view="skeleton"),
    _Rule("ignore_instructions_multilingual", "override", "all", _override_reason("Chinese"),
          tuple(_CHINESE_ORDERS.split("|")),
          _near(_alt(_CHINESE_ORDERS),
                "(?:" + _CHINESE_VERBS + ")" + _cjk_then(_CHINESE_EARLIER) + _cjk_then(_CHINESE_ORDERS),
                40, 0, 0),
          view="skeleton"),
    _Rule("ignore_instructions_multilingual", "override", "all", _override_reason("Japanese"), ("無視", "忘れ"),
          _near("無視|忘れ", "(?:" + _JAPANESE_EARLIER + ")の" + _cjk_then(_JAPANESE_ORDERS) + _cjk_then("無視|忘れ"),
                40, 0, 0),
          view="skeleton"),
)

_PHRASE_RULES = _ENGLISH_RULES + _MULTILINGUAL_RULES


def _phrase_matches(text: str, scope: str, encoding: str = "") -> list[ThreatMatch]:
    views = _views(text)
    found = []
    for rule in _PHRASE_RULES:
        if _SCOPE_RANK[rule.scope] > _SCOPE_RANK[scope]:
            continue
        lowered = views[rule.view + "_lower"]
        if rule.anchors and not any(anchor in lowered for anchor in rule.anchors):
            continue
        cased = views[rule.view]
        if span := rule.find(cased if rule.cased else lowered):
            # Lower-casing keeps positions for all but a few letters (İ); quote the original case when it can.
            shown = cased if len(cased) == len(lowered) else lowered
            reason = rule.describe(lowered[span[0] : span[1]]) if rule.describe else rule.reason
            if encoding:
                reason = f"{reason}, hidden as {encoding} text"
            found.append(ThreatMatch(rule.id, rule.family, reason, _excerpt(shown, *span), encoding))
    return found


# ---------------------------------------------------------------- encoded payloads

_PRINTABLE_SHARE = 0.85


def _as_text(raw: bytes) -> str | None:
    """Decoded bytes worth rescanning: valid UTF-8 that is mostly printable and has a letter."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t\r" for ch in text)
    if not text or printable < _PRINTABLE_SHARE * len(text) or not any(ch.isalpha() for ch in text):
        return None
    return text


def _from_base64(run: str) -> str | None:
    run = run.rstrip("=").replace("-", "+").replace("_", "/")[:MAX_RUN_CHARS]
    run = run[: len(run) - 1] if len(run) % 4 == 1 else run  # one spare character cannot encode a byte
    try:
        return _as_text(base64.b64decode(run + "=" * (-len(run) % 4), validate=True))
    except (binascii.Error, ValueError):
        return None


def _from_hex(run: str) -> str | None:
    digits = re.sub(r"\\x|0x|[\s,:]", "", run, flags=re.IGNORECASE)[:MAX_RUN_CHARS]
    return _as_text(bytes.fromhex(digits[: len(digits) - len(digits) % 2]))


def _from_url(run: str) -> str | None:
    try:
        return urllib.parse.unquote_plus(run, errors="strict")
    except UnicodeDecodeError:
        return None


def _from_tags(run: str) -> str:
    return "".join(chr(ord(ch) - 0xE0000) for ch in run)


def _from_selectors(run: str) -> str | None:
    # The "emoji smuggling" trick: VS1–VS16 carry bytes 0–15, VS17–VS256 carry bytes 16–255.
    raw = bytes(ord(ch) - 0xFE00 if ord(ch) <= 0xFE0F else ord(ch) - 0xE0100 + 16 for ch in run)
    return _as_text(raw)


# Without a leading lookbehind: a start inside a short word fails within 16 characters anyway.
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}+={0,2}")
# Three spellings of hex bytes, each its own pattern so each can start with a literal or a class:
# "69676e6f…", "69 67 6e 6f…" (or with commas or colons), and "\\x69\\x67…" or "0x69,0x67…".
_HEX_RUNS = (
    re.compile(r"[0-9A-Fa-f]{16,}+"),
    re.compile(r"[0-9A-Fa-f]{2}(?:[ ,:][0-9A-Fa-f]{2}){7,}+"),
    re.compile(r"(?:\\x|0x)[0-9A-Fa-f]{2}(?:,?\s?(?:\\x|0x)[0-9A-Fa-f]{2}){3,}+"),
)
_URL_TOKEN = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY_TOKEN = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,15});")
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]{2,}")
_SELECTOR_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")
_FLAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f")


def _runs(pattern: re.Pattern[str], text: str) -> Iterator[Span]:
    for match in pattern.finditer(text):
        yield match.start(), min(match.end(), match.start() + MAX_RUN_CHARS)


def _clusters(pattern: re.Pattern[str], text: str) -> Iterator[Span]:
    """Tokens at most `_CONTEXT` apart form one run, so a phrase half in %xx decodes whole."""
    start = end = -1
    for match in pattern.finditer(text):
        if start >= 0 and match.start() - end <= _CONTEXT and match.end() - start <= MAX_RUN_CHARS:
            end = match.end()
            continue
        if start >= 0:
            yield start, end
        start, end = match.span()
    if start >= 0:
        yield start, end


@dataclass(frozen=True)
class _Decoder:
    name: str
    runs: Callable[[str], Iterator[Span]]
    decode: Callable[[str], str | None]
    in_place: bool  # %xx and entities mix with plain text: decode the context along with the run
    non_ascii: bool = False  # its runs are made of non-ASCII characters, so ASCII text has none


_DECODERS = (
    _Decoder("base64", lambda t: _runs(_B64_RUN, t), _from_base64, False),
    _Decoder("hex", lambda t: (run for rx in _HEX_RUNS for run in _runs(rx, t)), _from_hex, False),
    _Decoder("url-encoded", lambda t: _clusters(_URL_TOKEN, t), _from_url, True),
    _Decoder("HTML-entity", lambda t: _clusters(_ENTITY_TOKEN, t), html.unescape, True),
    _Decoder("Unicode-tag", lambda t: _runs(_TAG_RUN, t), _from_tags, False, non_ascii=True),
    _Decoder("variation-selector", lambda t: _runs(_SELECTOR_RUN, t), _from_selectors, False, non_ascii=True),
)


def _decoded_views(text: str, budget: list[int]) -> Iterator[tuple[str, str]]:
    """(encoding, window) pairs: each decoded run with up to `_CONTEXT` characters on each side."""
    is_ascii = text.isascii()
    for decoder in _DECODERS:
        if decoder.non_ascii and is_ascii:
            continue
        # Tags inside a real subdivision flag (🏴 + tag letters + cancel tag) are not a payload.
        source = _FLAG_SEQUENCE.sub("\U0001f3f4", text) if decoder.name == "Unicode-tag" else text
        for count, (start, end) in enumerate(decoder.runs(source)):
            if count >= MAX_RUNS_PER_KIND or budget[0] <= 0:
                break
            budget[0] -= 1
            before, after = source[max(0, start - _CONTEXT) : start], source[end : end + _CONTEXT]
            if decoder.in_place:
                window = before + source[start:end] + after
                decoded = decoder.decode(window)
                decoded = None if decoded == window else decoded
            else:
                inner = decoder.decode(source[start:end])
                decoded = None if inner is None else before + inner + after
            if decoded is not None:
                yield decoder.name, decoded


def _scan_layer(text: str, scope: str, encoding: str, depth: int, budget: list[int]) -> list[ThreatMatch]:
    found = _phrase_matches(text, scope, encoding)
    if depth >= MAX_DEPTH:
        return found
    seen = {m.rule for m in found}
    for name, decoded in _decoded_views(text, budget):
        chain = f"{encoding}>{name}" if encoding else name
        for match in _scan_layer(unicodedata.normalize("NFKC", decoded), scope, chain, depth + 1, budget):
            # A rule already seen in the plain text (or in an earlier run) adds nothing new.
            if match.rule not in seen:
                seen.add(match.rule)
                found.append(match)
    return found


# ---------------------------------------------------------------- invisible-character smuggling

_EMOJI = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u25fe\u2600-\u27bf"
    "\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
# Scripts whose spelling needs ZWJ/ZWNJ (Hebrew, Arabic, Persian, Syriac, Indic, Southeast Asian...).
_JOINING = (
    "\u0590-\u08ff\u0900-\u0dff\u0e00-\u0fff\u1000-\u109f\u1780-\u18af\u1b00-\u1b7f\ua980-\ua9df"
    "\ufb1d-\ufdff\ufe70-\ufefe"
)
# Scripts written without spaces, where a zero-width space marks a word break.
_SPACELESS = (
    "\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003ffff"
)
_IDEOGRAPH = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"

_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
# A zero-width character in a place no real writing puts it. Each branch starts with the character
# itself and then looks at its neighbours, so the search skips straight from one to the next.
_HIDDEN_ZERO_WIDTH = re.compile(
    # ZWJ joins emoji (man + ZWJ + woman) and letters of joining scripts; anywhere else it hides something.
    # After a letter of a joining script it may also end a word: Malayalam writes a word-final consonant
    # as consonant + virama + ZWJ or ZWNJ ("വകുപ്പ്\u200c 20").
    f"\u200d(?:(?<![{_EMOJI}\ufe0f{_JOINING}]\u200d)|(?<=[{_EMOJI}\ufe0f]\u200d)(?![{_EMOJI}]))"
    f"|\u200c(?<![{_JOINING}]\u200c)"  # ZWNJ: Persian, Arabic, Indic spelling
    f"|\u200b(?:(?<![{_SPACELESS}]\u200b)|(?![{_SPACELESS}]))"  # ZWSP: word breaks in Thai, CJK...
    "|[\u2060-\u2064\u206a-\u206f\u180e\ufeff\ufff9-\ufffb]"  # never needed in running text
)
_STRAY_TAG = re.compile("[\U000e0000-\U000e007f]+")
_VS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_ANY_SELECTOR = re.compile(f"[{_VS}]")
_SELECTOR_ABUSE = re.compile(
    f"[{_VS}]{{2}}"  # no real sequence puts two selectors in a row
    f"|(?<![^\\x00-\\x7f])(?<![0-9#*])[{_VS}]"  # after a plain ASCII character, or at the very start
    f"|(?<=[0-9#*])[\ufe00-\ufe0d\U000e0100-\U000e01ef]"  # keycap bases (digits, #, *) take VS15/16 only
    f"|(?<![{_IDEOGRAPH}])[\U000e0100-\U000e01ef]"  # ideographic variants follow ideographs
)


def _smuggling_matches(text: str) -> list[ThreatMatch]:
    found: list[ThreatMatch] = []
    if text.isascii():  # every character these rules look for is outside ASCII
        return found

    def report(rule: str, reason: str, source: str, match: re.Match[str]) -> None:
        code = f"U+{ord(match.group()[0]):04X}"
        found.append(ThreatMatch(rule, "smuggling", reason.replace("{code}", code),
                                 _excerpt(source, match.start(), match.end(), pad=12)))

    body = text.removeprefix("\ufeff")  # a leading byte-order mark is harmless
    if match := _HIDDEN_ZERO_WIDTH.search(body):
        report("invisible_unicode", "contains an invisible {code} character outside the scripts and emoji "
               "that need it, which can split or hide words", body, match)
    if match := _BIDI.search(text):
        report("invisible_unicode", "contains the bidirectional control {code}, which makes text display "
               "in a different order than it is read", text, match)
    flagless = _FLAG_SEQUENCE.sub("\U0001f3f4", text)
    if match := _STRAY_TAG.search(flagless):
        hidden = _escape(_from_tags(match.group())[:40])
        report("unicode_tag_smuggling", "carries invisible Unicode tag characters ({code}…) outside an emoji "
               f"flag; they spell '{hidden}'", flagless, match)
    if _ANY_SELECTOR.search(text) and (match := _SELECTOR_ABUSE.search(text)):
        report("variation_selector_smuggling", "uses the variation selector {code} where no emoji or "
               "ideograph takes one, a way to hide bytes", text, match)
    return found


# ---------------------------------------------------------------- entry point


def scan_for_threats(content: str, scope: str = "strict") -> ScanResult:
    """Scan `content` with every rule of `scope` and its inner scopes; empty content is clean.

    Matches come in rule order: plain phrase rules, then rules found only in decoded payloads, then
    invisible-character smuggling (the spec appends `invisible_unicode` last). An unknown scope is a
    programming error and raises ValueError rather than scanning with fewer rules.
    """
    if scope not in _SCOPE_RANK:
        raise ValueError(f"unknown scan scope {scope!r}; use one of {', '.join(SCOPES)}")
    if not content:
        return ScanResult()
    text = unicodedata.normalize("NFKC", content)
    matches = _scan_layer(text, scope, "", 0, [MAX_DECODED_RUNS]) + _smuggling_matches(text)
    return ScanResult(tuple(matches))
