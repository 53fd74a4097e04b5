"""The cache every process must agree on (rate limits, queued graph runs) is shared between processes."""

import os
import subprocess
import sys
from pathlib import Path

from django.core.cache import cache

ROOT = Path(__file__).resolve().parents[3]


def test_a_count_made_in_another_process_is_seen_here():
    cache.delete("tideline:test:shared")
    script = ("import django; django.setup(); from django.core.cache import cache; "
              "cache.add('tideline:test:shared', 1, 60); print(cache.incr('tideline:test:shared'))")  # fmt: skip
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tideline_site.settings"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
    assert cache.get("tideline:test:shared") == 2  # the other process's counting, read here
    assert cache.incr("tideline:test:shared") == 3


def test_an_unknown_cache_choice_is_refused_at_start():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tideline_site.settings", "TIDELINE_CACHE": "memcached"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode != 0
    assert "TIDELINE_CACHE must be 'file' or 'database'" in done.stderr


def test_with_the_database_cache_migrate_makes_its_table(transactional_db, settings):
    from django.core.cache import caches
    from django.core.management import call_command
    from django.db import connection

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                                   "LOCATION": "tideline_cache_test"}}  # fmt: skip
    try:
        call_command("migrate", verbosity=0)  # nothing to apply: the post-migrate step still runs
        assert "tideline_cache_test" in connection.introspection.table_names()
        assert caches["default"].add("tideline:test:db", 1, 60) and caches["default"].incr("tideline:test:db") == 2
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS tideline_cache_test")
