"""Django settings.

One settings module, driven by the environment. With nothing set it runs on
one machine: SQLite in ``var/`` and Celery tasks run in process (the tests,
one-off commands). The embedded default that ``make demo`` serves adds
``CELERY_BROKER_URL=filesystem://localhost/`` and workers beside the server
(``manage.py serve_embedded``). Production (docker-compose) sets
``DATABASE_URL`` and ``CELERY_BROKER_URL``.
"""
from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.storage import storages_from_env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PARSEVAL_VAR_DIR", BASE_DIR / "var"))
# The free data sets ship in data/ (see data/README.md): the demo, the defaults and the tests read
# only them. The Penn Treebank sample is not free and never ships: only the optional benchmarks and
# PTB checks (benchmarks/) read it, from $PARSEVAL_SHARED/data/ptb-sample (../shared by default).
DATA_DIR = BASE_DIR / "data"


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


# Development mode (the demo, the tests) is asked for explicitly; without it the settings
# refuse to start with a missing or published SECRET_KEY or with DEBUG on.
DEVELOPMENT = env_bool("PARSEVAL_DEVELOPMENT")
DEVELOPMENT_SECRET_KEY = "insecure-dev-key-change-me-in-production"
# Keys that have been published (this file, the compose file before it required one): never in production.
KNOWN_SECRET_KEYS = {DEVELOPMENT_SECRET_KEY, "change-me-in-production", "change-me"}
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "").strip() or (DEVELOPMENT_SECRET_KEY if DEVELOPMENT else "")
DEBUG = env_bool("DJANGO_DEBUG", DEVELOPMENT)
if not DEVELOPMENT:
    if not SECRET_KEY or SECRET_KEY in KNOWN_SECRET_KEYS:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is missing or is a published default. Set it to a long random value "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))'), or set PARSEVAL_DEVELOPMENT=1 "
            "on a development machine."
        )
    if DEBUG:
        raise ImproperlyConfigured("DJANGO_DEBUG is on outside development; set PARSEVAL_DEVELOPMENT=1 "
                                   "on a development machine, or turn DEBUG off.")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "annotations",
    "campaign",
    "evaluation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads the body (sessions, CSRF): an oversized request is refused unread.
    "campaign.middleware.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language of the pages: the switch's cookie, else the browser's Accept-Language (docs/languages.md).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A campaign's pages in the campaign's language when the browser names neither of ours.
    "campaign.languages.CampaignLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.not_found.UniformNotFoundMiddleware",
    "csp.middleware.CSPMiddleware",
    # Near the end, so it sees the views' exceptions first: the database or Redis away gives a 503 with Retry-After.
    "config.unavailable.ServiceUnavailableMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into a 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A fresh clone has no var/ yet; SQLite cannot create the directory of its file.
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Several processes (web workers + in-process tasks) share the file. WAL lets readers go on while one
    # writes; IMMEDIATE takes the write lock when a transaction starts, so a read-then-write transaction waits
    # (up to the timeout) instead of failing at once with "database is locked" when it upgrades its lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First: refuses any login attempt from a locked-out account or address.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "portal:home"
LOGOUT_REDIRECT_URL = "portal:home"

