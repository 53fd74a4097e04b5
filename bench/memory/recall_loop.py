"""In-process recall speed on a workspace that already exists (one seeded by the API bench, say):
the bench's own queries in a loop, without reinforcement, best of several runs.

    python -m bench.memory.recall_loop --workspace bench-100000-… [--queries 300] [--runs 5] [--served]

`--served` recalls as an agent is served (reinforcing what comes back, the recall logged for
governance, both written in batches off the loop); without it each recall is a look that writes nothing.

Best of several runs, because a shared machine's speed drifts within minutes; compare two versions
of the engine by running this against the same database back to back."""

from __future__ import annotations

import argparse
import random
import time

from bench.standalone import django_ready, workspace_named


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.recall_loop", description=__doc__.split("\n")[0])
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--served", action="store_true", help="reinforce and log each recall, as an agent's is")
    args = parser.parse_args(argv)
    django_ready()
    from bench.memory.corpus import Corpus
    from memory.services.recall import verbs as recall_service

    workspace = workspace_named(parser, args.workspace)
    queries = [" ".join(fact.content.rstrip(".").split()[1:4]) for fact in Corpus(seed=11).facts(2000)]
    random.Random(3).shuffle(queries)  # the API bench's queries, in its order
    queries = queries[: max(1, args.queries)]

    def recall(query: str) -> None:
        recall_service.recall(workspace=workspace, query=query, origin="owner", reinforce=args.served)

    started = time.perf_counter()
    recall(queries[0])
    print(f"index ready in {time.perf_counter() - started:.1f} s; warming…", flush=True)
    for query in queries[:50]:
        recall(query)
    medians, cpu = [], []
    for run in range(max(1, args.runs)):
        samples, cpu_started = [], time.process_time()
        for query in queries:
            begun = time.perf_counter()
            recall(query)
            samples.append((time.perf_counter() - begun) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000 / len(queries))
        samples.sort()
        medians.append(samples[len(samples) // 2])
        print(f"run {run + 1}/{args.runs}: p50 {medians[-1]:.2f} ms, p95 {samples[int(len(samples) * 0.95)]:.2f} ms, "
              f"CPU {cpu[-1]:.2f} ms per recall", flush=True)  # fmt: skip
    print(f"best of {len(medians)}: p50 {min(medians):.2f} ms, CPU {min(cpu):.2f} ms per recall")


if __name__ == "__main__":
    main()
