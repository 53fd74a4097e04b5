"""Creating and finding workspaces."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from memory.models import MemoryEvent, Workspace
from memory.services.errors import NotFoundError, RequestError

NAME_RULE = "lowercase letters, digits, '-' and '_', 1 to 64 characters, starting with a letter or digit"


def get_workspace(name: str, *, create: bool = False, actor: str = "system") -> Workspace:
    """Find a workspace by name; with `create=True`, make it (and its first event) when missing."""
    workspace = Workspace.objects.filter(name=name).first()
    if workspace is not None:
        return workspace
    if not create:
        raise NotFoundError(f"workspace {name!r} does not exist (pass --create to make it)")
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
