"""The Celery app: `celery -A curriculum worker` runs the verifier."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "curriculum.settings")

app = Celery("curriculum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["curriculum"])
