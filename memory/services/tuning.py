"""A workspace's tuning, versioned: read what is in force, write a new version, go back to an old one.

Each change is one mutation: the workspace's `tuning` and `tuning_version` move together, the
version is kept as a `TuningVersion` row, and a `settings_changed` event records the diff. Recall
indexes in every process re-read the tuning when the revision moves, so the next recall anywhere
ranks with it and says which version did.
"""

from __future__ import annotations

from typing import Any

from memory.engine import tuning as T
from memory.models import TuningVersion, Workspace
from memory.services.errors import RequestError
from memory.services.mutation import mutate


def current(workspace: Workspace) -> tuple[int, T.Tuning]:
    """(version, tuning) in force (read fresh from the database)."""
    version, values = Workspace.objects.filter(pk=workspace.pk).values_list("tuning_version", "tuning").get()
    return version, T.parse(values)


def parse_or_refuse(values: Any) -> T.Tuning:
    try:
        return T.parse(values)
    except T.TuningError as error:
        raise RequestError(str(error), kind="validation") from error


def set_tuning(workspace: Workspace, values: dict[str, Any], *, actor: str, reason: str = "", source: str = "manual",
               expect_version: int | None = None) -> int:  # fmt: skip
    """Write `values` (every knob; missing ones take defaults) as the next version; returns it.

    `expect_version`: refuse (kind `conflict`) when the version in force has moved on since the
    caller looked, so a proposal never overwrites a change it was not evaluated against."""
    tuning = parse_or_refuse(values)
    with mutate(workspace, actor=actor) as m:
        locked = m.workspace
        before = T.parse(locked.tuning)
        if expect_version is not None and locked.tuning_version != expect_version:
            raise RequestError(
                f"the settings moved to version {locked.tuning_version} since version {expect_version} was read",
                kind="conflict",
            )
        version = locked.tuning_version + 1
        locked.tuning, locked.tuning_version = tuning.as_dict(), version
        locked.save(update_fields=["tuning", "tuning_version"])
        TuningVersion.objects.create(workspace=locked, version=version, values=tuning.as_dict(), created_at=m.now,
                                     actor=actor, reason=reason[:1000], source=source[:200])  # fmt: skip
        m.record("settings_changed", reason=reason, what="tuning", version=version, source=source,
                 changes=[{k: c[k] for k in ("name", "before", "after")} for c in T.diff(before, tuning)])  # fmt: skip
    workspace.tuning, workspace.tuning_version = tuning.as_dict(), version
    return version


def values_of(workspace: Workspace, version: int) -> T.Tuning:
    """The tuning of one past version (0: the defaults)."""
    if version == 0:
        return T.DEFAULT
    row = TuningVersion.objects.filter(workspace=workspace, version=version).values_list("values", flat=True).first()
    if row is None:
        raise RequestError(f"this workspace has no settings version {version}", kind="not_found")
    return T.parse(row)


def history(workspace: Workspace, *, limit: int = 50) -> list[TuningVersion]:
    return list(TuningVersion.objects.filter(workspace=workspace).order_by("-version")[:limit])


def changes_from_text(workspace: Workspace, typed: dict[str, str], *, decimals: int = 4) -> dict[str, float | int]:
    """The knobs a person changed, from text (a form's fields, a CLI's name=value pairs): values equal to
    the ones in force (as shown, rounded to `decimals`) are no change. Raises RequestError on a non-number."""
    unknown = sorted(set(typed) - set(T.KNOB))
    if unknown:
        raise RequestError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(T.KNOB)}", kind="validation")
    _, in_force = current(workspace)
    out: dict[str, float | int] = {}
    for name, text in typed.items():
        text = str(text).strip()
        if not text:
            continue
        try:
            value = float(text)
        except ValueError:
            raise RequestError(f"{name} must be a number, got {text[:40]!r}", kind="validation") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise RequestError(f"{name} must be a finite number", kind="validation")
        if abs(value - getattr(in_force, name)) <= 0.5 * 10**-decimals:  # as shown: no change
            continue
        out[name] = int(value) if T.KNOB[name].integer and value == int(value) else value
    return out
