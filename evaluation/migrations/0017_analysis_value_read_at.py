# The last reading of a kept analysis value, for the upkeep's sweep (evaluation.analysis.precomputed.sweep).
# Values kept before it count as read now: they get one idle period before the sweep may remove them.

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0016_analysis_values'),
    ]

    operations = [
        migrations.AddField(
            model_name='analysisvalue',
            name='read_at',
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
    ]
