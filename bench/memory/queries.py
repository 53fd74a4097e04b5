"""The benchmarks' recall queries, drawn from the facts themselves (no Django: a child process or a
bare `python -m` run can use it)."""

from __future__ import annotations

import random


def queries_for(contents: list[str], count: int, seed: int) -> list[str]:
    """Queries a person might type: two or three words taken from a random fact, shuffled."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [w.strip(".,'") for w in rng.choice(contents).split() if len(w) > 3]
        rng.shuffle(words)
        out.append(" ".join(words[: rng.choice([2, 3])]) or "memory")
    return out
