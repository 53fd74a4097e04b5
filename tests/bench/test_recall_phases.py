"""`python -m bench.memory.recall_phases` splits cold, warm and after-write recalls into their phases,
and leaves the functions it timed as they were."""

from __future__ import annotations

import pytest

from bench.memory import recall_phases
from bench.memory.writes import seed_workspace
from memory.engine.recall import ngrams
from memory.models import Fact
from memory.services.recall import index, verbs

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_kind_of_recall_is_split_into_its_phases(capsys):
    originals = (index.IndexRegistry._load, verbs._rank, ngrams.NgramIndex.cosine)
    workspace, _ = seed_workspace(80, seed=7)
    recall_phases.main(["--workspace", workspace.name, "--cold", "2", "--queries", "25", "--writes", "3"])
    out = capsys.readouterr().out
    cold, warm, after = _sections(out)
    assert cold.startswith("cold recall") and "n=2" in cold.splitlines()[0]
    assert "build the columns" in cold and "read the facts" in cold
    assert warm.startswith("warm recall") and "ngram" in warm and "append to the columns" not in warm
    assert after.startswith("recall right after a write") and "append to the columns" in after
    assert Fact.objects.filter(workspace=workspace).count() == 83  # the written facts stay
    assert (index.IndexRegistry._load, verbs._rank, ngrams.NgramIndex.cosine) == originals


def test_an_unknown_workspace_is_refused_in_words(capsys):
    with pytest.raises(SystemExit) as exit_:
        recall_phases.main(["--workspace", "no-such-workspace"])
    assert exit_.value.code == 2 and "no-such-workspace" in capsys.readouterr().err


def _sections(out: str) -> list[str]:
    """The report's tables: each starts with an unindented title line."""
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if not line.startswith(" ")]
    return ["\n".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
