"""What a workspace asks of a recall-settings proposal (`governance.engine.proposals.Bar`): by default
that it ranks answers better; with a noise weight, that it raises the value of an answer, each fact
returned beside it that does not answer costing that much, while finding it within k may drop a
little. An admin sets it; the change is a `settings_changed` event, and evaluations made under
another bar are stale (their verdict was judged on other terms)."""

from __future__ import annotations

import math

from governance.engine.proposals import Bar
from governance.models import ProposalBar
from governance.services.acting import acting_name, event_actor, require_role
from memory.models import Workspace
from memory.services.errors import RequestError
from memory.services.mutation import mutate

MAX_NOISE_WEIGHT = 0.2  # one fact that does not answer costs at most a fifth of an answer found first
MAX_HIT_ALLOWANCE = 0.1


def asks(workspace: Workspace) -> Bar:
    row = ProposalBar.objects.filter(workspace=workspace).first()
    return Bar(row.noise_weight, row.hit_allowance) if row is not None else Bar()


def _number(value, name: str, high: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or not 0 <= number <= high:
        raise RequestError(f"{name} is a number from 0 to {high:g}", kind="validation")
    return number


def set_bar(workspace: Workspace, *, noise_weight, hit_allowance, user=None, actor: str) -> Bar:
    """Set the workspace's bar (admins); one `settings_changed` event when it changed."""
    require_role(user, workspace, "set_proposal_bar", "set the bar proposals must clear")
    wanted = Bar(_number(noise_weight, "the noise weight", MAX_NOISE_WEIGHT),
                 _number(hit_allowance, "the hit@k allowance", MAX_HIT_ALLOWANCE))  # fmt: skip
    who = acting_name(user, actor)
    with mutate(workspace, actor=event_actor(who)) as m:
        before = asks(workspace)
        if wanted != before:
            ProposalBar.objects.update_or_create(workspace=workspace, defaults={
                "noise_weight": wanted.noise_weight, "hit_allowance": wanted.hit_allowance, "updated_by_name": who})  # fmt: skip
            m.record("settings_changed", what="proposal_bar", before=before.as_dict(), after=wanted.as_dict())
    return wanted
