"""Django settings for errorkb.

This module is the only place that reads the environment. Every variable is
parsed by a small typed helper that refuses bad values with the variable's
name, so a misconfigured deployment fails at start instead of at 2am.
"""

import os
from datetime import timedelta
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from errorkb import env

BASE_DIR = Path(__file__).resolve().parent.parent


# The only reader of the environment: each helper hands a variable's raw value to its
# parser in errorkb.env, which refuses a bad one with the variable's name.
def envbool(name: str, default: bool) -> bool:
    return env.parse_bool(name, os.environ.get(name), default)


def envint(name: str, default: int, *, minimum: int = 0) -> int:
    return env.parse_int(name, os.environ.get(name), default, minimum=minimum)


def envlist(name: str, default: list[str]) -> list[str]:
    return env.parse_list(name, os.environ.get(name), default)


def envchoice(name: str, default: str, choices: tuple[str, ...]) -> str:
    return env.parse_choice(name, os.environ.get(name), default, choices)


def envdatabase(name: str, default: str) -> dict:
    options = {"conn_max_age": CONN_MAX_AGE, "prepared": DATABASE_PREPARED_STATEMENTS}
    return env.parse_database(name, os.environ.get(name), default, **options)


def envorigins(name: str) -> list[str]:
    return env.parse_origins(name, os.environ.get(name))


def envheader(name: str) -> tuple[str, str] | None:
    return env.parse_header(name, os.environ.get(name))


def envnetworks(name: str) -> list[IPv4Network | IPv6Network]:
    return env.parse_networks(name, os.environ.get(name))


DEBUG = envbool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

# Seconds a database connection is kept open between requests (0 closes it
# after each request). Health checks make a stale persistent connection harmless.
CONN_MAX_AGE = envint("CONN_MAX_AGE", 600)
# PostgreSQL: prepare what a connection repeats (off behind PgBouncer < 1.21 pooling).
DATABASE_PREPARED_STATEMENTS = envbool("DATABASE_PREPARED_STATEMENTS", True)
DATABASES = {"default": envdatabase("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}

# Rendered pages and records, kept in Django's cache framework under their ETag, so a kept
# response is never stale (errorkb.http.caching). CACHE_URL=redis://host:6379/1 keeps
# them in Redis, shared by every process and machine; by default each process keeps its
# own in memory. RESPONSE_CACHE_ENTRIES=0 turns the response cache off.
CACHE_URL = os.environ.get("CACHE_URL", "")
RESPONSE_CACHE_ENTRIES = envint("RESPONSE_CACHE_ENTRIES", 1000)
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured("CACHE_URL must be a redis://, rediss:// or unix:// URL")
_PAGES_BACKEND = {
    "BACKEND": "django.core.cache.backends.redis.RedisCache",
    "LOCATION": CACHE_URL,
    "KEY_PREFIX": "pages",
}
if not CACHE_URL:
    _PAGES_BACKEND = {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "OPTIONS": {"MAX_ENTRIES": RESPONSE_CACHE_ENTRIES},
    }
if not RESPONSE_CACHE_ENTRIES:
    _PAGES_BACKEND = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
# How many lookups, searches and reports each client made lately (errorkb.http.throttles):
# in the same Redis, else in files that every process of this machine shares.
_THROTTLES_BACKEND = {
    "BACKEND": "django.core.cache.backends.redis.RedisCache",
    "LOCATION": CACHE_URL,
    "KEY_PREFIX": "throttles",
}
if not CACHE_URL:
    _THROTTLES_BACKEND = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": BASE_DIR / "var" / "throttles",
        # A file per client seen in the last hour; past this many, a third are dropped.
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # The key changes when the content does: only a full cache evicts (Redis: its maxmemory policy).
    "pages": {**_PAGES_BACKEND, "TIMEOUT": None},
    "throttles": _THROTTLES_BACKEND,
}

# Problem reports readers may send from one client address per hour.
REPORTS_PER_HOUR = envint("REPORTS_PER_HOUR", 5)
# A lookup reads up to 1 MiB of text, which JSON or a form may spell in up to six times
# as many bytes (errorkb.lookup.api); larger bodies are refused before they are read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 2**20 + 1024
# Uploaded files: kept in memory to one byte past what errorkb takes, the rest dropped as
# it arrives, never written to disk whole (errorkb/http/uploads.py).
FILE_UPLOAD_HANDLERS = ["errorkb.http.uploads.BoundedUploadHandler"]
DATA_UPLOAD_MAX_NUMBER_FILES = 1  # a dataset upload is one file; more is a 400
# Lookups and searches one anonymous client may make a minute (errorkb.http.throttles).
LOOKUPS_PER_MINUTE = envint("LOOKUPS_PER_MINUTE", 60, minimum=1)
# The largest dataset file import_errors reads from disk (the admin's upload keeps its 20 MB):
# 100,000 records of about 2 KB each are over 200 MB.
DATASET_FILE_MAX_MB = envint("DATASET_FILE_MAX_MB", 256, minimum=1)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "reversion",
    "axes",
    "errorkb.kb",
    "errorkb.verification",
    "errorkb.http",
    "errorkb.upstream",
    "errorkb.web",
    "errorkb.lookup",
    "errorkb.search",
    "errorkb.admin",
]

