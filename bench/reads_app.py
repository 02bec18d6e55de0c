"""The cold entry reads alone, for bench/serve.py's "reads" rows: a bound on any rendering.

Django with no middleware and two views that do what a cold GET of a record or an entry
page reads (the entry's token, the entry, its neighbours, its scenarios and runs, and
for the page its stored rendering: errorkb's own functions, on the production settings'
connection), then answer the bytes errorkb gave for that address, saved by serve.py, so
nothing is built. Each is its view with the middleware, DRF or the templates, and the
building of the body taken out: no rendering that makes these reads can be faster.

serve.py starts it from bench/, as it starts errorkb, with READS_BODIES=<its saved
bodies> and PYTHONPATH=<the project>: `gunicorn reads_app:application ...`.
"""

import os
from functools import cache
from pathlib import Path

import django
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")
django.setup()
settings.MIDDLEWARE = []
settings.ROOT_URLCONF = __name__

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.http import Http404, HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402

from errorkb.kb.entry_versions import entry_token  # noqa: E402
from errorkb.kb.neighbours import load_neighbours, published_entry  # noqa: E402
from errorkb.verification.state import verification_of  # noqa: E402
from errorkb.verification.stored import STORED_STATE_COLUMN  # noqa: E402
from errorkb.web.renderings import rendered_body  # noqa: E402

BODIES = Path(os.environ["READS_BODIES"])


def _read(entry_id: str):
    entry_token(entry_id)
    entry = published_entry(entry_id, columns=STORED_STATE_COLUMN)
    if entry is None:
        raise Http404
    load_neighbours(entry)
    verification_of(entry)
    return entry


def record(request, entry_id: str):
    _read(entry_id)
    return HttpResponse(_body(f"api/errors/{entry_id}"), content_type="application/json")


def page(request, entry_id: str):
    rendered_body(_read(entry_id))
    body = _body(f"errors/{entry_id}/index.html")
    return HttpResponse(body, content_type="text/html; charset=utf-8")


@cache
def _body(relative: str) -> bytes:
    return (BODIES / relative).read_bytes()


urlpatterns = [path("api/errors/<str:entry_id>", record), path("errors/<str:entry_id>/", page)]
application = WSGIHandler()
