from django.db import migrations, models

import campaign.models


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0006_run_track'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='converted_file',
            field=models.FileField(blank=True, help_text='The EASY XML (a zip) converted from the uploaded file, if any', max_length=300, upload_to=campaign.models.converted_upload_to),
        ),
        migrations.AddField(
            model_name='run',
            name='converter',
            field=models.CharField(blank=True, help_text='The converter that made converted_file', max_length=40),
        ),
    ]
