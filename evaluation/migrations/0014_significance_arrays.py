"""Significance stored as arrays (issue 39): one row per figure of a set (every pair's headline) and one row per
figure and second result of a pair (the pairs' genre × type tables), instead of a row per pair and figure.

The old rows are not converted: significance is recomputed from the kept per-sentence rows. The migration
drops the old sets with their rows and counts one more significance request for every campaign that had
one, so that the recovery sweep (evaluation.pipeline.recovery) asks the worker again; until it has, the
pages say the tests are not computed yet, as for a new campaign.
"""
import django.db.models.deletion
from django.db import migrations, models
from django.utils import timezone


def drop_sets_and_ask_again(apps, schema_editor):
    SignificanceSet = apps.get_model("evaluation", "SignificanceSet")
    SignificanceRequest = apps.get_model("evaluation", "SignificanceRequest")
    campaigns = sorted(set(SignificanceSet.objects.values_list("campaign_id", flat=True)))
    if schema_editor.connection.vendor == "postgresql":  # checked now: the tables are altered next, in this transaction
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    SignificanceSet.objects.all().delete()
    for campaign_id in campaigns:
        marker, _ = SignificanceRequest.objects.get_or_create(campaign_id=campaign_id)
        marker.requested = max(marker.requested, marker.computed) + 1
        marker.requested_at = timezone.now()
        marker.save(update_fields=["requested", "requested_at"])


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0015_page_language'),
        ('evaluation', '0013_analysis_run_analysis'),
    ]

    operations = [
        migrations.RunPython(drop_sets_and_ask_again, migrations.RunPython.noop),
        migrations.DeleteModel(name='PairedDifference'),
        migrations.AddField(
            model_name='significanceset',
            name='stored',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.CreateModel(
            name='SignificanceFigure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('track', models.CharField(blank=True, max_length=40)),
                ('figure', models.CharField(max_length=100)),
                ('context', models.CharField(max_length=64)),
                ('results', models.JSONField(default=list)),
                ('family', models.PositiveIntegerField(default=0)),
                ('heads', models.BinaryField()),
                ('set', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='figures',
                                          to='evaluation.significanceset')),
            ],
            options={
                'indexes': [models.Index(fields=['set', 'figure'], name='evaluation__set_id_e2d4ce_idx')],
                'constraints': [models.UniqueConstraint(fields=('set', 'track', 'figure'),
                                                        name='significance_figure_once')],
            },
        ),
        migrations.CreateModel(
            name='SignificanceTable',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('context', models.CharField(max_length=64)),
                ('figure', models.CharField(max_length=100)),
                ('others', models.JSONField(default=list)),
                ('strata', models.JSONField(default=list)),
                ('types', models.JSONField(default=list)),
                ('heads', models.BinaryField()),
                ('cells', models.BinaryField()),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+',
                                               to='campaign.campaign')),
                ('result_b', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+',
                                               to='evaluation.result')),
            ],
            options={
                'indexes': [models.Index(fields=['context', 'result_b', 'figure'], name='evaluation__context_86d588_idx'),
                            models.Index(fields=['campaign'], name='evaluation__campaig_5cd671_idx')],
            },
        ),
    ]
