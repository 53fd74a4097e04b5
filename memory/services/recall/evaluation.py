"""The eval harness (ENGINE-SPEC §8): load gold sets, seed them through the real write path into a
throwaway workspace, run each capability, and score with the engine's metrics.

A run happens inside one transaction that is rolled back at the end, so the workspace it seeds
truly is throwaway: nothing of an eval stays in the database, and its keys are destroyed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from memory import sealing
from memory.engine.facts import records as R
from memory.engine.recall.metrics import (
    EvalReport,
    beats_eval_bar,
    bootstrap_mean_ci,
    evaluate,
    paired_bootstrap_ci,
)
from memory.engine.recall.tokenize import tokenize
from memory.models import Fact, Workspace
from memory.services.errors import RequestError
from memory.services.recall import embedding
from memory.services.recall.index import registry
from memory.services.workspaces import create_workspace
from memory.services.writes.policy import TidelineError
from memory.services.writes.write_path import NewFact, write_fact
from memory.timestamps import to_ms

PLACEHOLDER = "TODO: rewrite (auto-extraction empty)"


@dataclass(frozen=True)
class GoldFact:
    key: str
    content: str
    segment: str
    importance: float | None = None
    source_type: str | None = None
    origin: R.Origin = field(default_factory=R.Origin.owner)
    supersedes_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoldCase:
    id: str
    query: str
    relevant_keys: tuple[str, ...]
    category: str
    original_top10: dict[str, list[dict]] = field(default_factory=dict)


@dataclass(frozen=True)
class GoldSet:
    name: str
    facts: tuple[GoldFact, ...]
    cases: tuple[GoldCase, ...]


def _field(obj: dict, *names: str, default: Any = None) -> Any:
    for name in names:
        if name in obj:
            return obj[name]
    return default


def load_gold(path: str | Path, *, require_approval: bool = False) -> GoldSet:
    """Read a gold set (the shared tideline-gold format, camelCase or snake_case keys).

    Refuses malformed sets with the reason; a scaffold (`"approved": false`) or one with unrewritten
    placeholder queries is refused when approval is required or the file carries an `approved` key.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise RequestError(f"no such gold file: {path}", kind="not_found") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(f"{path.name} is not valid JSON: {exc}", kind="invalid_input") from exc
    if isinstance(data, dict) and (require_approval or "approved" in data) and data.get("approved") is not True \
            and isinstance(data.get("facts"), list) and isinstance(data.get("cases"), list):  # fmt: skip
        raise RequestError(
            f"{path.name} is an un-approved scaffold: review its queries, then set \"approved\": true",
            kind="unapproved",
        )
    return parse_gold(data, path.name, default_name=path.stem)


def parse_gold(data: Any, label: str, *, default_name: str = "gold", allow_placeholders: bool = False) -> GoldSet:
    """A gold set from its parsed JSON (`label` names it in messages); refuses what `load_gold` refuses.
    `allow_placeholders`: accept cases whose query is still the scaffold's placeholder (a draft)."""
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list) or not isinstance(data.get("cases"), list):
        hint = (" (this looks like a stored set's listing: score a set stored in a workspace with `tideline gold "
                "score NAME --workspace W`)" if isinstance(data, dict) and "case_list" in data else "")
        raise RequestError(f"{label}: a gold set needs 'facts' and 'cases' lists{hint}", kind="invalid_input")
    facts, seen = [], set()
    for index, raw in enumerate(data["facts"]):
        where = f"{label}: facts[{index}]"
        if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("key", "content", "segment")):
            raise RequestError(f"{where} needs string key, content and segment", kind="invalid_input")
        if raw["segment"] not in R.SEGMENTS:
            raise RequestError(f"{where} has unknown segment {raw['segment']!r}", kind="invalid_input")
        source = _field(raw, "source_type", "sourceType")
        if source is not None and source not in R.SOURCE_TYPES:
            raise RequestError(f"{where} has unknown source type {source!r}", kind="invalid_input")
        if raw["key"] in seen:
            raise RequestError(f"{where} repeats key {raw['key']!r}", kind="invalid_input")
        supersedes = tuple(_field(raw, "supersedes_keys", "supersedesKeys", default=[]) or [])
        for key in supersedes:
            if key not in seen:
                raise RequestError(f"{where} supersedes {key!r}, which is not an earlier fact", kind="invalid_input")
        seen.add(raw["key"])
        try:
            origin = R.origin_from_created_by(_field(raw, "created_by", "createdBy"))
        except R.OriginError as exc:
            raise RequestError(f"{where}: {exc}", kind="invalid_input") from exc
        facts.append(GoldFact(raw["key"], raw["content"], raw["segment"], raw.get("importance"), source, origin,
                              supersedes))  # fmt: skip
    cases = []
    for index, raw in enumerate(data["cases"]):
        where = f"{label}: cases[{index}]"
        relevant = _field(raw, "relevant_keys", "relevantKeys") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not isinstance(raw.get("query"), str) \
                or not isinstance(relevant, list) or not all(isinstance(k, str) for k in relevant):
            raise RequestError(f"{where} needs string id and query and a list of relevant keys", kind="invalid_input")
        if PLACEHOLDER in raw["query"] and not allow_placeholders:
            raise RequestError(f"{where} still has a placeholder query: rewrite it first", kind="unapproved")
        unknown = [k for k in relevant if k not in seen]
        if unknown:
            raise RequestError(f"{where} names unknown fact key(s) {unknown}", kind="invalid_input")
        cases.append(GoldCase(raw["id"], raw["query"], tuple(relevant), str(raw.get("category") or "uncategorized"),
                              raw.get("original_top10") or {}))  # fmt: skip
    return GoldSet(str(data.get("name") or default_name), tuple(facts), tuple(cases))


