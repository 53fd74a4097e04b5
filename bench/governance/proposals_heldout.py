"""Does the self-improvement loop make recall better on questions its gold set does not hold? (docs/BENCHMARKS.md)

    python -m bench.governance.proposals_heldout ../shared/data/locomo-dev/*.json [--splits 4] [--json]
        [--noise-weight X [--hit-allowance Y]]

Each file is one conversation in the gold-set format. It is written through the write path into a
workspace of its own (`memory.services.recall.evaluation.seed_gold`), with an owner and two
approvers. Then, for each of `--splits` random halvings of its questions:

1. one half becomes a live gold set (its cases name the facts' ids), approved by the first approver
   through `governance.services.gold.approve` (the set's maker is the bench's operator);
2. `propose_from_recall_misses` searches the recall settings and proposes only what its
   cross-validation inside the gold set says will generalise (`governance.engine.settings_search`);
3. a proposal is evaluated on the gold set (`request_evaluation`, Decision 11's paired bootstrap
   bar), approved by the *second* approver when it clears the bar, and applied by the owner;
4. the other half is asked through the Python facade (`memory.tideline.Tideline.recall`, k = 10,
   nothing reinforced) with the settings now in force, and with the shipped defaults: MRR@10,
   hit@10, precision and hits per question on questions the loop never saw;
5. the proposal is reverted, and the next halving starts from the shipped defaults.

Reported: per conversation, the mean change in unseen MRR over its halvings; over all, the mean
over conversations, the worst conversation, and among the proposals that cleared the bar, the share
that then lost MRR on the unseen half. With `--noise-weight`, each workspace's bar prices noise
(`governance.engine.proposals.Bar`), and the unseen half's *value* (MRR less that weight per fact
returned that does not answer) is what a proposal must not lose. Run it on a scratch database (it
leaves its workspaces).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

K = 10


def _people(workspace) -> dict[str, Any]:
    from governance.services import members

    out = {}
    for role, name in (("owner", "heldout-owner"), ("approver", "heldout-approver"), ("approver", "heldout-second")):
        user = members.create_user(name, "Tideline-loop-check-8471") if not _exists(name) else _get(name)
        members.add_member(workspace, name, [role], actor="bench")
        out[name] = user
    return out


def _exists(name: str) -> bool:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username=name).exists()


def _get(name: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def _unseen(memory, cases, ids_by_key: dict[str, str], noise_weight: float = 0.0) -> dict[str, float]:
    """MRR@10, hit@10, precision, hits per question and value (MRR less `noise_weight` per fact
    returned that does not answer) of what recall returns now."""
    rr, hit, returned, good = [], [], 0, 0
    for case in cases:
        relevant = {ids_by_key[key] for key in case.relevant_keys if key in ids_by_key}
        hits = [h.id for h in memory.recall(case.query, k=K, reinforce=False)]
        first = next((i for i, mid in enumerate(hits) if mid in relevant), None)
        rr.append(0.0 if first is None else 1.0 / (first + 1))
        hit.append(first is not None)
        returned += len(hits)
        good += sum(mid in relevant for mid in hits)
    n = len(cases)
    return {"mrr": sum(rr) / n, "hit_at_10": sum(hit) / n, "precision": good / returned if returned else 0.0,
            "hits_per_question": returned / n, "value": (sum(rr) - noise_weight * (returned - good)) / n}  # fmt: skip


def run_conversation(path: Path, splits: int, *, quiet: bool = False, noise_weight: float = 0.0,
                     hit_allowance: float = 0.01) -> dict[str, Any]:  # fmt: skip
    from django.utils import timezone

    from governance.models import GoldCase, GoldSet, Proposal
    from governance.services import gold as gold_service
    from governance.services import proposal_bar, proposals
    from memory.engine import tuning as T
    from memory.services import tuning as tuning_service
    from memory.services.recall import evaluation as harness
    from memory.tideline import Tideline

    parsed = harness.load_gold(path)
    started = time.perf_counter()
    seeded = harness.seed_gold(parsed, now=timezone.now())
    workspace, ids = seeded.workspace, seeded.ids_by_key
    people = _people(workspace)
    proposal_bar.set_bar(workspace, noise_weight=noise_weight, hit_allowance=hit_allowance, actor="bench")
    memory = Tideline(workspace, actor="bench", embedder=None)
    cases = [c for c in parsed.cases if any(key in ids for key in c.relevant_keys)]
    rows = []
    for split in range(splits):
        order = list(range(len(cases)))
        random.Random(f"{path.stem}:{split}").shuffle(order)
        half = len(order) // 2
        gold_cases, unseen = [cases[i] for i in order[:half]], [cases[i] for i in order[half:]]
        GoldSet.objects.filter(workspace=workspace).delete()
        gold = GoldSet.objects.create(workspace=workspace, name=f"half-{split}", kind=GoldSet.Kind.LIVE, source="upload",
                                      created_by="bench")  # fmt: skip
        GoldCase.objects.bulk_create([
            GoldCase(gold_set=gold, case_id=c.id, query=c.query, position=i, category=c.category or "",
                     relevant_keys=sorted({ids[key] for key in c.relevant_keys if key in ids}))
            for i, c in enumerate(gold_cases)])  # fmt: skip
        gold_service.approve(gold, user=people["heldout-approver"], actor="heldout-approver")
        before = _unseen(memory, unseen, ids, noise_weight)
        t0 = time.perf_counter()
        proposal, why = proposals.propose_from_recall_misses(workspace)
        search_seconds = time.perf_counter() - t0
        row: dict[str, Any] = {"split": split, "gold_cases": len(gold_cases), "unseen_cases": len(unseen),
                               "search_seconds": round(search_seconds, 1), "proposed": proposal is not None,
                               "search": why, "before": before}  # fmt: skip
        if proposal is not None:
            proposals.request_evaluation(proposal, user=people["heldout-owner"], actor="heldout-owner", inline=True)
            proposal.refresh_from_db()
            row["diff"] = {c["name"]: [c["before"], c["after"]] for c in proposals.describe_change(proposal)}
            row["clears_bar"] = bool(proposal.clears_bar)
            row["bar_reason"] = proposal.bar_reason
            if proposal.clears_bar:
                proposals.approve(proposal, user=people["heldout-second"], actor="heldout-second", reason="held-out bench")
                proposals.apply(proposal, user=people["heldout-owner"], actor="heldout-owner")
        after = _unseen(memory, unseen, ids, noise_weight)
        row["after"] = after
        row["unseen_mrr_delta"] = after["mrr"] - before["mrr"]
        row["unseen_value_delta"] = after["value"] - before["value"]
        if proposal is not None and Proposal.objects.get(pk=proposal.pk).status == Proposal.Status.APPLIED:
            proposals.revert(proposal, user=people["heldout-owner"], actor="heldout-owner", reason="next halving")
        assert tuning_service.current(workspace)[1].as_dict() == T.DEFAULT.as_dict()
        rows.append(row)
        if not quiet:
            change = ", ".join(f"{k} {v[0]:g}→{v[1]:g}" for k, v in row.get("diff", {}).items()) or "nothing proposed"
            print(f"  {path.stem} split {split}: {change}; unseen MRR {before['mrr']:.3f} → {after['mrr']:.3f} "
                  f"({row['unseen_mrr_delta']:+.3f}), search {search_seconds:.0f} s", file=sys.stderr, flush=True)
    deltas = [r["unseen_mrr_delta"] for r in rows]
    values = [r["unseen_value_delta"] for r in rows]
    return {"conversation": path.stem, "facts": len(ids), "cases": len(cases), "splits": rows,
            "mean_unseen_mrr_delta": sum(deltas) / len(deltas), "mean_unseen_value_delta": sum(values) / len(values),
            "noise_weight": noise_weight, "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip


def summarise(conversations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    means = [c["mean_unseen_mrr_delta"] for c in conversations]
    rows = [r for c in conversations for r in c["splits"]]
    cleared = [r for r in rows if r.get("clears_bar")]
    priced = bool(conversations) and conversations[0]["noise_weight"] > 0
    lost = [r for r in cleared if r["unseen_value_delta" if priced else "unseen_mrr_delta"] < 0]
    applied = [r for r in rows if r.get("clears_bar")]

    def mean_of(key: str, side: str) -> float:
        return sum(r[side][key] for r in applied) / len(applied) if applied else 0.0

    return {
        "conversations": len(conversations), "halvings": len(rows),
        "mean_unseen_mrr_delta": sum(means) / len(means) if means else 0.0,
        "worst_conversation_delta": min(means) if means else 0.0,
        "mean_unseen_value_delta": sum(c["mean_unseen_value_delta"] for c in conversations) / len(conversations)
        if conversations else 0.0,
        "proposed": sum(r["proposed"] for r in rows), "cleared_the_bar": len(cleared),
        "cleared_then_lost_unseen": len(lost), "share_cleared_then_lost": len(lost) / len(cleared) if cleared else 0.0,
        "applied_unseen": {key: [mean_of(key, "before"), mean_of(key, "after")]
                           for key in ("mrr", "hit_at_10", "precision", "hits_per_question", "value")},
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.proposals_heldout",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("paths", nargs="+", help="conversations in the gold-set format")
    parser.add_argument("--splits", type=int, default=4, help="random halvings per conversation (default 4)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--noise-weight", type=float, default=0.0,
                        help="each workspace's bar: what a fact returned that does not answer costs (default 0)")
    parser.add_argument("--hit-allowance", type=float, default=0.01, help="and how much hit@k may drop for it")
    args = parser.parse_args(argv)
    missing = [p for p in args.paths if not Path(p).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    if args.splits < 1:
        parser.error("--splits must be at least 1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    conversations = [run_conversation(Path(p), args.splits, quiet=args.json, noise_weight=args.noise_weight,
                                      hit_allowance=args.hit_allowance) for p in args.paths]  # fmt: skip
    summary = summarise(conversations)
    if args.json:
        print(json.dumps({"summary": summary, "conversations": conversations}, indent=2))
        return 0
    for c in conversations:
        print(f"{c['conversation']:<20} {c['facts']:>4} facts {c['cases']:>4} questions: unseen MRR "
              f"{c['mean_unseen_mrr_delta']:+.4f} (mean of {len(c['splits'])} halvings, {c['seconds']:.0f} s)")
    s = summary
    a = s["applied_unseen"]
    print(f"mean over conversations {s['mean_unseen_mrr_delta']:+.4f}; worst conversation {s['worst_conversation_delta']:+.4f}")
    measure = f"value (MRR less {args.noise_weight:g} a fact that does not answer)" if args.noise_weight else "MRR"
    if args.noise_weight:
        print(f"unseen value, mean over conversations {s['mean_unseen_value_delta']:+.4f}")
    print(f"{s['proposed']} of {s['halvings']} halvings proposed, {s['cleared_the_bar']} cleared the bar, "
          f"{s['cleared_then_lost_unseen']} of those lost {measure} on the unseen half ({s['share_cleared_then_lost']:.0%})")
    print("where applied, on the unseen half: " + ", ".join(f"{k} {v[0]:.3f} → {v[1]:.3f}" for k, v in a.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
