"""Typed parsers for environment values; errorkb/settings.py hands them what it reads.

Each takes the variable's name and its raw value (None when unset) and returns the
typed value, or raises ImproperlyConfigured naming the variable. None of them reads
the environment: settings.py is the only place that does.
"""

import re
from ipaddress import IPv4Network, IPv6Network, ip_network

import dj_database_url
from django.core.exceptions import ImproperlyConfigured


def parse_bool(name: str, value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false/1/0), got {value!r}")


def parse_int(name: str, value: str | None, default: int, *, minimum: int = 0) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {number}")
    return number


def parse_list(name: str, value: str | None, default: list[str]) -> list[str]:
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def parse_choice(name: str, value: str | None, default: str, choices: tuple[str, ...]) -> str:
    value = value or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def parse_database(
    name: str, value: str | None, default: str, *, conn_max_age: int, prepared: bool = True
) -> dict:
    url = value or default
    try:
        config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    except Exception as exc:  # dj-database-url raises several types for one problem
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}") from None
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"{name} names an unsupported database: {url!r}")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # No persistent connections for SQLite: it gains nothing and keeps files open.
        config["CONN_MAX_AGE"] = 0
        # The web server, the worker and the scheduler write to one file: write-ahead
        # logging, a busy timeout and immediate transactions keep them from failing
        # with "database is locked".
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL;",
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
        }
    elif config["ENGINE"] == "django.db.backends.postgresql" and prepared:
        # Server-side binding, so psycopg can prepare a statement; from its second run
        # on a connection, each is planned once rather than on every request.
        config.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=2)
    return config


def parse_origins(name: str, value: str | None) -> list[str]:
    origins = parse_list(name, value, [])
    for origin in origins:
        # Scheme and host only: Django compares a request's Origin with these, and a
        # path would never match.
        if not re.fullmatch(r"https?://[^/?#\s]+", origin):
            raise ImproperlyConfigured(
                f"{name} must list origins like https://errors.example.org, got {origin!r}"
            )
    return origins


def parse_header(name: str, value: str | None) -> tuple[str, str] | None:
    """A request header a TLS proxy sets to "https", as SECURE_PROXY_SSL_HEADER wants it."""
    value = (value or "").strip()
    if not value:
        return None
    if not re.fullmatch(r"[A-Za-z0-9]+(-[A-Za-z0-9]+)*", value):
        raise ImproperlyConfigured(
            f"{name} must be a header name like X-Forwarded-Proto, got {value!r}"
        )
    return ("HTTP_" + value.upper().replace("-", "_"), "https")


def parse_networks(name: str, value: str | None) -> list[IPv4Network | IPv6Network]:
    networks = []
    for item in parse_list(name, value, []):
        try:
            networks.append(ip_network(item))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks, got {item!r} ({exc})"
            ) from None
    return networks