@dataclass
class Seeded:
    workspace: Workspace
    ids_by_key: dict[str, str]
    keys_by_id: dict[str, list[str]]
    merged: int
    refused: list[dict]
    now: Any


def seed_gold(gold: GoldSet, *, now=None, progress: Callable[[int], None] | None = None) -> Seeded:
    """Write the gold facts in order through the write path; superseded keys become `supersedes`."""
    now = now or timezone.now()
    workspace = create_workspace(f"eval-{int(time.time() * 1000)}-{id(gold) % 10000}", actor="eval")
    ids_by_key: dict[str, str] = {}
    keys_by_id: dict[str, list[str]] = {}
    merged, refused = 0, []
    for fact in gold.facts:
        new = NewFact(
            content=fact.content, segment=fact.segment, origin=fact.origin, source_type=fact.source_type,
            importance=fact.importance, force=True,
            supersedes=tuple(ids_by_key[k] for k in fact.supersedes_keys if k in ids_by_key),
        )  # fmt: skip
        try:
            result = write_fact(workspace=workspace, new=new, actor="eval", now=now)
        except TidelineError as error:
            refused.append({"key": fact.key, "kind": error.kind, "message": error.message})
            if progress:
                progress(1)
            continue
        memory_id = result.fact.memory_id
        merged += result.deduplicated
        ids_by_key[fact.key] = memory_id
        keys_by_id.setdefault(memory_id, []).append(fact.key)
        if progress:
            progress(1)
    return Seeded(workspace, ids_by_key, keys_by_id, merged, refused, now)


class _Rollback(Exception):
    pass


