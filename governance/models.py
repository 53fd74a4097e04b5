"""Governance records (review items, retention policies, proposals) arrive with their issues."""
