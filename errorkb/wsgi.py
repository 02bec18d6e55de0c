"""WSGI entry point: gunicorn errorkb.wsgi."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

application = get_wsgi_application()

# What is loaded by now lives as long as the process, so it is moved out of the garbage
# collector's reach: a full collection would otherwise walk all of it (about 130,000
# objects, 60 ms on two cores) in the middle of whichever request triggered it.
gc.freeze()
