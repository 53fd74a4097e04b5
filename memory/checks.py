"""System checks (`manage.py check`, run by `migrate` and `runserver` too)."""

from __future__ import annotations

from django.conf import settings
from django.core import checks


@checks.register()
def embedder_available(app_configs, **kwargs):
    """A configured learned embedder must be able to load: say so at start-up, not at the first write."""
    name = getattr(settings, "TIDELINE_EMBEDDER", "")
    if not name:
        return []
    from memory.services.errors import RequestError
    from memory.services.recall.embedding import configured

    try:
        configured()
    except RequestError as error:  # an unknown name, or an embedder that cannot load
        return [checks.Error(f"TIDELINE_EMBEDDER={name!r} cannot be used: {error.message}",
                             hint="unset TIDELINE_EMBEDDER for model-free recall, or pip install '.[embed]'",
                             id="tideline.E001")]  # fmt: skip
    return []


@checks.register()
def key_store_matches_the_database(app_configs, **kwargs):
    """The key store and master key must be the ones this database's sealed data belongs to."""
    from django.db import DatabaseError

    from memory.services.keys import binding as key_binding

    try:
        if not key_binding.binding_table_ready():
            return []  # not migrated yet: nothing is sealed, nothing to compare
        problem = key_binding.problem()
    except DatabaseError:
        return []  # an unreachable database is reported by whatever uses it, not by this check
    if problem is None:
        return []
    return [checks.Error(f"{problem}; recall and writes are refused until this is fixed",
                         hint=key_binding.RECOVERY,
                         id="tideline.E002")]  # fmt: skip
