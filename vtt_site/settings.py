"""The one settings module, driven by environment variables.

With nothing set the platform runs on its embedded defaults: a SQLite file in the project folder and
Celery tasks executed in-process (eager), so it needs no server but itself. `DATABASE_URL` switches to
PostgreSQL (psycopg 3) and `REDIS_URL` to a Redis broker served by real Celery workers, which is what
docker-compose and CI use. A `.env` file in the project folder is read when present (real environment
variables win).

This module keeps Django's own settings. The variables they are made from are declared in
vtt_site/conf.py, and each app declares and reads its own settings in `<app>/conf.py`
(vtt_site.app_settings, decision 0082); `.env.example` is written from all of them.
"""

from __future__ import annotations

import secrets
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from vtt_site.conf import conf as env
from vtt_site.storage_settings import bucket_images_allowed, default_storage_entry, s3_storage_options

BASE_DIR = Path(__file__).resolve().parent.parent
load_dotenv(BASE_DIR / ".env", override=False)

VAR_DIR = Path(env.VAR_DIR or BASE_DIR / "var")
VAR_DIR.mkdir(parents=True, exist_ok=True)  # the SQLite file, the beat schedule, media and statistics

# --- Core -------------------------------------------------------------------------------------------

DEBUG = env.DEBUG
SECRET_KEY = env.SECRET_KEY
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off. `make run` writes one into .env; "
            "or set SECRET_KEY in the environment."
        )
    # A throwaway key: sessions do not survive a restart, which is acceptable only in DEBUG.
    SECRET_KEY = secrets.token_urlsafe(50)

ALLOWED_HOSTS = env.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = env.CSRF_TRUSTED_ORIGINS
SESSION_COOKIE_SECURE = env.SECURE_COOKIES
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For is believed: behind
# them the client's own address is what rate limits and login lockouts count (accounts.throttling
# .client_address). Empty: the peer's address, and X-Forwarded-For is ignored, since anyone can send it.
TRUSTED_PROXIES = env.TRUSTED_PROXIES
if env.BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# HSTS is sent on HTTPS responses only, so it is harmless for `make run` on plain HTTP; `make serve` and
# docker-compose set it (and SECURE_COOKIES) for a deployment behind TLS.
SECURE_HSTS_SECONDS = env.HSTS_SECONDS
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
# On every page, `make run` included: the pages load scripts and styles from this site only, and the
# browser tests fail on any violation (a console error).
CONTENT_SECURITY_POLICY = env.CONTENT_SECURITY_POLICY

CONTENT_SECURITY_POLICY = bucket_images_allowed(CONTENT_SECURITY_POLICY)  # the store's origin, with a bucket
DOCS_PATH_PREFIX = "/api/v1/docs/"
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "annotations",
    "datasets",
    "crowd",
    "engine",
    "truthing",
    "evaluation",
    "frontend",
    "demo",
]

