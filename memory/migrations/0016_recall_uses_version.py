"""Recall uses that every process sees (memory.services.recall.reinforcement): the workspace counts written
batches of uses, each fact keeps the count of the batch that last wrote it, indexed to find them."""

import importlib

from django.db import migrations, models

# SQLite rebuilds memory_fact to add a column; 0002's cross-workspace triggers on memory_link name
# that table, so they are dropped for the rebuild and put back after it, as 0008 does.
_link_triggers = importlib.import_module("memory.migrations.0008_held_facts_and_review_settings")._link_triggers


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0015_graph_partition"),
    ]

    operations = [
        migrations.RunPython(_link_triggers(create=False), _link_triggers(create=True)),
        migrations.AddField(
            model_name="fact",
            name="uses_version",
            field=models.BigIntegerField(default=0, db_default=0),
        ),
        migrations.AddField(
            model_name="workspace",
            name="uses_version",
            field=models.BigIntegerField(default=0, db_default=0),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(fields=["workspace", "uses_version"], name="fact_uses_idx"),
        ),
        migrations.RunPython(_link_triggers(create=True), _link_triggers(create=False)),
    ]
