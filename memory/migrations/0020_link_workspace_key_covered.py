"""Drop the link table's foreign key to its workspace on PostgreSQL, which 0002's composite keys
already enforce.

Every link names its source fact, and `link_from_same_workspace` makes (workspace, from_fact) a
fact's own (workspace, id): the link's workspace is its source fact's, and the fact table's own key
makes that workspace exist. The key was deferred, so each link written left one more check for its
commit: 10,000 dream links into a million-fact workspace, in a rolled-back transaction with the
deferred checks forced, took about 380 ms with it and 330 ms without (three rounds of three
batches). A workspace still cannot be deleted while it holds facts, so none can lose its links'
workspace.

On SQLite nothing changes in the database, as in 0019: an `AlterField` there would rebuild the
table and lose 0002's triggers; only the state changes.
"""

import django.db.models.deletion
from django.db import migrations, models

# The name Django gave this key (a hash of table and column): fixed for this table.
_KEY = "memory_link_workspace_id_0511962b_fk_memory_workspace_id"


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE memory_link DROP CONSTRAINT IF EXISTS {schema_editor.quote_name(_KEY)}")


def _restore(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE memory_link ADD CONSTRAINT {schema_editor.quote_name(_KEY)} FOREIGN KEY (workspace_id) "
            f"REFERENCES memory_workspace (id) DEFERRABLE INITIALLY DEFERRED"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0019_link_fact_keys_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="link",
                    name="workspace",
                    field=models.ForeignKey(db_constraint=False, db_index=False,
                                            on_delete=django.db.models.deletion.PROTECT,
                                            related_name="links", to="memory.workspace"),  # fmt: skip
                ),
            ],
            database_operations=[migrations.RunPython(_drop, _restore)],
        ),
    ]