MIDDLEWARE = [
    "vtt_site.middleware.RequestSizeLimitMiddleware",
    "vtt_site.middleware.RequestDeadlineMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "vtt_site.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "frontend.middleware.MethodNotAllowedPage",
    # Last, as django-axes asks: it turns a locked-out login (web page or admin) into a 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "vtt_site.urls"
WSGI_APPLICATION = "vtt_site.wsgi.application"
ASGI_APPLICATION = "vtt_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context.navigation",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------------

DATABASE_URL = env.DATABASE_URL
if DATABASE_URL:
    try:
        DATABASES = {
            "default": dj_database_url.parse(
                DATABASE_URL, conn_max_age=env.DB_CONN_MAX_AGE, conn_health_checks=True
            )
        }
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a usable database URL: {exc}") from None
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env.SQLITE_PATH or str(VAR_DIR / "vtt.sqlite3"),
            # SQLite is the embedded default for one local user; a longer lock timeout keeps the
            # web process and an in-process task from tripping over each other.
            # IMMEDIATE: a transaction takes the write lock when it begins, so a request and a task's
            # thread (TASKS_IN_THREADS) wait for each other instead of failing on a lock upgrade.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, cache and Celery --------------------------------------------------------------------------

REDIS_URL = env.REDIS_URL
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "vtt_site.cache.RedisCache",
            "LOCATION": REDIS_URL,
            # Short timeouts: with Redis away a request falls back to local counters (vtt_site.cache)
            # at once instead of hanging on a connection.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
# Without a broker the tasks run in-process, synchronously, right after the transaction commits.
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = False
# Without a broker, run each task in a thread of its own started on commit instead of inside the request
# that queued it (`make run` sets it for its web server: an audit or a fit no longer holds the browser;
# vtt_site.queueing.task_queue). Off, the tasks run synchronously, which commands and tests rely on.
TASKS_IN_THREADS = env.TASKS_IN_THREADS and not REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env.CELERY_TASK_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = env.CELERY_TASK_SOFT_TIME_LIMIT
# With late acknowledgement Redis redelivers a task that is not acknowledged within the visibility
# timeout. A redelivery of a running job finds it held and does nothing; the job sweeper, not the
# redelivery, is what takes over a job whose worker died (vtt_site/jobs.py).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Three queues, each with workers of its own (scripts/serve.sh, docker-compose.yml): the long jobs
# (imports, fits, automatic truthing, audits, scoring) on CELERY_QUEUE; on CELERY_PROPOSAL_QUEUE
# what an operator or the service waits for: the next question of a stream and the beat's sweeps; on
# CELERY_DEAL_QUEUE the deals a vision system waits for before its session can be taken. Neither an
# operator's next question nor a system's first streams wait behind a long job (decisions 0041, 0053).
CELERY_TASK_DEFAULT_QUEUE = env.CELERY_QUEUE
CELERY_PROPOSAL_QUEUE = env.CELERY_PROPOSAL_QUEUE or f"{CELERY_TASK_DEFAULT_QUEUE}-proposals"
CELERY_DEAL_QUEUE = env.CELERY_DEAL_QUEUE or f"{CELERY_TASK_DEFAULT_QUEUE}-deals"
# Which task runs on which queue, and the beat's schedule, are each app's own (`<app>/queues.py`,
# vtt_site.queueing); vtt_site.celery makes Celery's routes and schedule from them.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_IMPORTS = ["vtt_site.tasks"]
# The beat is a process of its own (`celery beat`), and exactly one sends: it takes a lock in Redis at
# start (RedBeat), renews it on every tick (at most every CELERY_BEAT_MAX_LOOP_INTERVAL seconds) and
# stops at once when it no longer holds it; a second beat waits for the lock. A beat that dies holds it
# for BEAT_LOCK_SECONDS at most, then a restarted or waiting beat takes over. The schedule lives in Redis
# too, written from the schedule at each start (the apps' periodic tasks, vtt_site.queueing): Redis losing its data (a restart without
# persistence) takes the lock with it, the beat stops and its supervisor starts it again.
BEAT_LOCK_SECONDS = env.BEAT_LOCK_SECONDS
CELERY_BEAT_SCHEDULER = "redbeat.RedBeatScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = max(0.5, min(5.0, BEAT_LOCK_SECONDS / 3))
CELERY_REDBEAT_REDIS_URL = REDIS_URL or None
CELERY_REDBEAT_REDIS_OPTIONS: dict[str, object] = {}
CELERY_REDBEAT_KEY_PREFIX = f"vtt-beat:{CELERY_TASK_DEFAULT_QUEUE}:"
CELERY_REDBEAT_LOCK_TIMEOUT = BEAT_LOCK_SECONDS

# --- Background jobs (vtt_site/jobs.py) ----------------------------------------------------------------
# A running job refreshes its heartbeat every JOB_HEARTBEAT_SECONDS; one not refreshed for
# JOB_STALE_SECONDS lost its worker, and the sweeper (every JOB_SWEEP_SECONDS, sent by the beat) queues it
# again for a takeover. Queued jobs that never reached the broker, or did longer than
# JOB_REQUEUE_SECONDS ago, are queued again too, and all queued jobs at once when the broker lost its
# messages (vtt_site.broker.broker_lost_messages). A job claimed JOB_MAX_ATTEMPTS times without
# finishing fails with a message.
JOB_HEARTBEAT_SECONDS = env.JOB_HEARTBEAT_SECONDS
JOB_STALE_SECONDS = env.JOB_STALE_SECONDS
JOB_SWEEP_SECONDS = env.JOB_SWEEP_SECONDS
JOB_REQUEUE_SECONDS = env.JOB_REQUEUE_SECONDS
JOB_MAX_ATTEMPTS = env.JOB_MAX_ATTEMPTS
# How many background jobs of one kind (imports, fits, audits) one user may have waiting or running at
# once; a second audit of a test joins the one waiting or running.
JOBS_MAX_PER_USER = env.JOBS_MAX_PER_USER
# A long job (automatic truthing, a deal, an audit) waits between two engine steps while an operator
# waits for a proposal, for at most this long at a time (vtt_site.interactive; 0: never waits).
LONG_JOB_GIVE_WAY_SECONDS = env.LONG_JOB_GIVE_WAY_SECONDS
if JOB_HEARTBEAT_SECONDS * 2 > JOB_STALE_SECONDS:
    raise ImproperlyConfigured("JOB_STALE_SECONDS must be at least twice JOB_HEARTBEAT_SECONDS.")
# How often the sessions of tests whose deadline has passed are looked for and closed. A session read
# or answered after its deadline closes at once anyway; this closes the abandoned ones.
EVALUATION_DEADLINE_SWEEP_SECONDS = env.EVALUATION_DEADLINE_SWEEP_SECONDS
# A session that ended this long ago without a score lost its scoring task (the broker was down when it
# ended, or a worker died with it): the beat queues the scoring again, as often as the deadline sweep.
EVALUATION_SCORE_GRACE_SECONDS = env.EVALUATION_SCORE_GRACE_SECONDS
# --- Auth ---------------------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First: it refuses a login from an address or for an account that failed too often, before any
    # password is checked (decision 0009).
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "accounts.backends.AdminRoleBackend",
]
LOGIN_URL = "frontend:login"
LOGIN_REDIRECT_URL = "frontend:home"
LOGOUT_REDIRECT_URL = "frontend:login"

