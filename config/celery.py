"""The Celery application. Settings come from Django's, under the CELERY_ prefix."""
import os

from celery import Celery

from config.worker_liveness import ConsumingLivenessFile

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# A worker process is the unit of parallelism (--concurrency, one per core). numpy's BLAS would otherwise start
# a thread per core in every process for the bootstrap's products, and the processes' threads would contend for
# the same cores (measured on the EASY command at 4x: 4 % more CPU for the same result). Set before numpy is
# imported; a deployment that wants more threads sets these itself.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

app = Celery("parseval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The compose health check reads the file this step keeps fresh while the worker consumes.
app.steps["consumer"].add(ConsumingLivenessFile)
