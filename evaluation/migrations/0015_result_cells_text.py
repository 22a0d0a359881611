"""Each result's cells as the results JSON writes them, kept once (issue 39: the download with every cell reads
them rather than building them per request). Results stored before are written by their first download."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0014_significance_arrays'),
    ]

    operations = [
        migrations.CreateModel(
            name='ResultCellsText',
            fields=[
                ('result', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='evaluation.result')),
                ('version', models.PositiveSmallIntegerField()),
                ('text', models.TextField()),
            ],
        ),
    ]
