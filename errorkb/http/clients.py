"""The reader's address, which the throttles and the login lockout count by.

Behind a proxy every request comes from the proxy's address; the proxy names the
reader in X-Forwarded-For. That header is only believed from a peer listed in
settings.TRUSTED_PROXIES, and only as far as trusted proxies wrote it: each one
appends the address it received from, so the list is read from the right, past
the trusted proxies, to the first address none of them is. Anything left of it
was written by the reader.
"""

import hashlib
import hmac
from ipaddress import IPv4Address, IPv6Address, ip_address

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The reader's IP address: the peer's, or the one trusted proxies forwarded for."""
    peer = request.META.get("REMOTE_ADDR", "")
    if not is_trusted_proxy(parse_address(peer)):
        return peer
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for hop in reversed(forwarded.split(",")):
        address = parse_address(hop.strip())
        if address is None:
            break  # not written by a proxy we trust: nothing to its left is either
        if not is_trusted_proxy(address):
            return str(address)
    return peer


def client_key(request: HttpRequest) -> str:
    """A keyed hash of the reader's address, never the address itself."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, client_address(request).encode(), hashlib.sha256).hexdigest()


def parse_address(text: str) -> IPv4Address | IPv6Address | None:
    try:
        address = ip_address(text)
    except ValueError:
        return None
    # A dual-stack socket shows an IPv4 peer as ::ffff:a.b.c.d.
    return getattr(address, "ipv4_mapped", None) or address


def is_trusted_proxy(address: IPv4Address | IPv6Address | None) -> bool:
    return address is not None and any(address in network for network in settings.TRUSTED_PROXIES)
