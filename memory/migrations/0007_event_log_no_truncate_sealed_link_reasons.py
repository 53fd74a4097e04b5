"""The event log refuses TRUNCATE too; link reasons are sealed under their source fact's origin key.

TRUNCATE fires no row triggers, so 0002's UPDATE/DELETE trigger never saw it: a statement-level
trigger now refuses it on PostgreSQL (SQLite has no TRUNCATE). The one way past it is a session
that sets `tideline.allow_event_truncate = 'on'`, which only the test suite's table flush does; a
role that may set it could also drop the trigger, so this guards against accidents (a stray
`manage.py flush`, a hand-typed TRUNCATE), not against the table's owner.

Link reasons were plaintext and survived a crypto-shred. Existing reasons are sealed in batches
under the origin of the link's source fact; a reason whose origin key is already destroyed is
dropped, as it would have died with that key had it been sealed from the start.
"""

import importlib

from django.db import migrations

import memory.models

BATCH = 2000
# Must equal memory.models.LINK_REASON_FIELD: it is part of every sealed reason's binding.
LINK_REASON_FIELD = "link_reason"

PG_FORWARD = [
    """CREATE FUNCTION memory_event_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF coalesce(current_setting('tideline.allow_event_truncate', true), '') = 'on' THEN
           RETURN NULL;
         END IF;
         RAISE EXCEPTION 'memory events are append-only (TRUNCATE refused)'
           USING ERRCODE = 'integrity_constraint_violation';
       END $$""",
    """CREATE TRIGGER memory_event_no_truncate
       BEFORE TRUNCATE ON memory_memoryevent
       FOR EACH STATEMENT EXECUTE FUNCTION memory_event_refuse_truncate()""",
]
PG_BACKWARD = [
    "DROP TRIGGER IF EXISTS memory_event_no_truncate ON memory_memoryevent",
    "DROP FUNCTION IF EXISTS memory_event_refuse_truncate()",
]


def refuse_truncate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in PG_FORWARD:
            schema_editor.execute(sql)


def allow_truncate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in PG_BACKWARD:
            schema_editor.execute(sql)


def _batches(queryset, columns):
    last = 0
    while True:
        rows = list(queryset.filter(pk__gt=last).order_by("pk").values_list("pk", *columns)[:BATCH])
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def seal_reasons(apps, schema_editor):
    from memory import sealing

    Link = apps.get_model("memory", "Link")
    for rows in _batches(
        Link.objects.exclude(reason=""), ("workspace_id", "from_fact__origin_key", "reason")
    ):
        sealed = []
        for pk, workspace_id, origin_key, reason in rows:
            try:
                # create=False: a reason never mints a key; a missing one means a shredded origin.
                sealing.keyring.data_key(workspace_id, origin_key, create=False)
                value = sealing.seal(workspace_id, origin_key, LINK_REASON_FIELD, reason.encode("utf-8"))
            except sealing.KeyDestroyedError:
                value = None
            sealed.append(Link(pk=pk, sealed_reason=value))
        Link.objects.bulk_update(sealed, ["sealed_reason"])


def unseal_reasons(apps, schema_editor):
    from memory import sealing

    Link = apps.get_model("memory", "Link")
    columns = ("workspace_id", "from_fact__origin_key", "sealed_reason")
    for rows in _batches(Link.objects.filter(sealed_reason__isnull=False), columns):
        plain = []
        for pk, workspace_id, origin_key, sealed in rows:
            try:
                reason = sealing.unseal(workspace_id, origin_key, LINK_REASON_FIELD, sealed).decode("utf-8")
            except sealing.KeyDestroyedError:
                reason = ""
            plain.append(Link(pk=pk, reason=reason))
        Link.objects.bulk_update(plain, ["reason"])


def restore_sqlite_link_triggers(apps, schema_editor):
    # Going back re-adds `reason` with a default, which SQLite does by rebuilding the table; the
    # rebuild drops 0002's cross-workspace triggers, so they are put back.
    if schema_editor.connection.vendor != "sqlite":
        return
    invariants = importlib.import_module("memory.migrations.0002_database_invariants")
    for sql in invariants.SQLITE_BACKWARD + invariants.SQLITE_FORWARD:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("memory", "0006_keystore_binding")]

    operations = [
        migrations.RunPython(refuse_truncate, allow_truncate),
        migrations.AddField(
            model_name="link",
            name="sealed_reason",
            field=memory.models.SealedField(blank=True, null=True),
        ),
        migrations.RunPython(seal_reasons, unseal_reasons),
        # Forward a no-op; backward it runs after `reason` is back (operations reverse in order).
        migrations.RunPython(migrations.RunPython.noop, restore_sqlite_link_triggers),
        migrations.RemoveField(model_name="link", name="reason"),
    ]
