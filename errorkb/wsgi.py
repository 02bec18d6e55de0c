"""WSGI entry point: gunicorn errorkb.wsgi."""

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

application = get_wsgi_application()

# The URLconf, and with it every view and what the views import, loaded now rather than
# by the first request, so that it is frozen below with the rest.
import_module(settings.ROOT_URLCONF)

# What is loaded by now lives as long as the process, so it is moved out of the garbage
# collector's reach: a full collection would otherwise walk all of it in
# the middle of whichever request triggered it.
gc.freeze()
