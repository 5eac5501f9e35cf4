"""The one settings module, driven by environment variables.

With nothing set the platform runs on its embedded defaults: a SQLite file in the project folder and
Celery tasks executed in-process (eager), so it needs no server but itself. `DATABASE_URL` switches to
PostgreSQL (psycopg 3) and `REDIS_URL` to a Redis broker served by real Celery workers, which is what
docker-compose and CI use. `.env.example` lists every variable with its default; a `.env` file in the
project folder is read when present (real environment variables win).
"""

from __future__ import annotations

import ipaddress
import secrets
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from vtt_site.env import env_bool, env_float, env_int, env_list, env_number_overrides, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
load_dotenv(BASE_DIR / ".env", override=False)

VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)  # the SQLite file, the beat schedule, media and statistics

# --- Core -------------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off. `make run` writes one into .env; "
            "or set SECRET_KEY in the environment."
        )
    # A throwaway key: sessions do not survive a restart, which is acceptable only in DEBUG.
    SECRET_KEY = secrets.token_urlsafe(50)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For is believed: behind
# them the client's own address is what rate limits and login lockouts count (accounts.throttling
# .client_address). Empty: the peer's address, and X-Forwarded-For is ignored, since anyone can send it.
try:
    TRUSTED_PROXIES = [ipaddress.ip_network(item, strict=False) for item in env_list("TRUSTED_PROXIES", "")]
except ValueError as exc:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES holds something that is not an address: {exc}") from None
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# HSTS is sent on HTTPS responses only, so it is harmless for `make run` on plain HTTP; `make serve` and
# docker-compose set it (and SECURE_COOKIES) for a deployment behind TLS.
SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
# On every page, `make run` included: the pages load scripts and styles from this site only, and the
# browser tests fail on any violation (a console error).
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)
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

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    try:
        DATABASES = {
            "default": dj_database_url.parse(
                DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60), conn_health_checks=True
            )
        }
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a usable database URL: {exc}") from None
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(VAR_DIR / "vtt.sqlite3")),
            # SQLite is the embedded default for one local user; a longer lock timeout keeps the
            # web process and an in-process task from tripping over each other.
            # IMMEDIATE: a transaction takes the write lock when it begins, so a request and a task's
            # thread (TASKS_IN_THREADS) wait for each other instead of failing on a lock upgrade.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, cache and Celery --------------------------------------------------------------------------

REDIS_URL = env_str("REDIS_URL")
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
TASKS_IN_THREADS = env_bool("TASKS_IN_THREADS", False) and not REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 1740)
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
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "vtt")
CELERY_PROPOSAL_QUEUE = env_str("CELERY_PROPOSAL_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-proposals")
CELERY_DEAL_QUEUE = env_str("CELERY_DEAL_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-deals")
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
BEAT_LOCK_SECONDS = env_float("BEAT_LOCK_SECONDS", 30.0)
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
JOB_HEARTBEAT_SECONDS = env_float("JOB_HEARTBEAT_SECONDS", 10.0)
JOB_STALE_SECONDS = env_float("JOB_STALE_SECONDS", 45.0)
JOB_SWEEP_SECONDS = env_float("JOB_SWEEP_SECONDS", 15.0)
JOB_REQUEUE_SECONDS = env_float("JOB_REQUEUE_SECONDS", 900.0)
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 3)
# How many background jobs of one kind (imports, fits, audits) one user may have waiting or running at
# once; a second audit of a test joins the one waiting or running.
JOBS_MAX_PER_USER = env_int("JOBS_MAX_PER_USER", 3)
# A long job (automatic truthing, a deal, an audit) waits between two engine steps while an operator
# waits for a proposal, for at most this long at a time (vtt_site.interactive; 0: never waits).
LONG_JOB_GIVE_WAY_SECONDS = env_float("LONG_JOB_GIVE_WAY_SECONDS", 0.5)
if JOB_HEARTBEAT_SECONDS * 2 > JOB_STALE_SECONDS:
    raise ImproperlyConfigured("JOB_STALE_SECONDS must be at least twice JOB_HEARTBEAT_SECONDS.")
