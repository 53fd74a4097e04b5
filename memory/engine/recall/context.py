"""The `context` block: recalled facts rendered as prompt lines and packed into a character budget.

ENGINE-SPEC §3.11 with Decisions 6 and 9. Each hit becomes one unit, in rank order:

* a fact the threat scan flags: `- [<segment>] [BLOCKED] this <segment> fact matched threat
  pattern(s): <ids> — omitted from context` (its content never reaches the prompt);
* a trusted fact: `- [<segment>] <content>` with `<` and `>` escaped;
* a fact from an untrusted source (tool output, retrieved document, extraction, compaction): the
  same line fenced in an `<untrusted-memory>` block, so the model can tell data it may not obey from
  what the owner said. The fence keeps newlines (Decision 6; the original deleted them).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memory.engine.facts.records import is_untrusted_source
from memory.engine.recall.core import DEFAULT_LIMIT, FactColumns, Hit, recall_hybrid

DEFAULT_MAX_CHARS = 1200
MIN_MAX_CHARS, MAX_MAX_CHARS = 100, 20_000  # the budgets a caller may ask for (the API, the CLI)
UNTRUSTED_LABEL = "memory"
UNTRUSTED_MAX_CHARS = 10_000

ThreatScan = Callable[[str], Sequence[str]]


def escape_markup(text: str) -> str:
    """`<` → `&lt;` and `>` → `&gt;` (and nothing else, as in the original: `&` stays)."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _is_stripped(char: str) -> bool:
    # Control (Cc) and format (Cf) characters can hide or reorder text; U+2028/2029 break lines
    # invisibly. A plain newline is kept so multi-line blocks stay readable (Decision 6).
    if char == "\n":
        return False
    return char in "\u2028\u2029" or unicodedata.category(char) in ("Cc", "Cf")


def wrap_untrusted(label: str, text: str, max_chars: int = UNTRUSTED_MAX_CHARS) -> str:
    """Fence text as untrusted data: `<untrusted-<label>>\\n<body>\\n</untrusted-<label>>`.

    The body loses control and format characters (newlines excepted), is cut to `max_chars` with a
    `\\n...[truncated <n> chars]` note, and has `<`/`>` escaped so it cannot close the fence itself.
    """
    body = "".join(char for char in text if not _is_stripped(char))
    if len(body) > max_chars:
        body = body[:max_chars] + f"\n...[truncated {len(body) - max_chars} chars]"
    return f"<untrusted-{label}>\n{escape_markup(body)}\n</untrusted-{label}>"


def render_unit(segment: str, content: str, source_type: str | None, threats: Sequence[str]) -> str:
    """The text one recalled fact contributes to the context (see the module docstring)."""
    if threats:
        return (
            f"- [{segment}] [BLOCKED] this {segment} fact matched threat pattern(s): "
            f"{', '.join(threats)} — omitted from context"
        )
    line = f"- [{segment}] {escape_markup(content)}"
    if is_untrusted_source(source_type):
        return wrap_untrusted(UNTRUSTED_LABEL, line)
    return line


def pack_context(
    cols: FactColumns,
    hits: Sequence[Hit],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    threat_scan: ThreatScan | None = None,
    untrusted_scan: ThreatScan | None = None,
    left_out: Mapping[str, int] | None = None,
) -> str | None:
    """Render hits in rank order and pack them greedily into `max_chars`; None when there are no hits.

    Each unit costs its length plus one (the joining newline). A unit that would overflow is skipped
    and later, shorter units are still tried (Decision 9; the original stopped at the first overflow).
    The first unit is always kept in full, even when it alone is longer than the budget, so a caller
    never gets an empty context while recall found something.

    `left_out` (recall's count of the candidates it did not return, per reason: `floor`, `cut`,
    `limit`) adds a last line saying how many facts that reached the relevance floor were left out
    and why (under the cut, past k, over the budget). The note counts against the budget like a fact:
    the last packed facts make room for it (and are counted in it), the first fact excepted.
    """
    if not hits:
        return None
    units: list[str] = []
    used = skipped = 0
    for hit in hits:
        content = cols.contents[hit.row]
        # An untrusted fact gets the whole untrusted-content judgement when one is given (it also
        # catches text that addresses the agent); every other line the threat scan alone.
        scan = untrusted_scan if untrusted_scan is not None and is_untrusted_source(cols.source_types[hit.row]) \
            else threat_scan  # fmt: skip
        threats = list(scan(content)) if scan is not None else []
        unit = render_unit(cols.segments[hit.row], content, cols.source_types[hit.row], threats)
        cost = len(unit) + 1
        if units and used + cost > max_chars:
            skipped += 1
            continue
        units.append(unit)
        used += cost
    if left_out is not None:
        note = left_out_note(left_out, skipped, max_chars)
        while note and len(units) > 1 and used + len(note) + 1 > max_chars:
            used -= len(units.pop()) + 1  # the least relevant packed fact gives way to the note
            skipped += 1
            note = left_out_note(left_out, skipped, max_chars)
        if note:
            units.append(note)
    return "\n".join(units)


def left_out_note(left_out: Mapping[str, int], skipped: int, max_chars: int) -> str:
    """`(N more facts left out: …)`, or "" when recall left nothing out."""
    reasons = []
    # Candidates under the floor answer nothing; those under a cut answer something, less well.
    weaker = left_out.get("cut", 0)
    if weaker:
        reasons.append(f"{weaker} answering much less well than these")
    if left_out.get("limit", 0):
        reasons.append(f"{left_out['limit']} past the number of facts asked for")
    if skipped:
        reasons.append(f"{skipped} over the {max_chars}-character budget")
    total = weaker + left_out.get("limit", 0) + skipped
    if not total:
        return ""
    return f"({total} more fact{'s' if total != 1 else ''} left out: {'; '.join(reasons)})"


def context(
    cols: FactColumns,
    query: str,
    now: int,
    scope: Any,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    limit: int | None = DEFAULT_LIMIT,
    threat_scan: ThreatScan | None = None,
    embedder: Any = None,
) -> str | None:
    """Hybrid recall for `query` (passive: nothing is reinforced) packed into a context block."""
    hits = recall_hybrid(cols, query, now, scope, limit=limit, embedder=embedder)
    return pack_context(cols, hits, max_chars=max_chars, threat_scan=threat_scan)
