"""Measurements of governance's rules on labelled data (run as `python -m bench.governance.<name>`)."""
