"""WSGI entry point: gunicorn errorkb.wsgi."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

django_application = get_wsgi_application()

from errorkb.kb.fastpath import ResponseCache  # noqa: E402  (needs Django set up)

application = ResponseCache.from_settings(django_application)
