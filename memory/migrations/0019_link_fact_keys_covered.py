"""Drop the link table's single-column foreign keys to its two facts on PostgreSQL, which 0002's
composite keys already enforce.

`link_from_same_workspace` (workspace, from_fact) and `link_to_same_workspace` (workspace, to_fact)
reference the fact table's (workspace, id): no link can name a fact that does not exist, and a NULL
target is skipped by both kinds alike. Each foreign key is one more check per link written, and a
dream adds millions: 10,000 links took 672 ms with the single-column keys and 466 ms without them
(median of three, a million-fact workspace). Deleting a fact still removes its links (the composite
keys cascade, and Django's collector deletes them first anyway).

On SQLite nothing changes in the database: its tables keep their declared references, and 0002's
triggers refuse a link to a missing or foreign fact. Only the state changes apart from the SQL, as
in 0018, because an `AlterField` there would rebuild the table and lose those triggers.
"""

import django.db.models.deletion
from django.db import migrations, models

# The names Django gave these keys (a hash of table and column): fixed for this table.
_KEYS = {
    "from_fact_id": "memory_link_from_fact_id_2aa16579_fk_memory_fact_id",
    "to_fact_id": "memory_link_to_fact_id_94bef7d4_fk_memory_fact_id",
}


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in _KEYS.values():
        schema_editor.execute(f"ALTER TABLE memory_link DROP CONSTRAINT IF EXISTS {schema_editor.quote_name(name)}")


def _restore(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column, name in _KEYS.items():
        schema_editor.execute(
            f"ALTER TABLE memory_link ADD CONSTRAINT {schema_editor.quote_name(name)} FOREIGN KEY ({column}) "
            f"REFERENCES memory_fact (id) DEFERRABLE INITIALLY DEFERRED"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0018_link_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="link",
                    name="from_fact",
                    field=models.ForeignKey(db_constraint=False, db_index=False,
                                            on_delete=django.db.models.deletion.CASCADE,
                                            related_name="outbound_links", to="memory.fact"),  # fmt: skip
                ),
                migrations.AlterField(
                    model_name="link",
                    name="to_fact",
                    field=models.ForeignKey(blank=True, db_constraint=False, null=True,
                                            on_delete=django.db.models.deletion.CASCADE,
                                            related_name="inbound_links", to="memory.fact"),  # fmt: skip
                ),
            ],
            database_operations=[migrations.RunPython(_drop, _restore)],
        ),
    ]
