"""Governance's console pages are mounted by the site under their own namespace."""

from django.urls import get_resolver


def test_the_site_mounts_the_governance_namespace_at_the_console_root():
    prefix, resolver = get_resolver().namespace_dict["governance"]
    assert prefix == "" and resolver.urlconf_module.__name__ == "governance.urls"