def run_eval(gold_sets: Sequence[GoldSet], *, k: int, capabilities: Sequence[str],
             progress: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Evaluate each capability on each gold set; returns per set, per capability, per category, overall."""
    from memory.services.recall import capabilities as caps

    unknown = [c for c in capabilities if c not in caps.CAPABILITIES]
    if unknown:
        raise RequestError(f"unknown capability {unknown[0]!r}; use one of: {', '.join(caps.CAPABILITIES)}",
                           kind="validation")  # fmt: skip
    abstaining = ABSTENTION in capabilities
    if abstaining and len(gold_sets) < 2:
        raise RequestError("the abstention capability needs two or more gold sets: each is asked the others' "
                           "questions", kind="validation")  # fmt: skip
    capabilities = [c for c in capabilities if c != ABSTENTION] or (["default"] if abstaining else [])
    asked: list[dict[str, Any]] = []
    embedder = caps.learned_embedder() if caps.LEARNED_CAPABILITIES & set(capabilities) else None
    out: dict[str, Any] = {"k": k, "sets": [], "overall": {}}
    if embedder is not None:
        out["embedder"] = embedder.fingerprint
    pooled: dict[str, list[tuple[GoldCase, list[str]]]] = {c: [] for c in capabilities}
    for gold in gold_sets:
        result: dict[str, Any] = {}
        try:
            with transaction.atomic():
                seeded = seed_gold(gold, progress=progress)
                if embedder is not None:
                    embedding.reembed(seeded.workspace, actor="eval", embedder=embedder)
                result = _run_set(gold, seeded, k, capabilities, pooled, embedder)
                if abstaining:
                    asked.extend(_ask_everyone(gold, gold_sets, seeded, k))
                raise _Rollback
        except _Rollback:
            pass
        finally:
            _forget(gold, locals().get("seeded"))
        out["sets"].append(result)
    reports = {}
    for capability in capabilities:
        cases = [c for c, _ in pooled[capability]]
        rankings = {c.id: ranked for c, ranked in pooled[capability]}
        reports[capability] = _score(cases, rankings, k)
        out["overall"][capability] = _summary(reports[capability])
    out["compared_with"] = capabilities[0]
    out["comparisons"] = {c: _compare(reports[capabilities[0]], reports[c]) for c in capabilities[1:]}
    if abstaining:
        out["abstention"] = _abstention_figures(asked, k)
    return out


# Not a ranking: every gold set is asked its own questions and every other set's (ENGINE-SPEC §8.6, `abstention`).
ABSTENTION = "abstention"


def _ask_everyone(gold: GoldSet, gold_sets: Sequence[GoldSet], seeded: Seeded, k: int) -> list[dict[str, Any]]:
    """Ask the seeded `gold` set its own questions and every other set's through recall, as an agent
    would (the workspace's relevance floor applies): the best relevance, and where the answer ranks."""
    from memory.services.recall import verbs as recall_service

    out = []
    for other in gold_sets:
        for case in other.cases:
            hits = recall_service.recall(workspace=seeded.workspace, query=case.query, origin="owner", k=k,
                                         reinforce=False, now=seeded.now)  # fmt: skip
            inside = other is gold and bool(case.relevant_keys)
            wanted = {seeded.ids_by_key.get(key) for key in case.relevant_keys} if inside else set()
            rank = next((i + 1 for i, hit in enumerate(hits) if hit.id in wanted), None)
            out.append({"inside": inside, "top": max((h.relevance for h in hits), default=0.0), "rank": rank})
    return out


def _abstention_figures(asked: list[dict[str, Any]], k: int) -> dict[str, Any]:
    from memory.engine.recall.metrics import auroc

    inside = [a for a in asked if a["inside"]]
    outside = [a for a in asked if not a["inside"]]
    return {
        "in_domain": len(inside), "out_of_domain": len(outside),
        "auroc_top_relevance": auroc([a["top"] for a in inside], [a["top"] for a in outside]),
        "out_of_domain_no_hit": sum(a["top"] == 0.0 for a in outside) / len(outside) if outside else 0.0,
        "in_domain_hit_at_k": sum(a["rank"] is not None for a in inside) / len(inside) if inside else 0.0,
        "in_domain_mrr": sum(1.0 / a["rank"] for a in inside if a["rank"]) / len(inside) if inside else 0.0,
    }  # fmt: skip


def _compare(baseline: EvalReport, candidate: EvalReport) -> dict[str, Any]:
    """The candidate against the baseline on the same cases: paired bootstrap CIs of the per-case deltas
    of MRR and hit@k, and whether it clears the eval bar (Decision 11) that self-improvement must pass."""
    out: dict[str, Any] = {"beats_eval_bar": beats_eval_bar(baseline, candidate)}
    for name, attr in (("mrr", "reciprocal_rank"), ("hit_at_k", "hit_at_k")):
        delta = paired_bootstrap_ci([getattr(r, attr) for r in baseline.per_case],
                                    [getattr(r, attr) for r in candidate.per_case])  # fmt: skip
        out[f"{name}_delta"] = {"mean": delta.mean, "ci95": [delta.lo, delta.hi], "pairs": delta.n}
    return out


def _forget(gold: GoldSet, seeded: Seeded | None) -> None:
    """Drop the throwaway workspace's index and destroy its keys (its rows were rolled back)."""
    registry.clear()
    if seeded is not None:
        for origin_key in {f.origin.key for f in gold.facts} | {"owner"}:
            sealing.keyring.destroy(seeded.workspace.pk, origin_key)


def _run_set(gold: GoldSet, seeded: Seeded, k: int, capabilities, pooled, embedder=None) -> dict[str, Any]:
    from memory.services.recall import capabilities as caps

    origins = sorted({f.origin.key for f in gold.facts})
    by_capability = {}
    # Score on fact ids: two gold keys merged into one fact are one answer, found at one rank.
    resolved = [
        GoldCase(case.id, case.query, tuple(dict.fromkeys(seeded.ids_by_key.get(k, f"missing:{k}") for k in case.relevant_keys)),
                 case.category, case.original_top10)
        for case in gold.cases
    ]  # fmt: skip
    for capability in capabilities:
        rankings: dict[str, list[str]] = {}
        for case in resolved:
            ids = caps.rank(capability, seeded.workspace, case.query, origin="owner", limit=max(k, 20), now=seeded.now,
                            embedder=embedder)
            rankings[case.id] = ids
            pooled[capability].append((_prefixed(gold, case), [f"{gold.name}:{i}" for i in ids]))
        report = _score(resolved, rankings, k)
        as_keys = {cid: [seeded.keys_by_id.get(i, [i])[0] for i in ids] for cid, ids in rankings.items()}
        by_capability[capability] = {**_summary(report), "parity": _parity(gold, as_keys, ORIGINAL_MODE.get(capability))}
    return {"name": gold.name, "facts": len(gold.facts), "cases": len(gold.cases), "merged": seeded.merged,
            "refused": seeded.refused, "origins": origins, "capabilities": by_capability}  # fmt: skip


def _prefixed(gold: GoldSet, case: GoldCase) -> GoldCase:
    return GoldCase(f"{gold.name}:{case.id}", case.query, tuple(f"{gold.name}:{i}" for i in case.relevant_keys),
                    case.category)  # fmt: skip


def _score(cases: Sequence[GoldCase], rankings: dict[str, list[str]], k: int) -> EvalReport:
    return evaluate([{"id": c.id, "relevant_ids": c.relevant_keys, "category": c.category} for c in cases], rankings, k)


def _summary(report: EvalReport) -> dict[str, Any]:
    scored = [r for r in report.per_case if not r.abstention]
    ci = {name: bootstrap_mean_ci([getattr(r, attr) for r in scored])
          for name, attr in (("mrr", "reciprocal_rank"), ("hit_at_k", "hit_at_k"), ("recall_at_k", "recall_at_k"))}  # fmt: skip
    return {
        "n": report.n, "scored": report.n_scored, "abstention": report.n_abstention,
        "abstention_violations": report.abstention_violations,
        "recall_at_k": report.recall_at_k, "mrr": report.mrr, "ndcg_at_k": report.ndcg_at_k, "hit_at_k": report.hit_rate,
        # Of the first k hits only, though each capability is asked for max(k, 20).
        "precision": report.precision, "hits_per_question": report.hits_per_question,
        "ci95": {name: [c.lo, c.hi] for name, c in ci.items()},
        "by_category": report.by_category,
    }  # fmt: skip


# Which of the original's ranked lists (`original_top10`) each capability is compared with.
ORIGINAL_MODE = {"default": "hybrid", "hybrid": "hybrid", "graph": "hybrid", "bm25": "bm25_modulated"}


def _parity(gold: GoldSet, rankings: dict[str, list[str]], mode: str | None) -> dict[str, Any]:
    """Where our top-10 differs from the original's list for the same mode, and whether it helped the case."""
    differ, better, worse = [], 0, 0
    for case in gold.cases:
        if mode is None or mode not in case.original_top10:
            continue
        original = [item["key"] for item in case.original_top10[mode]][:10]
        ours = rankings.get(case.id, [])[:10]
        if ours == original:
            continue
        mine, theirs = _first_relevant(ours, case), _first_relevant(original, case)
        verdict = "same" if mine == theirs else ("better" if mine > theirs else "worse")
        if not case.relevant_keys:  # abstention: returning less is better
            verdict = "better" if len(ours) < len(original) else ("worse" if len(ours) > len(original) else "same")
        better += verdict == "better"
        worse += verdict == "worse"
        differ.append({"case": case.id, "ours": ours, "original": original, "verdict": verdict})
    return {"differs": len(differ), "better": better, "worse": worse, "cases": differ}


def _first_relevant(ranking: list[str], case: GoldCase) -> float:
    for rank, key in enumerate(ranking, start=1):
        if key in case.relevant_keys:
            return 1.0 / rank
    return 0.0


def export_scaffold(workspace: Workspace, *, max_cases: int | None = None) -> dict[str, Any]:
    """A gold scaffold from a workspace's active facts (§8.3): queries to rewrite, `approved: false`."""
    facts = list(Fact.objects.filter(workspace=workspace, lifecycle="active").order_by("-created_at", "-pk"))
    out_facts, cases = [], []
    for index, fact in enumerate(facts):
        entry = {"key": fact.memory_id, "content": fact.content, "segment": fact.segment, "importance": fact.importance}
        if fact.origin_recorded and not fact.origin.is_owner:
            entry["createdBy"] = fact.origin.as_created_by()
        if fact.source_type:
            entry["sourceType"] = fact.source_type
        out_facts.append(entry)
        if max_cases is None or max_cases < 0 or index < max_cases:
            words = list(dict.fromkeys(tokenize(fact.content)))[:6]
            cases.append({"id": f"cand-{index}", "query": " ".join(words) or PLACEHOLDER,
                          "relevantKeys": [fact.memory_id], "category": fact.segment,
                          "note": "rewrite this query the way a person would ask it"})  # fmt: skip
    return {"name": f"{workspace.name}-scaffold", "approved": False, "generated_at": to_ms(timezone.now()),
            "facts": out_facts, "cases": cases}  # fmt: skip


def forget_seeded(gold: GoldSet, seeded: Seeded | None) -> None:
    """After a rolled-back seeding: drop the throwaway workspace's index and destroy its keys."""
    _forget(gold, seeded)
