"""The TLS proxy's scheme header (PROXY_SSL_HEADER) believed only from TRUSTED_PROXIES."""

from ipaddress import ip_network

import pytest
from django.conf import settings
from django.test import RequestFactory, override_settings

from errorkb.http.proxies import ProxySchemeFromTrustedProxies

BEHIND_A_PROXY = override_settings(
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    TRUSTED_PROXIES=[ip_network("10.0.0.5/32"), ip_network("fd00::/8")],
)


def is_secure_behind_the_middleware(peer: str, **headers) -> bool:
    """What request.is_secure() says for a view behind the middleware."""
    seen = {}

    def view(request):
        seen["secure"] = request.is_secure()

    request = RequestFactory().get("/", REMOTE_ADDR=peer, **headers)
    ProxySchemeFromTrustedProxies(view)(request)
    return seen["secure"]


@BEHIND_A_PROXY
@pytest.mark.parametrize("peer", ["10.0.0.5", "::ffff:10.0.0.5", "fd00::1"])
def test_it_believes_https_from_a_trusted_proxy(peer):
    assert is_secure_behind_the_middleware(peer, HTTP_X_FORWARDED_PROTO="https")


@BEHIND_A_PROXY
@pytest.mark.parametrize("peer", ["203.0.113.9", "10.0.0.6", "", "not-an-address"])
def test_it_ignores_https_from_any_other_peer(peer):
    assert not is_secure_behind_the_middleware(peer, HTTP_X_FORWARDED_PROTO="https")


@BEHIND_A_PROXY
def test_a_trusted_proxys_plain_http_stays_plain():
    assert not is_secure_behind_the_middleware("10.0.0.5", HTTP_X_FORWARDED_PROTO="http")


@override_settings(SECURE_PROXY_SSL_HEADER=None, TRUSTED_PROXIES=[])
def test_it_leaves_requests_alone_when_no_proxy_header_is_set():
    request = RequestFactory().get("/", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_PROTO="https")
    ProxySchemeFromTrustedProxies(lambda request: None)(request)
    assert request.META["HTTP_X_FORWARDED_PROTO"] == "https"  # nothing reads it
    assert not request.is_secure()


def test_it_runs_before_the_security_middleware_reads_the_header():
    middleware = settings.MIDDLEWARE
    assert middleware.index("errorkb.http.proxies.ProxySchemeFromTrustedProxies") < (
        middleware.index("django.middleware.security.SecurityMiddleware")
    )
