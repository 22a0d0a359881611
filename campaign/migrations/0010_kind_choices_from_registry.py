# The kinds come from the registry (campaign.kinds.choices): no migration when a kind is added.

import campaign.kinds
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0009_draw_key_team_figures'),
    ]

    operations = [
        migrations.AlterField(
            model_name='campaign',
            name='kind',
            field=models.CharField(choices=campaign.kinds.choices, default='easy', max_length=20),
        ),
    ]