MIDDLEWARE = [
    # First: the scheme a proxy names is believed only from TRUSTED_PROXIES.
    "errorkb.http.proxies.ProxySchemeFromTrustedProxies",
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so static files carry the policy too: every response does.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed admin logins: after AXES_FAILURE_LIMIT failures from one address, whatever
# usernames they tried, that address is refused for AXES_COOLOFF_MINUTES. Counting by
# username too would give each address the limit for every username it guesses. The
# address is the reader's behind TRUSTED_PROXIES (AXES_CLIENT_IP_CALLABLE below), never
# the proxy's, or one reader's failures would lock out everyone behind it.
AXES_ENABLED = envbool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=envint("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
# A login that succeeds leaves its address's failures counted: else one account of one's
# own, logged into between guesses, would reset the count for every other username.
AXES_RESET_ON_SUCCESS = False
AXES_VERBOSE = False
LOGIN_URL = "admin:login"
# Where a login lands when it names no page on this site to go back to (no next, or one
# that leads elsewhere): the admin's index, the only page a login is for.
LOGIN_REDIRECT_URL = "admin:index"

ROOT_URLCONF = "errorkb.urls"
WSGI_APPLICATION = "errorkb.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Without collectstatic (development, tests) WhiteNoise serves from the finders.
WHITENOISE_USE_FINDERS = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# HTTPS, usually behind a TLS proxy. HTTPS=true turns on what a site served only over
# HTTPS wants (the redirect, secure cookies, a year of HSTS); each setting overrides it.
HTTPS = envbool("HTTPS", False)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", HTTPS)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if HTTPS else 0)
# These two bind more than this site (its subdomains, browsers' preload lists): only if asked.
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", HTTPS)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", HTTPS)
# Origins, besides the one the request names, that forms may be posted from.
CSRF_TRUSTED_ORIGINS = envorigins("CSRF_TRUSTED_ORIGINS")
# The header a TLS proxy sets to "https"; it must also drop that header from readers. It is
# believed only from a peer in TRUSTED_PROXIES (errorkb.http.proxies).
SECURE_PROXY_SSL_HEADER = envheader("PROXY_SSL_HEADER")
# Peers whose X-Forwarded-For names the reader (errorkb.http.clients): the throttles
# and the login lockout both count by that one address.
TRUSTED_PROXIES = envnetworks("TRUSTED_PROXIES")
AXES_CLIENT_IP_CALLABLE = "errorkb.http.clients.client_address"

# Content-Security-Policy on every response (django-csp). Scripts and styles come only
# from files this server serves, never inline, so text or a link that slipped past
# validation still cannot run script. The pages, the admin and the API docs need no more.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [NONE],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # the admin's and Swagger UI's CSS draw data: icons
        "font-src": [SELF],
        "connect-src": [SELF],  # Swagger UI fetches the schema and tries the API
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
    }
}

