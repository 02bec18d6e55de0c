"""The single rule for a URL that errorkb shows as a link: http(s) to a real host, nothing else.

Import (validation.validate_record), the admin forms and the templates' public_link filter
all ask link_error(), so a URL that could run script (javascript:, data:, ...) or send
a reader somewhere other than it seems never gets in, and one already stored is never
rendered as a link. A public link leads to the public internet: never to the reader's own
machine or network (localhost, 127.0.0.1, [::1], 10.0.0.1, 169.254.169.254, foo.local),
where a click could reach a service that trusts whoever is on that machine or network.
"""

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

MAX_LINK_LENGTH = 2000  # what every browser and server takes
SCHEMES = ("http", "https")
# One DNS label: letters, digits and inner hyphens (punycode for other scripts).
LABEL_RE = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
# A last label a browser reads as a number makes the whole host an IPv4 address in one of
# its short forms (127.1, 0x7f.1, 1.2.0x3): the WHATWG URL standard's "ends in a number".
NUMERIC_LABEL_RE = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")
# Names that lead to the reader's own machine or network, never to a public host:
# localhost (RFC 6761), local (mDNS, RFC 6762), home.arpa (RFC 8375), internal (ICANN).
LOCAL_DOMAINS = ("localhost", "local", "home.arpa", "internal")
# The kinds of address that are not a public one, most telling first: 127.0.0.1 is also
# private, 169.254.0.1 link-local and private. Each is an ipaddress is_<kind> property.
LOCAL_ADDRESS_KINDS = ("loopback", "unspecified", "link_local", "multicast", "private", "reserved")


def link_error(url: str) -> str | None:
    """Why url is not a safe public link, or None when it is one."""
    if len(url) > MAX_LINK_LENGTH:
        return f"is longer than {MAX_LINK_LENGTH} characters"
    # Browsers drop whitespace and control characters before they read the scheme,
    # so " JaVaScRiPt:" or "java\tscript:" would run: refuse them wherever they are.
    # Backslashes count as slashes to a browser but not to urlsplit, so they go too.
    for at, char in enumerate(url):
        if char == "\\" or unicodedata.category(char)[0] in "CZ":
            name = f"U+{ord(char):04X} {unicodedata.name(char, '')}".strip()
            return f"must not contain {name} (character {at + 1}); write it %-encoded"
    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is not a number from 0 to 65535 raises ValueError
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in SCHEMES or not url.lower().startswith(f"{parts.scheme}://"):
        return "must start with https:// or http://"
    # https://github.com@evil.example/ goes to evil.example: no user part in a public link.
    if "@" in parts.netloc:
        return "must not name a user or password before the host"
    if port == 0:
        return "must not use port 0"
    return host_error(parts.hostname or "")


def host_error(host: str) -> str | None:
    """Why host is not a public internet host name or IP address, or None."""
    if not host:
        return "must name a host"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return name_error(host)
    return address_error(host, address)


def name_error(host: str) -> str | None:
    """Why host, which is not an IP address, is not a public host name, or None."""
    bare = host.rstrip(".")
    if any(bare == domain or bare.endswith(f".{domain}") for domain in LOCAL_DOMAINS):
        return f"must name a public host, not {host!r} (a name for a local machine or network)"
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(LABEL_RE.match(label) for label in labels):
        return f"must name a real host, not {host!r}"
    if NUMERIC_LABEL_RE.match(labels[-1]):  # a browser's short IPv4 form, or 999.1.1.1
        return f"must name a real host, not {host!r}"
    return None


def address_error(host: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why address is not a public internet address, or None."""
    # An IPv6 address that carries an IPv4 one (::ffff:127.0.0.1, 6to4's 2002:7f00:1::)
    # goes where that one goes: judge both.
    embedded = getattr(address, "ipv4_mapped", None) or getattr(address, "sixtofour", None)
    judged = [embedded, address] if embedded else [address]
    for kind in LOCAL_ADDRESS_KINDS:
        if any(getattr(each, f"is_{kind}") for each in judged):
            name = kind.replace("_", "-")
            article = "an" if name[0] in "aeiou" else "a"
            return f"must name a public host, not {host!r} ({article} {name} address)"
    if not all(each.is_global for each in judged):  # shared address space, 100.64.0.0/10
        return f"must name a public host, not {host!r} (not a public address)"
    return None
