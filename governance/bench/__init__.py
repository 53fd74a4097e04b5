"""Measurements of governance's rules on labelled data (run as `python -m governance.bench.<name>`)."""

# The review queue among `tideline bench`'s console pages (see memory.bench.pages).
CONSOLE_PAGES = "governance.bench.queue:console_pages"
