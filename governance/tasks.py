"""django-q2 entry points of governance: importable functions that call its services.

The schedule allow-list (governance/schedules.py) allows every public function defined here.
"""

from __future__ import annotations

from django.utils import timezone

from governance.services import contradictions, retention
from memory.models import Workspace
from memory.services.maintenance import due
from memory.services.maintenance import passes as maintenance


def find_contradictions_everywhere() -> list[dict]:
    """Contradiction detection for every workspace (opens review items for new pairs only)."""
    return [contradictions.find_contradictions(workspace, actor="task:contradictions").to_dict()
            for workspace in Workspace.objects.all()]  # fmt: skip


def run_nightly(workspace_id: int) -> list[dict]:
    """One workspace's night: the dream, then contradiction detection over what the dream left.

    One task rather than two schedules, so the order holds whatever the workers do; both passes are
    idempotent (a second dream over the same data changes nothing, a pair is never opened twice)."""
    workspace = Workspace.objects.get(pk=workspace_id)
    began = due.revision_of(workspace)
    dream = maintenance.run_dream(workspace, actor="task:dream", progress=maintenance.logged("dream", workspace))
    found = contradictions.find_contradictions(workspace, actor="task:contradictions")
    # Contradictions held back by the daily cap are work for the next night, whatever changes.
    due.record(workspace, due.NIGHTLY, began_at_revision=began, own_actors=("task:dream:", "task:contradictions"),
               due_ms=0 if found.unfinished else dream.next_due_ms)  # fmt: skip
    return [dream.to_dict(), found.to_dict()]


def run_nightly_everywhere() -> list[str]:
    """Nightly: `run_nightly` queued once per workspace that changed since its last night or where
    time has given the dream work (`memory.services.maintenance.due`), each with the maintenance
    timeout (see `memory.tasks`: a million-fact workspace's dream alone takes about ten minutes)."""
    return maintenance.queue_for_each_workspace("governance.tasks.run_nightly", "nightly", due.NIGHTLY)


def apply_retention_all() -> list[dict]:
    """Every enabled retention policy of every workspace, one transaction per policy (idempotent:
    what a run archived or purged is not taken again, so a repeated or overlapping run takes nothing)."""
    return retention.apply_everywhere(actor="task:retention")


def expire_import_uploads() -> int:
    """Hourly: console uploads previewed and never confirmed for a day are cancelled and deleted."""
    from governance.services import import_uploads

    return import_uploads.expire_previews()


def run_console_import(job_id: int) -> dict:
    """A facts.jsonl uploaded from the console and confirmed by an admin (governance.services.imports)."""
    from governance.services import imports

    return imports.run(job_id)


def evaluate_proposal(proposal_id: int) -> dict:
    """A proposal's evaluation on the workspace's approved gold sets (governance.services.proposals)."""
    from governance.services import proposals

    return proposals.run_evaluation(proposal_id)


def propose_from_telemetry_everywhere() -> list[dict]:
    """Telemetry proposals for every workspace: a retraction per fact down-voted often enough, and a
    maintenance threshold when people restored what decay or the dream took. An open proposal for
    the same change is not made twice, so the nightly run is idempotent."""
    from governance.services import proposals

    out = []
    for workspace in Workspace.objects.all():
        made = proposals.propose_from_telemetry(workspace)
        threshold = proposals.propose_thresholds(workspace)
        made += [threshold] if threshold is not None else []
        out.append({"workspace": workspace.name, "proposed": [p.pk for p in made]})
    return out


def search_settings(search_id: int) -> dict:
    """The recall-settings search behind a recall-miss proposal (governance.services.settings_searches)."""
    from governance.services import settings_searches

    return settings_searches.run(search_id)


def deliver_webhooks() -> dict:
    """Send the webhook calls that are due (queued now, or failed and due again), pruning old ones hourly."""
    from governance.services import webhooks

    counts = webhooks.deliver_due()
    if timezone.now().minute == 0:
        counts["pruned"] = webhooks.prune()
    return counts


def send_review_digests() -> dict:
    """Each owner who asked for it gets one e-mail a day with their workspaces' open review items."""
    from governance.services import notifications

    return notifications.send_review_digests()


def send_mail(messages: list[list]) -> int:
    """Send notification e-mails queued after a change committed (governance/services/notifications.py)."""
    from governance.services import notifications

    return notifications.send(messages)
