"""The TLS proxy's word on the scheme, believed only from a proxy errorkb trusts."""

from django.conf import settings

from .clients import is_trusted_proxy, parse_address


class ProxySchemeFromTrustedProxies:
    """Middleware: drops the header named by PROXY_SSL_HEADER unless a trusted proxy sent it.

    Django believes that header (SECURE_PROXY_SSL_HEADER) from whoever sends it, so a
    reader reaching gunicorn directly could say its plain HTTP request was HTTPS. Only a
    peer in TRUSTED_PROXIES, the same list X-Forwarded-For is read from, may say so.
    First in MIDDLEWARE, before SecurityMiddleware reads it to redirect.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        header = settings.SECURE_PROXY_SSL_HEADER
        if header and not is_trusted_proxy(parse_address(request.META.get("REMOTE_ADDR", ""))):
            request.META.pop(header[0], None)
        return self.get_response(request)
