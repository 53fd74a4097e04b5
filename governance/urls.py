"""Governance's console pages, under the console's /w/<workspace>/ prefix."""

from __future__ import annotations

from django.urls import path

from governance import (
    views,
    views_bulk,
    views_exports,
    views_gold,
    views_import,
    views_members,
    views_proposals,
    views_purge,
    views_retention,
    views_shred,
    views_tokens,
)

app_name = "governance"

urlpatterns = [
    path("w/<slug:workspace>/review/", views.review_list, name="review-list"),
    path("w/<slug:workspace>/shred/", views_shred.shred_page, name="shred"),
    path("w/<slug:workspace>/members/", views_members.members_page, name="members"),
    path("w/<slug:workspace>/tokens/", views_tokens.tokens_page, name="tokens"),
    path("w/<slug:workspace>/exports/", views_exports.exports_page, name="exports"),
    path("w/<slug:workspace>/exports/facts/", views_exports.export_facts, name="export-facts"),
    path("w/<slug:workspace>/exports/events/", views_exports.export_events, name="export-events"),
    path("w/<slug:workspace>/exports/graph/", views_exports.export_graph, name="export-graph"),
    path("w/<slug:workspace>/exports/import/", views_import.import_page, name="import"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/", views_import.import_job, name="import-job"),
    path("w/<slug:workspace>/exports/import/<int:job_id>/decide/", views_import.import_decide, name="import-decide"),
    path("workspaces/new/", views_members.workspace_create, name="workspace-create"),
    path("w/<slug:workspace>/proposals/", views_proposals.proposals_page, name="proposals"),
    path("w/<slug:workspace>/proposals/<int:proposal_id>/", views_proposals.proposal_detail, name="proposal-detail"),
    path("w/<slug:workspace>/gold/", views_gold.gold_page, name="gold"),
    path("w/<slug:workspace>/gold/<int:gold_id>/", views_gold.gold_detail, name="gold-detail"),
    path("w/<slug:workspace>/gold/from-playground/", views_gold.gold_from_playground, name="gold-from-playground"),
    path("w/<slug:workspace>/purge/", views_purge.purge_page, name="purge"),
    path("w/<slug:workspace>/retention/", views_retention.retention_page, name="retention"),
    path("w/<slug:workspace>/review/settings/", views.review_settings, name="review-settings"),
    path("w/<slug:workspace>/review/bulk/", views_bulk.review_bulk, name="review-bulk"),
    path("w/<slug:workspace>/review/<str:item_id>/", views.review_detail, name="review-detail"),
    path("w/<slug:workspace>/review/<str:item_id>/decide/", views_bulk.keeps_queue_filters(views.review_decide), name="review-decide"),
]
