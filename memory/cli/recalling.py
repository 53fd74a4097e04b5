"""`tideline recall|context|explain QUERY --workspace W [--origin O] [--k K] [--as-of T]`

`explain … --fact ID` also replays one fact: could this caller (origin, clearance, intent) have
recalled it at --as-of (default now), and if not, why not (memory.services.recall.replay)."""

from __future__ import annotations

from datetime import datetime

from memory.cli.common import emit, origin_option
from memory.engine.recall.context import MAX_MAX_CHARS, MIN_MAX_CHARS
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace
from memory.tideline import Tideline

HELP = {"recall": "recall facts for a query (hybrid BM25 + vectors + links)",
        "context": "recall packed into a prompt-ready block", "explain": "recall with every score component"}  # fmt: skip


def add_arguments(parser, verb: str) -> None:
    parser.add_argument("query")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--origin", default="owner", help="owner or channel:CHANNEL/CONVERSATION/SESSION")
    parser.add_argument("--k", type=int, default=8, help="how many facts (1–100)")
    parser.add_argument("--clearance", default="PII", choices=["PUBLIC", "INTERNAL", "PII"])
    parser.add_argument("--intent", help="only facts for this intent (and unscoped ones)")
    # Each verb takes only the options it honours: an ignored option would be a silent surprise.
    if verb in ("recall", "explain"):
        parser.add_argument("--as-of", help="ISO time: what recall would have returned then")
    if verb == "explain":
        parser.add_argument("--fact", metavar="ID", help="also say whether this fact was visible at --as-of (or now) "
                            "to this caller, and if not, why (superseded, archived, expired, purged, shredded…)")
    if verb == "context":
        parser.add_argument("--max-chars", type=int, default=1200, help="context budget in characters")
    if verb == "recall":
        parser.add_argument("--no-reinforce", action="store_true", help="do not count this recall as a use")