LANGUAGE_CODE = "en"
# The pages' languages, each named in itself for the switch; the catalogues live in locale/ (docs/languages.md).
LANGUAGES = [("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
# Serve from the app folders when collectstatic has not run (make demo, tests);
# the image collects them at build time. An absent root only makes WhiteNoise warn.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Stored files (runs, conversions, corpus texts, guides; gold apart): the file system under VAR_DIR, or an
# S3 bucket with PARSEVAL_STORAGE=s3 (config/storage.py, docs/deployment.md).
try:
    STORAGES = storages_from_env(os.environ)
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None

# Uploaded files are never served directly: every download goes through a view
# that checks permissions. Gold lives in its own directory, apart from the corpus.
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "/media-not-served/"
GOLD_ROOT = VAR_DIR / "gold"
# Local copies of stored files for readers that need a path (object storage only), keyed by checksum.
PARSEVAL_FILE_CACHE_DIR = Path(os.environ.get("PARSEVAL_FILE_CACHE_DIR") or VAR_DIR / "cache" / "files")
PARSEVAL_FILE_CACHE_BYTES = int(os.environ.get("PARSEVAL_FILE_CACHE_BYTES", str(4 * 1024 * 1024 * 1024)))
# The significance worker's per-result figures (evaluation.significance.run_cache, about 9 MB per EASY result and
# context): past this size the least recently used go, at the sweep that follows each computation.
PARSEVAL_SIGNIFICANCE_CACHE_BYTES = int(os.environ.get("PARSEVAL_SIGNIFICANCE_CACHE_BYTES",
                                                       str(4 * 1024 * 1024 * 1024)))
# The analysis pages' kept values (evaluation.analysis.precomputed, tens of kB each, one per set of runs a reader
# sees): the hourly upkeep removes those no page read for this long (a page that finds none asks a worker again).
PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS = float(os.environ.get("PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS",
                                                            str(2 * 24 * 3600)))

# Uploads: stream to disk above 2.5 MB; hard limits per run are campaign settings.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_TEMP_DIR = None
PARSEVAL_MAX_UPLOAD_BYTES = int(os.environ.get("PARSEVAL_MAX_UPLOAD_BYTES", str(200 * 1024 * 1024)))
# A whole request body (the run file plus its form fields) above this is refused from its
# Content-Length, before Django spools a byte of it.
PARSEVAL_MAX_REQUEST_BYTES = PARSEVAL_MAX_UPLOAD_BYTES + DATA_UPLOAD_MAX_MEMORY_SIZE
PARSEVAL_MAX_UNPACKED_BYTES = int(os.environ.get("PARSEVAL_MAX_UNPACKED_BYTES", str(2 * 1024 * 1024 * 1024)))
PARSEVAL_STUCK_AFTER_SECONDS = int(os.environ.get("PARSEVAL_STUCK_AFTER_SECONDS", "1800"))
# The site's public address (https://parseval.example.org), cited in the publication bundle; none when empty.
PARSEVAL_PUBLIC_URL = os.environ.get("PARSEVAL_PUBLIC_URL", "")

# Celery: with no broker configured, tasks run in process (the tests, one-off commands). The embedded default that
# `make demo` serves names kombu's filesystem transport (filesystem://localhost/): messages are files under
# var/broker/, consumed by the workers that `manage.py serve_embedded` runs beside the server (docs/deployment.md).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
FILESYSTEM_BROKER = CELERY_BROKER_URL.startswith("filesystem://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", (not FILESYSTEM_BROKER and CELERY_BROKER_URL) or None)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    # Tasks run in process: name kombu's in-memory transport, or Celery falls back to amqp:// and kombu
    # warns "No hostname was supplied" on the first connection it builds.
    CELERY_BROKER_URL = "memory://localhost/"
if CELERY_BROKER_URL.startswith("redis://"):
    # kombu's Redis transport without the path that made a worker exit when Redis dropped mid-task (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Validation (and development checks), test-run scoring and significance each have their queue and their
# workers, so that nothing a team sees before release waits behind test-run scoring (config/queues.py,
# docs/deployment.md). The prefix keeps the queues of several deployments (or test sessions) on one Redis apart.
PARSEVAL_QUEUE_PREFIX = os.environ.get("PARSEVAL_QUEUE_PREFIX", "")
CELERY_TASK_ROUTES = ("config.queues.route",)
# Outcomes live in the database (run status, results); nothing reads task results. Storing them anyway made
# Redis a second dependency of every publish (the web's result subscription) and of every task's end.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "3600"))
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "3300"))
# With acks_late on Redis, a message whose worker died comes back after the visibility timeout (kombu's
# restore sweep runs every few seconds). It is short so that a killed worker's run is delivered again in
# minutes; a task that runs longer is delivered twice, and the second delivery is a no-op (evaluation.pipeline.delivery).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
}
if FILESYSTEM_BROKER:
    # One folder holds every queue's messages (a file each, named by its queue), written by the web and taken by
    # the workers: the same machine, no server. A message is moved away when taken, with no visibility timeout:
    # a killed worker's runs come back through the recovery sweep (the worker's beat), not through the broker.
    _broker = {"data_folder_in": VAR_DIR / "broker" / "messages", "control_folder": VAR_DIR / "broker" / "control"}
    for _folder in _broker.values():
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS.update({key: str(folder) for key, folder in _broker.items()},
                                           data_folder_out=str(_broker["data_folder_in"]), polling_interval=0.5)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Broker outages: a worker keeps trying to reconnect, for ever (compose restarts it if it exits anyway).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# An upload made while the broker is down must not hang the request: fail fast, the outbox queues it later.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}

