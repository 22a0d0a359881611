"""The Celery application. Settings come from Django's, under the CELERY_ prefix."""
import os

from celery import Celery

from config.worker_liveness import ConsumingLivenessFile

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("parseval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The compose health check reads the file this step keeps fresh while the worker consumes.
app.steps["consumer"].add(ConsumingLivenessFile)