REST_FRAMEWORK = {
    # The API serves published entries and offers only safe methods: no login, no session.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # Bodies are JSON only, bounded in depth, one value a key (errorkb.http.bodies).
    "DEFAULT_PARSER_CLASSES": ["errorkb.http.bodies.BoundedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "errorkb.http.api.PageNumberPagination",
    "PAGE_SIZE": envint("API_PAGE_SIZE", 50, minimum=1),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # One error body for every 4xx: {"detail": "...", "errors": {"param": ["..."]}}.
    "EXCEPTION_HANDLER": "errorkb.http.api.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "errorkb API",
    "DESCRIPTION": "Verified error knowledge base: entries as seed-schema records.",
    "VERSION": "1",
    # Serve Swagger UI's assets from this server, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    # Two vocabularies answer a field named "state": the runs' and the claims' per release.
    "ENUM_NAME_OVERRIDES": {
        "VerificationStateEnum": "errorkb.verification.models.State",
        "ReleaseStateEnum": "errorkb.verification.state.per_release.ReleaseState",
    },
}

# Celery. Without CELERY_BROKER_URL, an embedded broker that needs no server keeps its
# messages in files under CELERY_BROKER_DIR (one machine only). In production use
# RabbitMQ (amqp://user:password@host:5672//) or Redis (redis://host:6379/0).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "filesystem://"
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = Path(os.environ.get("CELERY_BROKER_DIR") or BASE_DIR / "var" / "broker")
    _messages, _control = str(_broker_dir / "messages"), str(_broker_dir / "control")
    CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": _messages, "data_folder_out": _messages}
    CELERY_BROKER_TRANSPORT_OPTIONS["control_folder"] = _control
    # How often a worker looks in the folder for the next message (kombu's default: 1 s).
    # A warm run is shorter than that second, so a second's wait after each would double a
    # sweep; a listing of the folder every 50 ms costs an idle worker next to nothing.
    CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = 0.05
    # kombu's filesystem transport, each message written whole before a worker can see it.
    CELERY_BROKER_TRANSPORT = "errorkb.broker:Transport"
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://", "sentinel://")):
    # A worker killed whole never acknowledges its messages. RabbitMQ gives them back as
    # soon as the worker's connection closes; Redis only once a message has gone
    # unacknowledged for the visibility timeout (kombu's default: an hour). 180 s is a
    # minute above the longest a run lasts (the trainer's runner stops it at 120 s:
    # trainer/runner.py DEFAULT_TIMEOUT_S; a test holds it there), so a message the
    # worker took and had not begun comes back within five minutes. A run that somehow
    # outlasts it is delivered again: a worker on its host finds it still at work, one
    # elsewhere runs it again, recorded once (runs.claim_run). Each worker looks for
    # such messages every 10 s (kombu's default: every 100 s).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 180, "unacked_restore_throttle": 1}
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_ROUTES = ["errorkb.verification.routing.route_task"]
CELERY_TASK_IGNORE_RESULT = True  # runs are recorded in the database, not a result backend
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a reproduction takes seconds: no hoarding
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"

# Verify on the GPU too: "auto" when a worker consumes the gpu queue, or always, or never.
VERIFY_GPU = envchoice("VERIFY_GPU", "auto", ("auto", "always", "never"))
# Start each scenario run as a fork of the worker's fork server (torch imported once), or
# in a fresh interpreter; warm falls back to fresh, with a warning, if no server starts.
VERIFY_START = envchoice("VERIFY_START", "warm", ("warm", "fresh"))
# The nightly sweep runs again only what changed (a run's inputs: verification/
# fingerprints.py), and the oldest 1/N of the rest, so every run is really run at least
# once every N nights. 0: only what changed.
VERIFY_RECHECK_NIGHTS = envint("VERIFY_RECHECK_NIGHTS", 20)

LOG_LEVEL = envchoice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django logs its own requests and errors; keep them from printing twice.
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "axes": {"level": "WARNING"},  # django-axes logs every login at INFO
    },
}
