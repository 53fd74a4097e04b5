"""Governance's console pages, under the console's /w/<workspace>/ prefix (the review queue comes next)."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "governance"

urlpatterns: list[URLPattern] = []
