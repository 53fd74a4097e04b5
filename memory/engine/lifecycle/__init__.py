"""A fact's end: retention expiry and the provenance cascade of a purge."""
