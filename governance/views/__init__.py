"""Governance's console pages, one module per feature."""
