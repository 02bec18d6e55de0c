"""WSGI entry point: gunicorn errorkb.wsgi."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

application = get_wsgi_application()
