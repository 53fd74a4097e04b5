from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("governance", "0008_api_call_counts"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="starts",
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
