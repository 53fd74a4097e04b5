"""Does recall know when it knows nothing? In-domain against out-of-domain questions (issue 16).

    python -m memory.bench.abstention FILE FILE... [--lane default] [--floor F] [--json]

Each file is one conversation in the gold-set format (`shared/data/locomo-dev/`, or the gold sets).
Every conversation is seeded as one memory (`memory.bench.locomo.seed_conversation`) and asked its
own questions (in-domain: the answer is there) and every other conversation's questions
(out-of-domain: it is not). Reported, over all conversations:

* AUROC of the top hit's score: the chance that an in-domain question's best score beats an
  out-of-domain question's (0.5 is a coin toss; a question with no hit scores 0);
* the share of out-of-domain questions that get no hit at all (a conversation's own questions with no
  relevant fact, such as the gold sets' abstention cases, count as out-of-domain);
* in-domain hit@10 and MRR@10, as `memory.bench.locomo` scores them.

`--floor F` drops every hit scoring below F before anything is scored, to see what an abstention
floor on the current score would do. For comparison, the AUROC of a candidate evidence signal is
reported too: the share of the question's content words (weighted by their rarity in the memory,
IDF) that its best hit contains. Pure: no Django, no database.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from memory.bench.locomo import LANES, K, load_conversation, seed_conversation
from memory.engine.metrics import hit_at_k, reciprocal_rank


@dataclass(frozen=True)
class AbstentionReport:
    lane: str
    floor: float | None
    conversations: int
    in_domain: int
    out_of_domain: int
    auroc_top_score: float
    out_of_domain_no_hit: float
    in_domain_hit_at_10: float
    in_domain_mrr_at_10: float
    auroc_best_coverage: float


_STOP = frozenset(("a", "an", "the", "of", "to", "in", "on", "at", "for", "with", "and", "or", "is", "are",
                   "was", "were", "be", "been", "do", "does", "did", "what", "when", "where", "who", "whom",
                   "which", "how", "why", "that", "this", "these", "those", "i", "you", "he", "she", "it",
                   "we", "they", "my", "your", "his", "her", "its", "our", "their", "me", "him", "them",
                   "us", "about", "from", "by", "as", "into", "than", "then", "so", "if", "not", "no", "yes"))  # fmt: skip
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def coverage(question: set[str], fact: set[str], idf) -> float:
    """The IDF-weighted share of the question's content words the fact contains (0 to 1)."""
    total = sum(idf(w) for w in question)
    return sum(idf(w) for w in question if w in fact) / total if total else 0.0


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that a random positive outscores a random negative, ties counting one half
    (the Mann-Whitney statistic); 0.5 when either side is empty."""
    if not positives or not negatives:
        return 0.5
    ranked = sorted([(s, 1) for s in positives] + [(s, 0) for s in negatives])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2  # ties share the mean of their ranks (1-based)
        rank_sum += mean_rank * sum(label for _, label in ranked[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def evaluate(paths: Sequence[str | Path], lane: str = "default", floor: float | None = None,
             k: int = K) -> AbstentionReport:
    """Ask every conversation its own and every other conversation's questions through `lane`."""
    run = LANES[lane]
    specs = [load_conversation(path) for path in paths]
    inside_scores: list[float] = []
    outside_scores: list[float] = []
    inside_cover: list[float] = []
    outside_cover: list[float] = []
    hits, ranks = [], []
    for spec in specs:
        cols = seed_conversation(spec)
        words = {fact["key"]: content_words(fact["content"]) for fact in spec["facts"]}
        df: dict[str, int] = {}
        for bag in words.values():
            for word in bag:
                df[word] = df.get(word, 0) + 1

        def idf(word: str, n: int = len(words), df: dict[str, int] = df) -> float:
            return math.log((n + 1) / (df.get(word, 0) + 0.5))

        for other in specs:
            for case in other["cases"]:
                found = [h for h in run(cols, case["query"], k) if floor is None or h.score >= floor]
                top = found[0].score if found else 0.0
                question = content_words(case["query"])
                best = max((coverage(question, words[h.memory_id], idf) for h in found), default=0.0)
                if other is spec and case["relevant_keys"]:
                    inside_scores.append(top)
                    inside_cover.append(best)
                    ranking = [h.memory_id for h in found]
                    hits.append(hit_at_k(ranking, case["relevant_keys"], 10))
                    ranks.append(reciprocal_rank(ranking, case["relevant_keys"], 10))
                else:
                    outside_scores.append(top)
                    outside_cover.append(best)
    return AbstentionReport(
        lane=lane, floor=floor, conversations=len(specs), in_domain=len(inside_scores),
        out_of_domain=len(outside_scores), auroc_top_score=round(auroc(inside_scores, outside_scores), 4),
        out_of_domain_no_hit=round(sum(s == 0.0 for s in outside_scores) / max(1, len(outside_scores)), 4),
        in_domain_hit_at_10=round(sum(hits) / max(1, len(hits)), 4),
        in_domain_mrr_at_10=round(sum(ranks) / max(1, len(ranks)), 4),
        auroc_best_coverage=round(auroc(inside_cover, outside_cover), 4),
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory.bench.abstention", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="conversation files in the gold-set format (two or more)")
    parser.add_argument("--lane", default="default", choices=sorted(LANES))
    parser.add_argument("--floor", type=float, default=None, help="drop hits scoring below this before scoring")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if len(args.paths) < 2:
        parser.error("give at least two conversations: each is asked the others' questions")
    missing = [p for p in args.paths if not Path(p).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    report = evaluate(args.paths, args.lane, args.floor)
    if args.json:
        print(json.dumps(asdict(report), indent=2))
    else:
        print(f"{report.conversations} conversations, lane {report.lane}, floor {report.floor}: "
              f"{report.in_domain} in-domain and {report.out_of_domain} out-of-domain questions")
        print(f"  AUROC of the top score          {report.auroc_top_score:.3f}")
        print(f"  out-of-domain with no hit       {report.out_of_domain_no_hit:.1%}")
        print(f"  in-domain hit@10 / MRR@10       {report.in_domain_hit_at_10:.3f} / {report.in_domain_mrr_at_10:.3f}")
        print(f"  AUROC of the best hit's coverage {report.auroc_best_coverage:.3f}  (a candidate signal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
