"""The methods an HTML page answers; any other gets a 405, before a CSRF check could 403 it."""

from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

SAFE_METHODS = ("GET", "HEAD")


def answers(*methods: str):
    """A view that answers `methods` only (405 for others), CSRF-checked on the unsafe ones.

    Django's CSRF middleware checks a request before its view runs, so a DELETE to a page
    that only reads would be refused "CSRF verification failed" (403) rather than as the
    method it is not allowed (405). Here the method is checked first; the CSRF check then
    runs inside, as Django's own csrf_protect, for the unsafe methods the view answers.
    A view answering only safe methods needs none: the CSRF check never refuses those.
    """

    def decorate(view):
        checked = csrf_protect(view) if set(methods) - set(SAFE_METHODS) else view
        return csrf_exempt(require_http_methods(list(methods))(checked))

    return decorate
