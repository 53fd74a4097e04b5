"""People told when they are needed, by e-mail (Django's mail backend: files under var/mail by default,
SMTP by settings).

* Approvers, when a proposal or a durable promotion awaits their decision: one short e-mail each,
  naming the workspace and linking to the page, sent after the change commits, by the worker.
* Owners, once a day (a schedule at 07:00 UTC): a digest of the open review items in each workspace
  they own, by kind, with links; nothing is sent for an empty queue.

Each person chooses on their account page (`NotificationPreference`; both on until they say
otherwise, and only where their account has an address). The e-mails name workspaces, counts and
links, never a fact, a query or a reason: they leave the server in the clear.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mass_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from governance.models import NotificationPreference, ReviewItem
from memory.models import Membership, Workspace

logger = logging.getLogger(__name__)


def preference(user) -> NotificationPreference:
    """The person's choices (unsaved defaults, both on, when they never chose)."""
    return NotificationPreference.objects.filter(user=user).first() or NotificationPreference(user=user)


def set_preference(user, *, approvals: bool, review_digest: bool) -> NotificationPreference:
    row, _ = NotificationPreference.objects.update_or_create(
        user=user, defaults={"approvals": approvals, "review_digest": review_digest})  # fmt: skip
    return row


def link(path: str) -> str:
    return str(getattr(settings, "TIDELINE_BASE_URL", "http://127.0.0.1:8000")).rstrip("/") + path


def _members(workspace: Workspace, roles: tuple[str, ...]):
    users = get_user_model().objects.filter(memberships__workspace=workspace, memberships__role__in=roles,
                                            is_active=True).exclude(email="").distinct()  # fmt: skip
    off = set(NotificationPreference.objects.filter(user__in=users, approvals=False).values_list("user_id", flat=True))
    return [user for user in users if user.pk not in off]


def approval_awaits(workspace: Workspace, *, what: str, path: str, author=None) -> int:
    """E-mail the workspace's approvers (not the author) that `what` awaits them at `path`, once the
    current transaction commits. Returns how many e-mails were queued."""
    people = [u for u in _members(workspace, ("approver",)) if author is None or u.pk != getattr(author, "pk", None)]
    if not people:
        return 0
    subject = f"[Tideline] {what} awaits your approval in {workspace.name}"
    body = (f"{what[0].upper()}{what[1:]} in workspace {workspace.name} waits for an approver's decision.\n\n"
            f"Open it: {link(path)}\n\n"
            "You get this because you are an approver there; turn these e-mails off on your account page: "
            f"{link(reverse('account-notifications'))}\n")  # fmt: skip
    messages = [(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email]) for user in people]
    transaction.on_commit(lambda: _send_later(messages))
    return len(messages)


def _send_later(messages: list[tuple]) -> None:
    from django_q.tasks import async_task

    try:
        async_task("governance.tasks.send_mail", [list(m) for m in messages])
    except Exception:  # noqa: BLE001 — a broker hiccup must not fail the change that committed
        logger.exception("could not queue %d notification e-mail(s)", len(messages))


def send(messages: list[list]) -> int:
    """Send queued e-mails (the worker): returns how many went."""
    return send_mass_mail([tuple(m[:3]) + (list(m[3]),) for m in messages], fail_silently=False)


def send_review_digests(*, now: datetime | None = None) -> dict[str, int]:
    """One e-mail per owner with open review items in the workspaces they own, at most once a day."""
    today = (now or timezone.now()).date()
    owners = (Membership.objects.filter(role="owner", user__is_active=True).exclude(user__email="")
              .values_list("user_id", "workspace_id"))  # fmt: skip
    workspaces_of: dict[int, list[int]] = defaultdict(list)
    for user_id, workspace_id in owners:
        workspaces_of[user_id].append(workspace_id)
    choices = {p.user_id: p for p in NotificationPreference.objects.filter(user_id__in=list(workspaces_of))}
    open_items = Counter()
    for workspace_id, kind in ReviewItem.objects.filter(status="open").values_list("workspace_id", "kind"):
        open_items[(workspace_id, kind)] += 1
    names = dict(Workspace.objects.values_list("pk", "name"))
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=list(workspaces_of))}
    sent = skipped = 0
    for user_id, workspace_ids in workspaces_of.items():
        choice = choices.get(user_id)
        if choice is not None and (not choice.review_digest or choice.digest_sent_on == today):
            skipped += 1
            continue
        lines = []
        for workspace_id in sorted(workspace_ids, key=lambda pk: names.get(pk, "")):
            kinds = {kind: n for (ws, kind), n in open_items.items() if ws == workspace_id}
            if kinds:
                name = names[workspace_id]
                detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
                lines.append(f"* {name}: {sum(kinds.values())} open ({detail})\n  "
                             f"{link(reverse('governance:review-list', args=[name]))}")  # fmt: skip
        if not lines:
            continue
        body = ("Open review items in the workspaces you own:\n\n" + "\n".join(lines) + "\n\n"
                f"Turn this digest off on your account page: {link(reverse('account-notifications'))}\n")  # fmt: skip
        send_mass_mail([("[Tideline] your review queue today", body, settings.DEFAULT_FROM_EMAIL,
                         [users[user_id].email])], fail_silently=False)  # fmt: skip
        NotificationPreference.objects.update_or_create(user_id=user_id, defaults={"digest_sent_on": today})
        sent += 1
    return {"sent": sent, "skipped": skipped}