def _as_of(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise RequestError(f"--as-of must be an ISO time such as 2026-11-21T09:31:00Z, got {value!r}",
                           kind="validation") from exc  # fmt: skip
    if moment.tzinfo is None:
        raise RequestError("--as-of needs a time zone (e.g. a trailing Z for UTC)", kind="validation")
    return moment


def run(options: dict) -> None:
    verb = options["subcommand"]
    if not 1 <= options["k"] <= 100:
        raise RequestError("--k must be between 1 and 100", kind="validation")
    # A malformed origin is refused like `add` refuses it (a well-formed peer nobody wrote as sees nothing).
    origin = origin_option(options["origin"])
    if verb == "context" and not MIN_MAX_CHARS <= options["max_chars"] <= MAX_MAX_CHARS:
        raise RequestError(f"--max-chars must be between {MIN_MAX_CHARS} and {MAX_MAX_CHARS} characters, "
                           "as the API allows", kind="validation")  # fmt: skip
    if not options["query"].strip():
        raise RequestError("the query is empty: say what to recall", kind="validation")
    memory = Tideline(get_workspace(options["workspace"]), actor=f"cli:{verb}")
    common = {"origin": origin, "clearance": options["clearance"], "intent": options["intent"]}
    if verb == "context":
        block = memory.context(options["query"], max_chars=options["max_chars"], k=options["k"], **common)
        emit(options, {"context": block, "max_chars": options["max_chars"], "nothing_relevant": block is None},
             block or _nothing(memory))  # fmt: skip
        return
    as_of = _as_of(options["as_of"])
    left_out = None
    if verb == "explain":
        found = memory.explain_selection(options["query"], k=options["k"], as_of=as_of, **common)
        hits, left_out = found.hits, found
        if options.get("fact"):
            _emit_replay(options, memory, hits, origin, as_of)
            return
    else:
        hits = memory.recall(options["query"], k=options["k"], as_of=as_of,
                             reinforce=not options.get("no_reinforce"), **common)  # fmt: skip
    lines = [_line(i, h, verb == "explain") for i, h in enumerate(hits)]
    payload = {"query": options["query"], "hits": [h.to_dict() for h in hits], "nothing_relevant": not hits}
    if verb == "explain":  # which recall settings ranked these (a proposal's apply or revert moves it)
        from memory.services.tuning import current

        payload["settings_version"] = current(memory.workspace)[0]
        lines.insert(0, f"recall settings version {payload['settings_version']}")
        payload["left_out"] = [{"id": h.id, "relevance": h.relevance, "content": h.content,
                                "because": h.components.get("left_out_because", "")} for h in left_out.left_out]
        payload["left_out_counts"] = left_out.counts
        if left_out.left_out:
            nxt = left_out.left_out[0]
            lines.append(f"next, left out: relevance {nxt.relevance:.2f}  [{nxt.segment}] {nxt.content}  ({nxt.id})\n"
                         f"      {nxt.components.get('left_out_because', '')}\n"
                         f"      {len(left_out.left_out)} candidate(s) left out: {left_out.counts.get('cut', 0)} under the "
                         f"cut, {left_out.counts.get('floor', 0)} under the floor, {left_out.counts.get('limit', 0)} past k")  # fmt: skip
    if not hits:
        lines.append(_nothing(memory))
    emit(options, payload, "\n".join(lines))


def _line(i: int, hit, explain: bool) -> str:
    head = f"{i + 1:>2}. relevance {hit.relevance:.2f}  [{hit.segment}] {hit.content}  ({hit.id})"
    if not explain:
        return head
    c = hit.components
    numbers = ", ".join(f"{name} {c[name]:.3g}" for name in EXPLAINED if isinstance(c.get(name), (int, float)))
    kept = c.get("kept_because")
    if c.get("route") == "graph":  # the link walk ran: its rank fusion ordered the candidates
        ranks = ", ".join(f"{lane} rank {c[f'{lane}_rank']}" for lane in ("lex", "vec", "graph") if c.get(f"{lane}_rank"))
        score = f"rank score {hit.score:.4g}: the link walk's rank fusion, 1/({c.get('rrf_k', 60)} + rank) per lane ({ranks})"
    else:
        score = f"rank score {hit.score:.4g} = {c.get('formula', 'blend * modulator * trust')}"
    return f"{head}\n      {hit.why}" + (f"\n      {kept}" if kept else "") + f"\n      {score}; {numbers}"


# The components a person can act on (all of them are in --json).
EXPLAINED = ("match", "coverage", "ngram", "known_share", "blend", "modulator", "trust", "hop")


def _nothing(memory: Tideline) -> str:
    from memory.services.tuning import current

    floor = current(memory.workspace)[1].relevance_floor
    return f"(nothing relevant: no fact reaches the relevance floor {floor:g})"


def _emit_replay(options: dict, memory: Tideline, hits, origin, as_of: datetime | None) -> None:
    from django.utils import timezone

    from memory.engine.facts import records as R
    from memory.engine.recall.visibility import Caller
    from memory.services.recall.replay import replay

    parsed = R.parse_origin(origin)
    caller = Caller(parsed.key, options["clearance"], options["intent"])
    answer = replay(memory.workspace, options["fact"], as_of or timezone.now(), caller=caller)
    rank = next((i + 1 for i, h in enumerate(hits) if h.id == options["fact"]), None)
    at = answer.at.isoformat(timespec="seconds")
    if answer.visible:
        text = f"{options['fact']} was visible at {at} to {parsed.label()}"
        text += f"; it ranks #{rank} for this query" if rank else "; it does not rank in the top --k for this query"
    else:
        text = f"{options['fact']} was NOT visible at {at} to {parsed.label()}:\n" + "\n".join(f"  - {r}" for r in answer.reasons)
    emit(options, {"query": options["query"], "hits": [h.to_dict() for h in hits], "replay": answer.to_dict(),
                   "rank": rank}, text)  # fmt: skip
