"""Creating and finding workspaces."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from memory.models import MemoryEvent, Workspace
from memory.services.errors import NotFoundError, RequestError

NAME_RULE = "lowercase letters, digits, '-' and '_', 1 to 64 characters, starting with a letter or digit"


def get_workspace(name: str, *, create: bool | None = None, actor: str = "system") -> Workspace:
    """Find a workspace by name; with `create=True`, make it (and its first event) when missing.

    `create=False` says the caller could have created it (its command takes `--create`), so the
    refusal says how; `None` (the default) points to the list of workspaces instead."""
    workspace = Workspace.objects.filter(name=name).first()
    if workspace is not None:
        return workspace
    if not create:
        hint = "pass --create to make it" if create is False else "`tideline workspace list` shows them"
        raise NotFoundError(f"workspace {name!r} does not exist ({hint})")
    return create_workspace(name, actor=actor)


def create_workspace(name: str, *, actor: str = "system") -> Workspace:
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_slug

    try:
        validate_slug(name)
    except ValidationError as exc:
        raise RequestError(f"invalid workspace name {name!r}: {NAME_RULE}", kind="validation") from exc
    if not name or len(name) > 64 or name != name.lower():
        raise RequestError(f"invalid workspace name {name!r}: {NAME_RULE}", kind="validation")
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(name=name, revision=1)
            MemoryEvent.objects.create(
                workspace=workspace, revision=1, at=workspace.created_at, kind="workspace_created", actor=actor
            )
    except IntegrityError:
        return Workspace.objects.get(name=name)  # created concurrently: same result
    return workspace


# Workspace settings a person may change, with the words a page or the CLI shows for each.
REVIEW_SETTINGS = {
    "hold_durable_promotions": "hold durable promotions (a peer's permanent, PII or correcting write) for an approver",
    "hold_confined_writes": "hold every untrusted write the gate confined, not only those disputing an owner's slot",
    "review_daily_cap": "open at most this many contradiction items a day (0 pauses the detector's new items)",
}
MAX_DAILY_CAP = 10_000


def set_review_settings(workspace: Workspace, *, actor: str, **values: bool | int) -> dict[str, tuple]:
    """Change review settings in one mutation with a `settings_changed` event; returns what changed
    as name -> (before, after). Unknown names and values of the wrong type or range are refused."""
    from memory.services.mutation import mutate

    for name, value in values.items():
        if name not in REVIEW_SETTINGS:
            raise RequestError(f"unknown setting {name!r}; one of: {', '.join(REVIEW_SETTINGS)}", kind="validation")
        if name == "review_daily_cap":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DAILY_CAP:
                raise RequestError(f"the daily cap is a whole number from 0 to {MAX_DAILY_CAP:,}", kind="validation")
        elif not isinstance(value, bool):
            raise RequestError(f"{name} must be on or off", kind="validation")
    with mutate(workspace, actor=actor) as m:
        current = m.workspace  # the row mutate() locked
        changed = {name: (getattr(current, name), value) for name, value in values.items()
                   if getattr(current, name) != value}  # fmt: skip
        if changed:
            for name, (_, value) in changed.items():
                setattr(current, name, value)
                setattr(workspace, name, value)
            current.save(update_fields=list(changed))
            m.record("settings_changed", before={k: b for k, (b, _) in changed.items()},
                     after={k: a for k, (_, a) in changed.items()})  # fmt: skip
    return changed
