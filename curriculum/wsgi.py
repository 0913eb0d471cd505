"""WSGI entry point (gunicorn curriculum.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "curriculum.settings")
application = get_wsgi_application()