# Scoring delivery and recovery (evaluation.pipeline.delivery, evaluation.pipeline.recovery; see docs/deployment.md).
PARSEVAL_SCORING_HEARTBEAT_SECONDS = float(os.environ.get("PARSEVAL_SCORING_HEARTBEAT_SECONDS", "15"))
PARSEVAL_SCORING_LEASE_SECONDS = float(os.environ.get("PARSEVAL_SCORING_LEASE_SECONDS", "60"))
# Transient faults (database, broker, file system) in a task: retried with exponential back-off from this
# many seconds, each wait at most the max, this many times; then the run fails with a system-fault reason.
PARSEVAL_RETRY_BACKOFF_SECONDS = int(os.environ.get("PARSEVAL_RETRY_BACKOFF_SECONDS", "5"))
PARSEVAL_RETRY_BACKOFF_MAX_SECONDS = int(os.environ.get("PARSEVAL_RETRY_BACKOFF_MAX_SECONDS", "120"))
PARSEVAL_TRANSIENT_RETRIES = int(os.environ.get("PARSEVAL_TRANSIENT_RETRIES", "6"))
PARSEVAL_MAX_SCORING_ATTEMPTS = int(os.environ.get("PARSEVAL_MAX_SCORING_ATTEMPTS", "3"))
# A test run whose gold holds more sentences than this is scored in shards of whole documents of about this
# many sentences, across the scoring workers (evaluation.pipeline.sharding); 0 scores every run in one task.
PARSEVAL_SHARD_SENTENCES = int(os.environ.get("PARSEVAL_SHARD_SENTENCES", "20000"))
# A shard's worker beats every few seconds; a shard silent for the short lease is taken back and sent again by
# the shards' watch (beat), long before a run's lease would lapse (evaluation.pipeline.sharding).
PARSEVAL_SHARD_HEARTBEAT_SECONDS = float(os.environ.get("PARSEVAL_SHARD_HEARTBEAT_SECONDS", "2"))
PARSEVAL_SHARD_LEASE_SECONDS = float(os.environ.get("PARSEVAL_SHARD_LEASE_SECONDS", "10"))
PARSEVAL_SHARD_WATCH_SECONDS = float(os.environ.get("PARSEVAL_SHARD_WATCH_SECONDS", "5"))
PARSEVAL_RECOVERY_SWEEP_SECONDS = float(os.environ.get("PARSEVAL_RECOVERY_SWEEP_SECONDS", "30"))
PARSEVAL_OUTBOX_GRACE_SECONDS = float(os.environ.get("PARSEVAL_OUTBOX_GRACE_SECONDS", "20"))
PARSEVAL_REQUEUE_UPLOADED_AFTER_SECONDS = float(os.environ.get(
    "PARSEVAL_REQUEUE_UPLOADED_AFTER_SECONDS", str(CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] + 60)))
PARSEVAL_STAGING_MAX_AGE_SECONDS = float(os.environ.get("PARSEVAL_STAGING_MAX_AGE_SECONDS", str(CELERY_TASK_TIME_LIMIT + 300)))
CELERY_BEAT_SCHEDULE = {
    # Outbox dispatch, re-queuing of runs whose worker died or whose message was lost, staging cleanup.
    "scoring-recovery": {
        "task": "evaluation.recover_runs",
        "schedule": PARSEVAL_RECOVERY_SWEEP_SECONDS,
    },
    # Shards of large runs: silent ones taken back within the short lease, runs handed to them kept alive.
    "scoring-shards": {
        "task": "evaluation.sharding.watch_shards",
        "schedule": PARSEVAL_SHARD_WATCH_SECONDS,
    },
    # Stored files and caches no reader will use again: run indexes of withdrawn, deleted or re-keyed runs,
    # superseded conversions, gold indexes of older keys, this host's significance figures of results and
    # contexts no set compares, analysis values no page read lately (evaluation.upkeep).
    "storage-upkeep": {
        "task": "evaluation.upkeep.sweep_caches",
        "schedule": float(os.environ.get("PARSEVAL_UPKEEP_SWEEP_SECONDS", "3600")),
    },
    # Scheduled campaign dates (opens_at, deadline, release, publication...) take effect within a minute.
    "campaign-scheduled-transitions": {
        "task": "campaign.apply_scheduled_transitions",
        "schedule": float(os.environ.get("PARSEVAL_TRANSITION_CHECK_SECONDS", "60")),
    },
}

