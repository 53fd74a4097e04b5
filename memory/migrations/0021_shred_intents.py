"""A shred is recorded as begun before its key is destroyed, so a crash in between can be finished."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0020_link_workspace_key_covered'),
    ]

    operations = [
        migrations.CreateModel(
            name='ShredIntent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('origin_key', models.CharField(max_length=900)),
                ('origin_label', models.CharField(blank=True, default='', max_length=1000)),
                ('actor', models.CharField(blank=True, default='', max_length=200)),
                ('reason', models.CharField(blank=True, default='', max_length=1000)),
                ('begun_at', models.DateTimeField(auto_now_add=True)),
                ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='shred_intents', to='memory.workspace')),
            ],
            options={
                'ordering': ['begun_at', 'id'],
                'constraints': [models.UniqueConstraint(fields=('workspace', 'origin_key'), name='shred_intent_once')],
            },
        ),
    ]
