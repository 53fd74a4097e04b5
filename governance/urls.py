"""Governance's console pages, under the console's /w/<workspace>/ prefix."""

from __future__ import annotations

from django.urls import path

from governance.views import (
    exports,
    gold,
    imports,
    members,
    proposals,
    purge,
    retention,
    review,
    review_bulk,
    shred,
    tokens,
)

app_name = "governance"

urlpatterns = [
    path("w/<slug:workspace>/review/", review.review_list, name="review-list"),
    path("w/<slug:workspace>/shred/", shred.shred_page, name="shred"),
    path("w/<slug:workspace>/shred/apply/", shred.shred_apply, name="shred-apply"),
    path("w/<slug:workspace>/shred/finish/", shred.shred_finish, name="shred-finish"),
    path("w/<slug:workspace>/members/", members.members_page, name="members"),
    path("w/<slug:workspace>/members/add/", members.member_add, name="member-add"),
    path("w/<slug:workspace>/members/create/", members.member_create, name="member-create"),
    path("w/<slug:workspace>/members/roles/", members.member_roles, name="member-roles"),
    path("w/<slug:workspace>/members/remove/", members.member_remove, name="member-remove"),
    path("w/<slug:workspace>/tokens/", tokens.tokens_page, name="tokens"),
    path("w/<slug:workspace>/tokens/create/", tokens.token_create, name="token-create"),
    path("w/<slug:workspace>/tokens/revoke/", tokens.token_revoke, name="token-revoke"),
    path("w/<slug:workspace>/exports/", exports.exports_page, name="exports"),
    path("w/<slug:workspace>/exports/facts/", exports.export_facts, name="export-facts"),
    path("w/<slug:workspace>/exports/events/", exports.export_events, name="export-events"),
    path("w/<slug:workspace>/exports/graph/", exports.export_graph, name="export-graph"),
    path("w/<slug:workspace>/exports/import/", imports.import_page, name="import"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/", imports.import_job, name="import-job"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/decide/", imports.import_decide, name="import-decide"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/confirm/", imports.import_confirm, name="import-confirm"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/cancel/", imports.import_cancel, name="import-cancel"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/resume/", imports.import_resume, name="import-resume"),
    path("workspaces/new/", members.workspace_create, name="workspace-create"),
    path("w/<slug:workspace>/proposals/", proposals.proposals_page, name="proposals"),
    path("w/<slug:workspace>/proposals/telemetry/", proposals.propose_telemetry, name="propose-telemetry"),
    path("w/<slug:workspace>/proposals/misses/", proposals.propose_misses, name="propose-misses"),
    path("w/<slug:workspace>/proposals/tuning/", proposals.propose_tuning, name="propose-tuning"),
    path("w/<slug:workspace>/proposals/retraction/", proposals.propose_retraction, name="propose-retraction"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/", proposals.proposal_detail, name="proposal-detail"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/evaluate/", proposals.proposal_evaluate, name="proposal-evaluate"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/approve/", proposals.proposal_approve, name="proposal-approve"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/reject/", proposals.proposal_reject, name="proposal-reject"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/apply/", proposals.proposal_apply, name="proposal-apply"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/revert/", proposals.proposal_revert, name="proposal-revert"),
    path("w/<slug:workspace>/gold/", gold.gold_page, name="gold"),
    path("w/<slug:workspace>/gold/<int:gold_id>/", gold.gold_detail, name="gold-detail"),
    path("w/<slug:workspace>/gold/from-playground/", gold.gold_from_playground, name="gold-from-playground"),
    path("w/<slug:workspace>/purge/", purge.purge_page, name="purge"),
    path("w/<slug:workspace>/purge/apply/", purge.purge_apply, name="purge-apply"),
    path("w/<slug:workspace>/retention/", retention.retention_page, name="retention"),
    path("w/<slug:workspace>/review/settings/", review.review_settings, name="review-settings"),
    path("w/<slug:workspace>/review/bulk/", review_bulk.review_bulk, name="review-bulk"),
    path("w/<slug:workspace>/review/<str:item_id>/", review.review_detail, name="review-detail"),
    path("w/<slug:workspace>/review/<str:item_id>/decide/", review_bulk.keeps_queue_filters(review.review_decide), name="review-decide"),
]