REST_FRAMEWORK = {
    "EXCEPTION_HANDLER": "config.not_found.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # DRF's own throttles, keyed by the same client address as the audit log (campaign.throttles).
    "DEFAULT_THROTTLE_CLASSES": [
        "campaign.throttles.AnonThrottle",
        "campaign.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("PARSEVAL_THROTTLE_ANON", "120/minute"),
        "user": os.environ.get("PARSEVAL_THROTTLE_USER", "600/minute"),
        "uploads": os.environ.get("PARSEVAL_THROTTLE_UPLOADS", "30/hour"),
        "token": os.environ.get("PARSEVAL_THROTTLE_TOKEN", "20/hour"),
        "signup": os.environ.get("PARSEVAL_THROTTLE_SIGNUP", "10/hour"),
        # password reset: per client address, and per client and e-mail address asked for (never per account
        # alone: a stranger would lock the owner out); e-mail confirmation: per client address, and per account
        "password_reset": os.environ.get("PARSEVAL_THROTTLE_PASSWORD_RESET", "10/hour"),
        "password_reset_address": os.environ.get("PARSEVAL_THROTTLE_PASSWORD_RESET_ADDRESS", "3/hour"),
        "verification": os.environ.get("PARSEVAL_THROTTLE_VERIFICATION", "10/hour"),
        "verification_account": os.environ.get("PARSEVAL_THROTTLE_VERIFICATION_ACCOUNT", "3/hour"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parser evaluation campaigns API",
    "DESCRIPTION": "Campaigns, runs and results of syntactic-parser evaluation campaigns.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from the sidecar package's static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Login rate limits (django-axes): after AXES_FAILURE_LIMIT failed attempts an account is locked
# at that address, for the cool-off time, on the portal login, the admin login and the API token
# endpoint alike. The pair, not each alone: a stranger guessing an organiser's password locks only
# themselves, and a team behind one shared address does not lock out its neighbours.
AXES_FAILURE_LIMIT = int(os.environ.get("PARSEVAL_LOGIN_FAILURES", "5"))
AXES_COOLOFF_TIME = float(os.environ.get("PARSEVAL_LOGIN_COOLOFF_HOURS", "0.25"))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "campaign.audit.client_ip"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

# Mail: password reset and e-mail confirmation links. Printed on the console in development;
# otherwise SMTP, configured from the environment (docs/deployment.md).
if DEVELOPMENT and not os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ.get("EMAIL_HOST") or "localhost"
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or "587")
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL")
    EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL") or "parseval@localhost"
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Reset and confirmation links: valid three days.
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PARSEVAL_LINK_TIMEOUT_SECONDS", str(3 * 24 * 3600)))

# Addresses (or networks) of reverse proxies whose X-Forwarded-For is believed; nobody else's is.
PARSEVAL_TRUSTED_PROXIES = [p.strip() for p in os.environ.get("PARSEVAL_TRUSTED_PROXIES", "").split(",") if p.strip()]

# Served over HTTPS (behind a TLS proxy, see docs/deployment.md): secure cookies, HSTS, redirect.
HTTPS = env_bool("DJANGO_HTTPS")
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
SESSION_COOKIE_HTTPONLY = True
# Scripts only from our own static files (no inline script anywhere); inline styles are used by
# a few pages and the charts. Sent on every response, HTTPS or not.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("CACHE_URL"):
    # A Redis that is away makes the cache miss (and throttling fail open), never an error page. Its outage is
    # logged once when it begins and once when it ends, by the pool's connections (config/outages.py), not per call.
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["CACHE_URL"],
                          "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5,
                                      "CONNECTION_POOL_CLASS": "config.outages.CachePool"}}}
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Handled outages without tracebacks or repeats (config/outages.py); Celery's handlers get it too (config/celery.py).
    "filters": {"quiet_outages": {"()": "config.outages.QuietOutages"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["quiet_outages"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
