"""`tideline import` is resumable and idempotent: a re-run finishes a cut-off import, links included."""

from __future__ import annotations

import io
import json
import sys

import pytest
from django.core.management import call_command

from memory.models import Fact, Link
from memory.services.errors import RequestError
from memory.services.workspaces import create_workspace
from memory.services.writes.interchange import export_facts, import_facts

pytestmark = pytest.mark.django_db
T0 = 1_750_000_000_000


def chain(count: int) -> list[dict]:
    """`count` records; each links forward to the next and to one half the file away, with a reason."""
    return [
        {
            "memoryId": f"mem_{k:05d}", "content": f"Fact number {k} about topic {k % 37}.", "segment": "knowledge",
            "tier": "long", "importance": 0.6, "decayRate": 0.03, "accessCount": 0, "lastAccessedAt": T0 + k,
            "createdAt": T0 + k, "lifecycle": "active", "createdBy": {"kind": "owner"},
            "links": [{"kind": "precedes", "target": f"mem_{(k + 1) % count:05d}"},
                      {"kind": "relates", "target": f"mem_{(k + count // 2) % count:05d}", "reason": f"pair {k}"},
                      {"kind": "supports", "target": f"mem_gone_{k}"}],
        }
        for k in range(count)
    ]  # fmt: skip


def lines(records) -> list[str]:
    return [json.dumps(record) for record in records]


def link_rows(workspace) -> set[tuple]:
    rows = Link.objects.filter(workspace=workspace).select_related("from_fact", "to_fact")
    return {(link.from_fact.memory_id, link.kind, link.target_memory_id, link.to_fact_id is not None) for link in rows}


def expected_rows(records) -> set[tuple]:
    ids = {record["memoryId"] for record in records}
    return {(r["memoryId"], link["kind"], link["target"], link["target"] in ids) for r in records for link in r["links"]}


def test_rerunning_a_file_cut_off_after_k_lines_creates_and_resolves_every_link(workspace):
    records = chain(40)
    first = import_facts(workspace=workspace, lines=lines(records[:15]), actor="test")
    assert first.dangling_links > 15  # the first lines' forward links had nowhere to point yet
    report = import_facts(workspace=workspace, lines=lines(records), actor="test")
    assert (report.imported, report.skipped, report.refused) == (25, 15, [])
    assert report.links_resolved > 0
    assert link_rows(workspace) == expected_rows(records)
    # Exactly what a clean import stores, and export gives the file back.
    clean = create_workspace("clean")
    import_facts(workspace=clean, lines=lines(records), actor="test")
    assert link_rows(workspace) == link_rows(clean)
    assert list(export_facts(workspace=workspace)) == records


def test_links_deleted_after_an_import_come_back_on_a_rerun(workspace):
    records = chain(12)
    import_facts(workspace=workspace, lines=lines(records), actor="test")
    Link.objects.filter(workspace=workspace, kind="relates").delete()
    Link.objects.filter(workspace=workspace, kind="supports", from_fact__memory_id="mem_00003").delete()
    report = import_facts(workspace=workspace, lines=lines(records), actor="test")
    assert (report.imported, report.skipped, report.links, report.dangling_links) == (0, 12, 12, 1)
    assert link_rows(workspace) == expected_rows(records)
    assert list(export_facts(workspace=workspace)) == records


def test_a_complete_rerun_changes_nothing_even_after_the_facts_moved_on(workspace):
    records = chain(6)
    import_facts(workspace=workspace, lines=lines(records), actor="test")
    Fact.objects.filter(memory_id="mem_00002").update(access_count=9, lifecycle="archived")
    before = (link_rows(workspace), Link.objects.count())
    report = import_facts(workspace=workspace, lines=lines(records), actor="test")
    assert (report.skipped, report.links, report.links_resolved, report.refused) == (6, 0, 0, [])
    assert (link_rows(workspace), Link.objects.count()) == before
    assert Fact.objects.get(memory_id="mem_00002").access_count == 9  # the store is the newer truth


