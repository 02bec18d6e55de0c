"""WSGI entry point: gunicorn errorkb.wsgi."""

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

YOUNG_OBJECTS = 10_000

application = get_wsgi_application()

# The URLconf, and with it every view and what the views import, loaded now rather than
# by the first request, so that it is frozen below with the rest.
import_module(settings.ROOT_URLCONF)

# What is loaded by now lives as long as the process, so it is moved out of the garbage
# collector's reach: a full collection would otherwise walk all of it in
# the middle of whichever request triggered it.
gc.freeze()
# A young collection once 10,000 more objects live, rather than Python's 700: more than a
# request holds at once (a list page's records, runs and claims), so what a request makes
# dies young instead of being moved to the old generation, whose full collections would
# stall whichever request they land in (docs/benchmarks.md).
gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
