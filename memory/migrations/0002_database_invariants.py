"""Invariants Django cannot declare: links stay inside one workspace; events are append-only.

PostgreSQL gets composite foreign keys (a link's (workspace, fact) pair must exist in the fact
table) and a trigger that refuses UPDATE and DELETE on events. SQLite, which cannot add
constraints to an existing table, gets triggers that refuse a cross-workspace link.
"""

from django.db import migrations

PG_FORWARD = [
    """ALTER TABLE memory_link ADD CONSTRAINT link_from_same_workspace
       FOREIGN KEY (workspace_id, from_fact_id) REFERENCES memory_fact (workspace_id, id)
       ON DELETE CASCADE""",
    """ALTER TABLE memory_link ADD CONSTRAINT link_to_same_workspace
       FOREIGN KEY (workspace_id, to_fact_id) REFERENCES memory_fact (workspace_id, id)
       ON DELETE CASCADE""",
    """CREATE FUNCTION memory_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION 'memory events are append-only (%% refused)', TG_OP
           USING ERRCODE = 'integrity_constraint_violation';
       END $$""",
    """CREATE TRIGGER memory_event_no_update_or_delete
       BEFORE UPDATE OR DELETE ON memory_memoryevent
       FOR EACH ROW EXECUTE FUNCTION memory_event_append_only()""",
]
PG_BACKWARD = [
    "DROP TRIGGER IF EXISTS memory_event_no_update_or_delete ON memory_memoryevent",
    "DROP FUNCTION IF EXISTS memory_event_append_only()",
    "ALTER TABLE memory_link DROP CONSTRAINT IF EXISTS link_to_same_workspace",
    "ALTER TABLE memory_link DROP CONSTRAINT IF EXISTS link_from_same_workspace",
]

_SQLITE_LINK_CHECK = """
CREATE TRIGGER memory_link_same_workspace_{op}
BEFORE {op} ON memory_link
WHEN (SELECT workspace_id FROM memory_fact WHERE id = NEW.from_fact_id) IS NOT NEW.workspace_id
  OR (NEW.to_fact_id IS NOT NULL
      AND (SELECT workspace_id FROM memory_fact WHERE id = NEW.to_fact_id) IS NOT NEW.workspace_id)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: a link cannot cross workspaces');
END
"""
SQLITE_FORWARD = [_SQLITE_LINK_CHECK.format(op="INSERT"), _SQLITE_LINK_CHECK.format(op="UPDATE")]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS memory_link_same_workspace_INSERT",
    "DROP TRIGGER IF EXISTS memory_link_same_workspace_UPDATE",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial_records")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": PG_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": PG_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        )
    ]
