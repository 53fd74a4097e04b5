import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('governance', '0007_api_tokens'),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiCallCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('minute', models.BigIntegerField()),
                ('calls', models.PositiveIntegerField(default=0)),
                ('token', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='governance.apitoken')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('token', 'minute'), name='api_call_count_unique')],
            },
        ),
    ]
