"""The Celery app: `celery -A curriculum worker` runs the verifier."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "curriculum.settings")
# One core per process, set before numpy loads: the worker's pool and gunicorn already run as
# many processes as there are cores, and a BLAS thread pool in each would oversubscribe them,
# its spinning threads charged to the engine's CPU budget (VERIFY_ENGINE_SECONDS) by the load.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

app = Celery("curriculum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["curriculum"])


# Celery's Django fixup closes every database connection before and after each task unless
# told to reuse them: a worker then connects to PostgreSQL twice per batch of checks. Instead,
# tasks keep their connection as web requests do, under CONN_MAX_AGE and CONN_HEALTH_CHECKS.
app.conf.CELERY_DB_REUSE_MAX = 10**9


@task_prerun.connect
@task_postrun.connect
def _connections_kept_as_requests_keep_them(**kwargs) -> None:
    from django.db import close_old_connections

    close_old_connections()
