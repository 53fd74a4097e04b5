"""Helpers shared by the apps and the site, below both: HTMX requests, list pagers, starting the web
processes and watching the worker. Imports Django and libraries only, never memory, governance,
bench or tideline_site."""