# How often the sessions of tests whose deadline has passed are looked for and closed. A session read
# or answered after its deadline closes at once anyway; this closes the abandoned ones.
EVALUATION_DEADLINE_SWEEP_SECONDS = env_float("EVALUATION_DEADLINE_SWEEP_SECONDS", 60.0)
# A session that ended this long ago without a score lost its scoring task (the broker was down when it
# ended, or a worker died with it): the beat queues the scoring again, as often as the deadline sweep.
EVALUATION_SCORE_GRACE_SECONDS = env_float("EVALUATION_SCORE_GRACE_SECONDS", 300.0)
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
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "accounts.throttling.axes_client_address"
# Failed API token authentications: per address (and per account, for a revoked or expired token) in a
# window; past the limit further failures from there get a 429 until the window ends. A valid token is
# always served (accounts.throttling.auth_failure).
AUTH_FAILURE_LIMIT = env_int("API_AUTH_FAILURE_LIMIT", 30)
AUTH_FAILURE_WINDOW_SECONDS = env_int("API_AUTH_FAILURE_WINDOW_SECONDS", 300)
# Live (unrevoked, unexpired) API tokens a user may hold at once.
TOKENS_MAX_PER_USER = env_int("TOKENS_MAX_PER_USER", 20)

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
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 50),
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
        "token": env_str("API_RATE_TOKEN", "1200/min"),
        "session": env_str("API_RATE_SESSION", "1200/min"),
        "anon": env_str("API_RATE_ANON", "60/min"),
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
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "/media/"  # never routed: images are served by a view that checks permissions
# The largest request body of any kind, file uploads included: refused from its Content-Length before
# a byte is read (vtt_site.middleware), so nobody fills the disk with one request.
UPLOAD_MAX_REQUEST_BYTES = env_int("UPLOAD_MAX_REQUEST_BYTES", 50 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_REQUEST_BYTES
# A request running longer is stopped with a 503 in the error shape (vtt_site.middleware); `make serve`
# and docker-compose set it a little under gunicorn's --timeout. 0: no deadline (runserver, tests).
REQUEST_TIMEOUT_SECONDS = env_float("REQUEST_TIMEOUT_SECONDS", 0.0)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = env_int("UPLOAD_MAX_FILES", 500)
# The largest JSON body of an operation that names no limit of its own (`json_body_max_bytes` on the
# view: an answer takes 8 KiB, an annotation 4 MiB; vtt_site.api.parsers). Imports and uploads are files,
# limited by UPLOAD_MAX_REQUEST_BYTES.
JSON_BODY_MAX_BYTES = env_int("JSON_BODY_MAX_BYTES", 64 * 1024)
# How deeply a JSON body or an imported record may nest (a scene graph needs 4 levels).
JSON_MAX_DEPTH = env_int("JSON_MAX_DEPTH", 64)

# --- Domain settings ----------------------------------------------------------------------------------

VTT: dict[str, Any] = {
    "IMAGE_MAX_BYTES": env_int("IMAGE_MAX_BYTES", 25 * 1024 * 1024),
    "IMAGE_MAX_PIXELS": env_int("IMAGE_MAX_PIXELS", 40_000_000),
    # What all the zip archives of one upload may unpack to, together; checked before each entry is
    # unpacked (annotations.files.InflationBudget). Images hardly compress, so an honest upload unpacks to
    # about its own size (UPLOAD_MAX_REQUEST_BYTES).
    "ZIP_MAX_BYTES": env_int("ZIP_MAX_BYTES", 256 * 1024 * 1024),
    # An import's images archive (a download's images beside its annotations): unpacked size and files.
    "IMPORT_IMAGES_MAX_BYTES": env_int("IMPORT_IMAGES_MAX_BYTES", 64 * 1024**3),
    "IMPORT_IMAGES_MAX_FILES": env_int("IMPORT_IMAGES_MAX_FILES", 2_000_000),
    # An open-vocabulary import with more refused entries than this share is refused whole (not --strict).
    "IMPORT_MAX_REFUSED_SHARE": env_float("IMPORT_MAX_REFUSED_SHARE", 0.05),
    "LEASE_MINUTES": env_int("LEASE_MINUTES", 30),
    # Per image, far above a real street scene; checked before any other work on a save or an import.
    "ANNOTATION_MAX_OBJECTS": env_int("ANNOTATION_MAX_OBJECTS", 1000),
    "ANNOTATION_MAX_RELATIONSHIPS": env_int("ANNOTATION_MAX_RELATIONSHIPS", 20_000),
    "ENGINE_DIR": Path(env_str("ENGINE_DIR", str(VAR_DIR / "engine"))),
    # Proposing settings the environment overrides; the defaults are the engine core's own
    # (engine.core.proposer.EngineSettings), read through engine.settings.engine_settings() only.
    "ENGINE_OVERRIDES": env_number_overrides(
        {
            "ENGINE_EPSILON": float,
            "ENGINE_MIN_POPULATION": int,
            "ENGINE_MAX_ATTRIBUTES": int,
            "ENGINE_MAX_QUESTIONS": int,
            "ENGINE_REJECTION_LIMIT": int,
            "ENGINE_PRIOR_STRENGTH": float,
            "ENGINE_WEIGHTED_STRENGTH": float,
            "ENGINE_RELATIONSHIP_STRENGTH": float,
            "ENGINE_CONSISTENCY_WEIGHT": float,
            "ENGINE_MIN_EVIDENCE": float,
            "ENGINE_SHARP_EPSILON": float,
        }
    ),
    "ENGINE_REGION_MIN_OVERLAP": env_float("ENGINE_REGION_MIN_OVERLAP", 0.0),
    # A fit over more training images than this is split into shards of at most this many, fitted by
    # the workers side by side and merged (exactly: engine.core.shards.merge).
    "ENGINE_FIT_SHARD_IMAGES": env_int("ENGINE_FIT_SHARD_IMAGES", 250_000),
    # Truthing: how long an operator holds a stream or a check without answering; the share of
    # operator-truthed streams a second operator checks; the share of oracle-truthed streams given to an
    # operator as gold work (they are not told), to measure operators against the oracle.
    "TRUTHING_LEASE_MINUTES": env_int("TRUTHING_LEASE_MINUTES", 30),
    "TRUTHING_CHECK_SHARE": env_float("TRUTHING_CHECK_SHARE", 0.2),
    "TRUTHING_GOLD_SHARE": env_float("TRUTHING_GOLD_SHARE", 0.1),
    # An answer's response waits at most this long for the next question (vtt_site.wakeups): the page
    # shows it at once instead of asking again. A slower proposal is read by the page when it comes.
    "TRUTHING_ANSWER_WAIT_SECONDS": env_float("TRUTHING_ANSWER_WAIT_SECONDS", 2.0),
    # The oracle's work on a test is split in this many jobs, so that workers truth them side by side.
    "TRUTHING_AUTOMATIC_PARTS": env_int("TRUTHING_AUTOMATIC_PARTS", 2),
    # A session's fresh oracle stream prefers the questions least told to earlier sessions, counted over
    # this many of the latest streams dealt on the image (truthing.published.exposure).
    "TRUTHING_DEAL_EXPOSURE_STREAMS": env_int("TRUTHING_DEAL_EXPOSURE_STREAMS", 100),
    # The audit of a test trains its blind guesser on oracle streams of this many training images.
    "AUDIT_TRAINING_STREAMS": env_int("AUDIT_TRAINING_STREAMS", 500),
    # Evaluation: how many vision systems of one owner may enrol in one test (each session teaches its
    # system every correct answer, so many systems of one owner would be one system taking it many times).
    "EVALUATION_MAX_SYSTEMS_PER_TEST": env_int("EVALUATION_MAX_SYSTEMS_PER_TEST", 3),
    "EVALUATION_POSITION_MIN": env_int("EVALUATION_POSITION_MIN", 20),
    # Where a browser or a model server reaches this site (scheme, host, port): the signed image URLs sent
    # to a collection's model server are made from it (decision 0078). Unset, the address `make run` or
    # `make serve` listens on (SERVED_URL, which they set from their HOST and PORT); a deployment behind a
    # proxy names its public address here.
    "SITE_URL": env_str("SITE_URL") or env_str("SERVED_URL", "http://127.0.0.1:8000/"),
    # Suggestions from a model (docs/suggestions.md): how long a signed image URL stays valid; how long the
    # annotator's page waits for a first answer; how long a fetch ahead or a pre-annotation waits for one
    # image (and a check for /health and /setup); the connect timeout and the largest answer read.
    "SUGGESTIONS_URL_SECONDS": env_int("SUGGESTIONS_URL_SECONDS", 600),
    "SUGGESTIONS_WAIT_SECONDS": env_float("SUGGESTIONS_WAIT_SECONDS", 3.0),
    "SUGGESTIONS_TIMEOUT_SECONDS": env_float("SUGGESTIONS_TIMEOUT_SECONDS", 10.0),
    "SUGGESTIONS_CONNECT_SECONDS": env_float("SUGGESTIONS_CONNECT_SECONDS", 2.0),
    "SUGGESTIONS_MAX_ANSWER_BYTES": env_int("SUGGESTIONS_MAX_ANSWER_BYTES", 5 * 1024 * 1024),
    # The key that seals a model server's credential (annotations.suggestions.secrets); SECRET_KEY when
    # unset. Changing it makes stored credentials unreadable: they must be entered again.
    "SUGGESTIONS_CREDENTIALS_KEY": env_str("SUGGESTIONS_CREDENTIALS_KEY") or SECRET_KEY,
}

# --- Internationalisation -----------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- Logging ------------------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "stream": sys.stderr}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # Under `make run` every task runs in the web process, the periodic ones every 15 s: Celery's line
    # per task that succeeded buried the server's own in the newcomer's terminal. Failures still show.
    "loggers": {"celery.app.trace": {"level": "WARNING"}} if TASKS_IN_THREADS else {},
}
