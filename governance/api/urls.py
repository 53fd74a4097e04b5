"""`/api/v1/…`: the agent API (docs/ARCHITECTURE.md §6)."""

from django.urls import path, re_path

from governance.api import schema, views

app_name = "api"

urlpatterns = [
    path("whoami", views.whoami, name="whoami"),
    path("memories", views.memories, name="memories"),
    path("memories/<str:memory_id>", views.memory, name="memory"),
    path("recall", views.recall, name="recall"),
    path("search", views.search, name="search"),
    path("context", views.context, name="context"),
    path("explain", views.explain, name="explain"),
    path("feedback", views.feedback, name="feedback"),
    path("auto-recall", views.auto_recall, name="auto-recall"),
    path("manage", views.manage, name="manage"),
    path("openapi.json", schema.openapi_json, name="openapi"),
    path("docs", schema.docs, name="docs"),
    re_path(r"^(?P<rest>.*)$", views.not_found, name="api-not-found"),
]
