"""`tideline eval GOLD.json [GOLD2.json …] [--k 5] [--capability default,learned,…|all]`
and `tideline eval scaffold --workspace W [--max-cases N] > gold.local.json`."""

from __future__ import annotations

import json
import sys

from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError
from memory.services.recall.capabilities import CAPABILITIES, LEARNED_CAPABILITIES, learned_embedder
from memory.services.recall.evaluation import export_scaffold, load_gold, run_eval
from memory.services.workspaces import get_workspace

HELP = ("score recall on gold sets (recall@k, MRR, nDCG@k, hit@k with bootstrap CIs; precision and hits per "
        "question), or export a scaffold")


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="GOLD.json", help="gold set files, or 'scaffold'")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--capability", default="default",
                        help=f"one or more (comma-separated) of {', '.join(CAPABILITIES)}; or all")
    parser.add_argument("--workspace", help="scaffold: the workspace to export from")
    parser.add_argument("--max-cases", type=int, help="scaffold: at most this many candidate cases")


def run(options: dict) -> None:
    if options["files"] == ["scaffold"]:
        if not options.get("workspace"):
            raise RequestError("eval scaffold needs --workspace", kind="validation")
        scaffold = export_scaffold(get_workspace(options["workspace"]), max_cases=options.get("max_cases"))
        sys.stdout.write(json.dumps(scaffold, indent=2, ensure_ascii=False) + "\n")
        return
    if not 1 <= options["k"] <= 100:
        raise RequestError("--k must be between 1 and 100", kind="validation")
    capabilities = _capabilities(options["capability"], len(options["files"]))
    gold_sets = [load_gold(path) for path in options["files"]]
    total = sum(len(g.facts) for g in gold_sets)
    with progress_bar(total, "seeding gold facts") as bar:
        report = run_eval(gold_sets, k=options["k"], capabilities=capabilities, progress=bar.update)
    emit(options, report, _table(report))


def _capabilities(text: str, n_files: int = 1) -> list[str]:
    """The asked-for capabilities; `all` includes the learned ones only when the embedder can load,
    and abstention only with two or more gold sets (each is asked the others' questions)."""
    if text.strip() == "all":
        every = [c for c in CAPABILITIES if c != "abstention" or n_files >= 2]
        try:
            learned_embedder()
        except RequestError:
            return [c for c in every if c not in LEARNED_CAPABILITIES]
        return every
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def _row(label: str, m: dict, k: int) -> str:
    lo, hi = m["ci95"]["mrr"]
    return (f"{label:<34} {m['recall_at_k']:>6.3f} {m['mrr']:>6.3f} [{lo:.3f}, {hi:.3f}] {m['ndcg_at_k']:>6.3f} "
            f"{m['hit_at_k']:>6.3f} {m['precision']:>6.3f} {m['hits_per_question']:>6.2f} "
            f"{m['abstention_violations']:>3}/{m['abstention']:<3} {m['scored']:>5}")  # fmt: skip


def _table(report: dict) -> str:
    k = report["k"]
    head = (f"{'set / capability':<34} {'R@' + str(k):>6} {'MRR':>6} {'MRR 95% CI':<16} {'nDCG':>6} {'hit':>6} "
            f"{'prec':>6} {'hits/q':>6} {'viol':>7} {'cases':>5}")  # fmt: skip
    lines = [head, "-" * len(head)]
    for result in report["sets"]:
        note = f"  ({result['merged']} merged as duplicates" + (f", {len(result['refused'])} refused" if result["refused"] else "") + ")"
        lines.append(f"{result['name']}: {result['facts']} facts, {result['cases']} cases{note}")
        for capability, metrics in result["capabilities"].items():
            parity = metrics["parity"]
            extra = f"   differs from original on {parity['differs']} (better {parity['better']}, worse {parity['worse']})" \
                if parity["differs"] or parity["better"] or parity["worse"] else ""
            lines.append(_row(f"  {capability}", metrics, k) + extra)
    lines.append("overall")
    for capability, metrics in report["overall"].items():
        lines.append(_row(f"  {capability}", metrics, k))
        for category, values in metrics["by_category"].items():
            lines.append(f"      {category:<28} n={values['n']:<4} R@{k} {values['recall_at_k']:.3f}  MRR {values['mrr']:.3f}"
                         f"  nDCG {values['ndcg_at_k']:.3f}  hit@{k} {values['hit_at_k']:.3f}  precision {values['precision']:.3f}"
                         f"  hits/q {values['hits_per_question']:.2f}")  # fmt: skip
    lines.append(f"precision: the share of relevant hits among those returned within the first {k}; hits/q: how "
                 f"many hits a question gets (at most {k}); both over the cases that have relevant facts")
    for capability, comparison in report.get("comparisons", {}).items():
        mrr, hit = comparison["mrr_delta"], comparison["hit_at_k_delta"]
        lines.append(f"{capability} vs {report['compared_with']}: MRR {mrr['mean']:+.3f} [{mrr['ci95'][0]:+.3f}, "
                     f"{mrr['ci95'][1]:+.3f}], hit@{k} {hit['mean']:+.3f} [{hit['ci95'][0]:+.3f}, {hit['ci95'][1]:+.3f}]"
                     f" (paired bootstrap, {mrr['pairs']} cases); beats the eval bar: "
                     f"{'yes' if comparison['beats_eval_bar'] else 'no'}")  # fmt: skip
    if "abstention" in report:
        a = report["abstention"]
        lines += [
            f"abstention: {a['in_domain']} questions each set can answer, {a['out_of_domain']} it cannot "
            "(the other sets' questions and its own abstention cases)",
            f"  AUROC of the best relevance       {a['auroc_top_relevance']:.3f}",
            f"  unanswerable with nothing back    {a['out_of_domain_no_hit']:.1%}",
            f"  answerable: hit@{k} / MRR          {a['in_domain_hit_at_k']:.3f} / {a['in_domain_mrr']:.3f}",
        ]  # fmt: skip
    return "\n".join(lines)
