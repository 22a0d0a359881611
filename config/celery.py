"""The Celery application. Settings come from Django's, under the CELERY_ prefix."""
import os
import warnings

from celery import Celery, signals

from config import outages
from config.worker_liveness import ConsumingLivenessFile
from parseval.evaluation.threads import one_blas_thread

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# A worker process is the unit of parallelism (--concurrency, one per core). numpy's BLAS would otherwise start
# a thread per core in every process for the bootstrap's products, and the processes' threads would contend for
# the same cores (measured on the EASY command at 4x: 4 % more CPU for the same result). Set before numpy is
# imported; a deployment that wants more threads sets these itself.
one_blas_thread()

app = Celery("parseval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The compose health check reads the file this step keeps fresh while the worker consumes.
app.steps["consumer"].add(ConsumingLivenessFile)


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _quiet_outages(logger, **kwargs):
    # A worker's handlers are Celery's, not those of Django's LOGGING: a handled outage is two lines there too.
    outages.install(logger.handlers)


@signals.celeryd_after_setup.connect
def _no_cancel_warning(**kwargs):
    # On a lost broker connection a task already running goes on (acks_late: its message comes back after the
    # visibility timeout, and the second delivery is a no-op, evaluation.pipeline.delivery); Celery 5 warns about its future
    # default at a worker's first reconnection, a dozen lines in its log. The choice is ours; the warning is not needed.
    # (After Celery's logging set-up, which shows all its deprecation warnings.)
    warnings.filterwarnings("ignore", message=r"(?s).*worker_cancel_long_running_tasks_on_connection_loss")
