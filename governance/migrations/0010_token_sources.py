"""API tokens carry a source type (the trust of what speaks through them).

New tokens default to the untrusted `tool_output`. Existing tokens are given the source of whom
they act for, the trust their writes had in practice: `owner` tokens become `owner_message`,
channel tokens (one peer, or a `channel:C/*` gateway) `channel_message`. Before, a write that named
no source type was stored as `legacy`, trusted like the owner's own words; now it is stored as the
token's source, and a write may name a less trusted source but never a more trusted one. A token
that serves a tool pipeline or a retrieval step should be re-made with `--source tool_output` (or
`retrieved_document`): `tideline tokens list` shows each token's source.
"""

from django.db import migrations, models

SOURCE_TYPES = ["user_instruction", "owner_message", "channel_message", "tool_output", "retrieved_document",
                "compaction", "extraction", "dream"]  # fmt: skip


def sources_for_existing_tokens(apps, schema_editor):
    ApiToken = apps.get_model("governance", "ApiToken")
    ApiToken.objects.filter(scope="owner").update(source_type="owner_message")
    ApiToken.objects.filter(scope__startswith="channel:").update(source_type="channel_message")


class Migration(migrations.Migration):

    dependencies = [
        ("governance", "0009_import_job_starts"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="source_type",
            field=models.CharField(default="tool_output", max_length=32),
        ),
        migrations.RunPython(sources_for_existing_tokens, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.CheckConstraint(condition=models.Q(("source_type__in", SOURCE_TYPES)),
                                              name="api_token_source_type"),
        ),
    ]