# Failed password logins (/login/, /admin/login/) through django-axes: after AXES_FAILURE_LIMIT failures
# from one address, or for one username, further attempts are refused for the cool-off time, even with
# the right password. Attempts are rows in the database, so the limit holds with Redis down.
AXES_FAILURE_LIMIT = env.LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=env.LOGIN_COOLOFF_MINUTES)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "accounts.throttling.axes_client_address"
# Failed API token authentications: per address (and per account, for a revoked or expired token) in a
# window; past the limit further failures from there get a 429 until the window ends. A valid token is
# always served (accounts.throttling.auth_failure).
AUTH_FAILURE_LIMIT = env.API_AUTH_FAILURE_LIMIT
AUTH_FAILURE_WINDOW_SECONDS = env.API_AUTH_FAILURE_WINDOW_SECONDS
# Live (unrevoked, unexpired) API tokens a user may hold at once.
TOKENS_MAX_PER_USER = env.TOKENS_MAX_PER_USER

# --- API ----------------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    # Token first: its `WWW-Authenticate` header is what makes an anonymous request a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Fails closed: a view that does not name its operation in accounts.roles cannot be reached.
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.OperationPermission"],
    "DEFAULT_PAGINATION_CLASS": "vtt_site.api.pagination.PagePagination",
    "PAGE_SIZE": env.API_PAGE_SIZE,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON only: the schema must not offer form bodies for operations that take nested JSON. The upload
    # and import views declare their multipart parsers themselves.
    "DEFAULT_PARSER_CLASSES": ["vtt_site.api.parsers.SafeJSONParser"],
    "EXCEPTION_HANDLER": "vtt_site.api.errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttling.TokenRateThrottle",
        "accounts.throttling.SessionUserRateThrottle",
        "accounts.throttling.AddressRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "token": env.API_RATE_TOKEN,
        "session": env.API_RATE_SESSION,
        "anon": env.API_RATE_ANON,
    },
    "DEFAULT_SCHEMA_CLASS": "vtt_site.api.schema.VttAutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Visual Turing Test platform API",
    "DESCRIPTION": (
        "Vocabularies, image collections, annotation, the query engine, truthing and evaluation. "
        "Every failure has the shape {code, message, fields}."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "ENUM_NAME_OVERRIDES": {
        "YesNoEnum": ["yes", "no"],
        "AnswerEnum": ["yes", "no", "ambiguous"],
        # A session's state keeps its first name; the scores of a system carry narrower sets.
        "StateEnum": ["active", "finished", "expired", "voided"],
        "ScoredSessionStateEnum": ["finished", "expired"],
        "FrozenTestStateEnum": ["published", "archived"],
        "SystemShownEnum": "evaluation.models.SystemShown",
    },
}


