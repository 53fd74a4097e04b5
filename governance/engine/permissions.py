"""Who may do what in a workspace: one table from each governance verb to the roles that may do it.

Pure (no Django): the services enforce it (`governance.services.acting.require_role`), the console
reads it to show or hide its buttons, the CLI to check a member named by `--as`. The roles of each
verb are in the order a refusal names them ("only owners or admins may …").

Rules beyond roles stay with their verbs: whoever made a proposal or a gold set, or wrote the fact a
durable promotion is about, may not approve it (governance.services.proposals, .gold, .verdicts).
"""

from __future__ import annotations

MEMBERS = ("owner", "approver", "admin")

VERB_ROLES: dict[str, tuple[str, ...]] = {
    # Destroying or carrying memory out of the console, and running the workspace: admins.
    "purge": ("admin",),
    "shred": ("admin",),
    "export": ("admin",),
    "import": ("admin",),
    "manage_members": ("admin",),
    "manage_tokens": ("admin",),
    "manage_webhooks": ("admin",),
    "manage_retention": ("admin",),
    "review_settings": ("admin",),
    # The review queue: contradictions and held writes are the owners', durable promotions the approvers'.
    "decide_contradiction": ("owner", "admin"),
    "decide_quarantine": ("owner", "admin"),
    "decide_promotion": ("approver", "admin"),
    # Gold sets: owners make and edit them, approvers approve them (never their own).
    "edit_gold": ("owner", "admin"),
    "approve_gold": ("approver", "admin"),
    # Scoring a set against the memory now (read-only): every member.
    "score_gold": MEMBERS,
    # Proposals: owners propose, approvers decide (never their own), any member carries them out.
    "propose": ("owner", "admin"),
    "decide_proposal": ("approver", "admin"),
    "evaluate_proposal": MEMBERS,
    "apply_proposal": MEMBERS,
    "revert_proposal": MEMBERS,
    # What a recall-settings proposal must show (answers first, or less noise): admins, as other policy.
    "set_proposal_bar": ("admin",),
}


def roles_for(verb: str) -> tuple[str, ...]:
    """The roles that may do `verb` (a KeyError for a verb the table does not know)."""
    return VERB_ROLES[verb]


def allows(roles, verb: str) -> bool:
    """Whether a member holding `roles` may do `verb`."""
    return bool(set(roles) & set(VERB_ROLES[verb]))


def refusal(verb: str, doing: str) -> str:
    """The refusal's words: "only owners or admins may propose changes"."""
    return f"only {' or '.join(role + 's' for role in VERB_ROLES[verb])} may {doing}"
