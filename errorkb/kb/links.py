"""The one rule for a URL that errorkb shows as a link: http(s) to a real host, nothing else.

Import (validation.validate_record), the admin forms and the templates' public_link filter
all ask link_error(), so a URL that could run script (javascript:, data:, ...) or send
a reader somewhere other than it seems never gets in, and one already stored is never
rendered as a link.
"""

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

MAX_LINK_LENGTH = 2000  # what every browser and server takes
SCHEMES = ("http", "https")
# One DNS label: letters, digits and inner hyphens (punycode for other scripts).
LABEL_RE = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


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
    """Why host is not a real internet host name or IP address, or None."""
    if not host:
        return "must name a host"
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(LABEL_RE.match(label) for label in labels):
        return f"must name a real host, not {host!r}"
    if labels[-1].isdigit():  # 1.2.3 or 999.1.1.1: neither a name nor an address
        return f"must name a real host, not {host!r}"
    return None