# --- Files --------------------------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on every start when it is missing
# Served by WhiteNoise from the app; the finders let it serve without a collectstatic step locally.
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = Path(env.MEDIA_ROOT or VAR_DIR / "media")
MEDIA_URL = "/media/"  # never routed: images are served by a view that checks permissions
# Every file goes through the default storage: MEDIA_ROOT, or a bucket (MEDIA_STORAGE=s3; vtt_site/storage.py).
S3_STORAGE_OPTIONS = s3_storage_options()  # media_move reaches the bucket whatever MEDIA_STORAGE says
STORAGES = {
    "default": default_storage_entry(),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
S3_URL_SECONDS = env.S3_URL_SECONDS
S3_STREAM_IMAGES = env.S3_STREAM_IMAGES
# The largest request body of any kind, file uploads included: refused from its Content-Length before
# a byte is read (vtt_site.middleware), so nobody fills the disk with one request.
UPLOAD_MAX_REQUEST_BYTES = env.UPLOAD_MAX_REQUEST_BYTES
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_REQUEST_BYTES
# A request running longer is stopped with a 503 in the error shape (vtt_site.middleware); `make serve`
# and docker-compose set it a little under gunicorn's --timeout. 0: no deadline (runserver, tests).
REQUEST_TIMEOUT_SECONDS = env.REQUEST_TIMEOUT_SECONDS
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = env.UPLOAD_MAX_FILES
# The largest JSON body of an operation that names no limit of its own (`json_body_max_bytes` on the
# view: an answer takes 8 KiB, an annotation 4 MiB; vtt_site.api.parsers). Imports and uploads are files,
# limited by UPLOAD_MAX_REQUEST_BYTES.
JSON_BODY_MAX_BYTES = env.JSON_BODY_MAX_BYTES
# How deeply a JSON body or an imported record may nest (a scene graph needs 4 levels).
JSON_MAX_DEPTH = env.JSON_MAX_DEPTH

# --- Internationalisation -----------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.TIME_ZONE
USE_I18N = True
USE_TZ = True

# --- Logging ------------------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "stream": sys.stderr}},
    "root": {"handlers": ["console"], "level": env.LOG_LEVEL},
    # Under `make run` every task runs in the web process, the periodic ones every 15 s: Celery's line
    # per task that succeeded buried the server's own in the newcomer's terminal. Failures still show.
    "loggers": {"celery.app.trace": {"level": "WARNING"}} if TASKS_IN_THREADS else {},
}
