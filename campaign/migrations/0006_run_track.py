from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0005_run_scoring_delivery'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='track',
            field=models.CharField(blank=True, default='', help_text='Dependency campaigns: gold-tokens or raw-text (see campaign.tracks)', max_length=20),
        ),
    ]