def test_a_strict_rerun_of_the_same_file_is_not_a_refusal(workspace):
    records = chain(8)
    import_facts(workspace=workspace, lines=lines(records[:3]), actor="test", strict=True)
    report = import_facts(workspace=workspace, lines=lines(records), actor="test", strict=True)
    assert (report.imported, report.skipped) == (5, 3) and link_rows(workspace) == expected_rows(records)


@pytest.mark.parametrize(
    ("change", "difference"),
    [({"content": "Something else entirely."}, "different content"),
     ({"createdBy": {"kind": "channel", "channelId": "wa", "conversationId": "c", "sessionKey": "s"}}, "another origin"),
     ({"createdAt": T0 - 1}, "another createdAt")],
)  # fmt: skip
def test_an_id_that_exists_with_another_record_is_refused(workspace, change, difference):
    records = chain(4)
    import_facts(workspace=workspace, lines=lines(records), actor="test")
    report = import_facts(workspace=workspace, lines=lines([records[0], {**records[1], **change}]), actor="test")
    assert report.skipped == 1
    assert [(r.line, r.memory_id) for r in report.refused] == [(2, "mem_00001")]
    assert difference in report.refused[0].reason
    with pytest.raises(RequestError):
        import_facts(workspace=workspace, lines=lines([{**records[1], **change}]), actor="test", strict=True)


def test_cli_exits_0_on_a_rerun_and_2_with_a_summary_on_a_conflict(workspace, tmp_path, capsys):
    records = chain(10)
    partial, full = tmp_path / "partial.jsonl", tmp_path / "full.jsonl"
    partial.write_text("\n".join(lines(records[:4])) + "\n")
    full.write_text("\n".join(lines(records)) + "\n")
    call_command("tideline", "import", str(partial), "--workspace", "acme", "--json")
    capsys.readouterr()
    call_command("tideline", "import", str(full), "--workspace", "acme", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert (summary["imported"], summary["skipped"], summary["refused_count"]) == (6, 4, 0)
    assert "error" not in summary and link_rows(workspace) == expected_rows(records)

    conflict = tmp_path / "conflict.jsonl"
    conflict.write_text("\n".join(lines([records[0], {**records[1], "content": "Changed."}, "not json"])) + "\n")
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "import", str(conflict), "--workspace", "acme", "--json")
    assert exit_.value.code == 3
    summary = json.loads(capsys.readouterr().out)
    assert (summary["imported"], summary["skipped"], summary["refused_count"]) == (0, 1, 2)
    assert [(r["line"], r["memory_id"]) for r in summary["refused"]] == [(2, "mem_00001"), (3, None)]
    assert summary["error"]["kind"] == "refused_lines"

    with pytest.raises(SystemExit):
        call_command("tideline", "import", str(conflict), "--workspace", "acme")
    out = capsys.readouterr().out
    assert "skipped 1 fact(s) already present" in out and "refused 2 line(s)" in out and "line 2: memoryId" in out


def test_stdin_lines_that_are_not_utf8_are_refused_one_by_one(workspace, monkeypatch, capsys):
    good = lines(chain(3))
    data = (good[0] + "\n" + '{"memoryId": "bad", "content": "caf\xe9"}\n').encode("utf-8")
    data = data.replace("caf\xe9".encode(), b"caf\xe9") + (good[1] + "\n" + good[2] + "\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "import", "-", "--workspace", "acme", "--json")
    assert exit_.value.code == 3
    summary = json.loads(capsys.readouterr().out)
    assert summary["imported"] == 3 and [(r["line"], r["reason"][:10]) for r in summary["refused"]] == [(2, "not UTF-8 ")]


def test_a_line_separator_inside_a_json_string_does_not_split_the_line(workspace, tmp_path, capsys):
    record = {**chain(1)[0], "content": "Two\u2028lines in one fact."}
    path = tmp_path / "ls.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    call_command("tideline", "import", str(path), "--workspace", "acme", "--json")
    assert json.loads(capsys.readouterr().out)["imported"] == 1
