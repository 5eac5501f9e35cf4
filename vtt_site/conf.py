"""The environment variables Django's own settings are made from (vtt_site/settings.py reads them here).

Declared as every app declares its own (vtt_site.app_settings), so that `.env.example` lists them too;
read without Django overrides, since they are read while Django's settings are being made: a test
overrides the Django setting made from one (`settings.AUTH_FAILURE_LIMIT`), not the variable.
"""

from __future__ import annotations

import ipaddress

from vtt_site.app_settings import BOOL, FLOAT, INT, LIST, STR, AppSettings, Kind, Setting, at_least

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(raw: str) -> list[Network]:
    return [ipaddress.ip_network(item.strip(), strict=False) for item in raw.split(",") if item.strip()]


NETWORKS: Kind[list[Network]] = Kind(
    "a comma-separated list of addresses or networks", _networks, lambda value: ",".join(map(str, value))
)


class SiteSettings(AppSettings):
    """The site: Django's own settings, the database, Redis and Celery, jobs, logins, the API"""

    django_overrides = False

    # Core
    SECRET_KEY = Setting(
        STR, "", "Required when DEBUG is off; `make run` and `make test` generate one into .env."
    )
    DEBUG = Setting(BOOL, False, "Django's debug mode: never on a server anyone else can reach.")
    ALLOWED_HOSTS = Setting(LIST, ["localhost", "127.0.0.1", "[::1]"], "The host names this site answers to.")
    CSRF_TRUSTED_ORIGINS = Setting(
        LIST, [], "Origins (scheme and host) trusted for unsafe requests, behind a proxy."
    )
    SECURE_COOKIES = Setting(BOOL, False, "Set to 1 behind HTTPS: secure session and CSRF cookies.")
    BEHIND_TLS_PROXY = Setting(BOOL, False, "Set to 1 behind a proxy that sets X-Forwarded-Proto.")
    TRUSTED_PROXIES = Setting(
        NETWORKS,
        [],
        "The reverse proxies whose X-Forwarded-For is believed, so that rate limits and login lockouts count "
        "each client's own address; empty: the peer's address.",
    )
    HSTS_SECONDS = Setting(
        INT,
        0,
        "Strict-Transport-Security max-age on HTTPS responses (make serve and docker-compose: a year).",
    )
    CONTENT_SECURITY_POLICY = Setting(
        STR,
        "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
        "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
        "The Content-Security-Policy of every page; empty: the built-in policy (scripts and styles from "
        "this site only).",
        example="",
    )
    TIME_ZONE = Setting(STR, "UTC", "The time zone of dates shown and of the logs.")
    LOG_LEVEL = Setting(STR, "INFO", "The level of the log lines written to standard error.")
    VAR_DIR = Setting(
        STR,
        "",
        "Where the SQLite file, uploaded images, fitted engine statistics and collected static files live; "
        "empty: var/ in the project folder.",
    )
    MEDIA_ROOT = Setting(
        STR, "", "Where the platform's files live when MEDIA_STORAGE is filesystem; empty: VAR_DIR/media."
    )

    # Files (vtt_site/storage.py, docs/storage.md)
    MEDIA_STORAGE = Setting(
        STR,
        "filesystem",
        "Where every file the platform keeps goes: filesystem (MEDIA_ROOT) or s3 (an S3-compatible bucket, "
        "S3_*), so that web and workers share no folder.",
        check=lambda value: None if value in {"filesystem", "s3"} else "filesystem or s3",
    )
    S3_ENDPOINT_URL = Setting(
        STR,
        "",
        "The S3 endpoint (e.g. http://127.0.0.1:8333, the local SeaweedFS `make serve` starts); empty: AWS.",
    )
    S3_PUBLIC_ENDPOINT_URL = Setting(
        STR,
        "",
        "The endpoint as browsers, systems and model servers reach it, for presigned URLs; empty: "
        "S3_ENDPOINT_URL.",
    )
    S3_BUCKET = Setting(STR, "vtt", "The bucket every file goes to (created by the local SeaweedFS).")
    S3_PREFIX = Setting(
        STR, "", "A folder of the bucket that holds every file (a bucket shared with others)."
    )
    S3_REGION = Setting(STR, "us-east-1", "The bucket's region.")
    S3_ACCESS_KEY_ID = Setting(STR, "", "The store's access key; empty: boto3's own search (a role).")
    S3_SECRET_ACCESS_KEY = Setting(STR, "", "The store's secret key; never shown in a page, response or log.")
    S3_URL_SECONDS = Setting(
        INT,
        300,
        "How long a presigned image URL handed to a browser, system or model server lasts.",
        check=at_least(1),
    )
    S3_STREAM_IMAGES = Setting(
        BOOL,
        False,
        "1: images pass through the platform (for a store clients cannot reach); 0: a presigned URL.",
    )
    S3_TIMEOUT_SECONDS = Setting(
        FLOAT,
        5.0,
        "How long one exchange with the store may take before it counts as down (uploads: a 503).",
        check=at_least(0.1),
    )

    # Database
    DATABASE_URL = Setting(
        STR, "", "Empty: a SQLite file in VAR_DIR; else e.g. postgres://postgres@127.0.0.1:5432/vtt."
    )
    SQLITE_PATH = Setting(STR, "", "The SQLite file when DATABASE_URL is empty; empty: VAR_DIR/vtt.sqlite3.")
    DB_CONN_MAX_AGE = Setting(INT, 60, "Seconds a database connection is kept open between requests.")

    # Redis and Celery
    REDIS_URL = Setting(
        STR,
        "",
        "Empty: Celery tasks run in-process and the cache is per process; else e.g. redis://127.0.0.1:6379/0.",
    )
    TASKS_IN_THREADS = Setting(
        BOOL,
        False,
        "Without REDIS_URL: 1 runs each task in a thread of its own after the request commits (make run sets "
        "it for its web server), 0 inside the request that queued it (commands, tests).",
    )
    CELERY_QUEUE = Setting(
        STR, "vtt", "The queue of the long jobs (imports, fits, automatic truthing, audits, scoring)."
    )
    CELERY_PROPOSAL_QUEUE = Setting(
        STR, "", "The queue of the operators' next questions and the sweeps; empty: CELERY_QUEUE-proposals."
    )
    CELERY_DEAL_QUEUE = Setting(
        STR, "", "The queue of the deals (a vision system's fresh streams); empty: CELERY_QUEUE-deals."
    )
    CELERY_TASK_TIME_LIMIT = Setting(INT, 1800, "Seconds after which a task is killed.")
    CELERY_TASK_SOFT_TIME_LIMIT = Setting(INT, 1740, "Seconds after which a task is asked to stop.")
    BEAT_LOCK_SECONDS = Setting(
        FLOAT,
        30.0,
        "Exactly one beat sends the sweeps: a beat that died holds its lock in Redis at most this long.",
        check=at_least(1),
    )

    # Background jobs (vtt_site/jobs.py)
    JOB_HEARTBEAT_SECONDS = Setting(FLOAT, 10.0, "How often a running job refreshes its heartbeat (seconds).")
    JOB_STALE_SECONDS = Setting(
        FLOAT, 45.0, "A job silent this long lost its worker and is taken over (at least two heartbeats)."
    )
    JOB_SWEEP_SECONDS = Setting(FLOAT, 15.0, "How often the beat looks for stale and unsent jobs (seconds).")
    JOB_REQUEUE_SECONDS = Setting(
        FLOAT, 900.0, "A queued job not started this long after it reached the broker is queued again."
    )
    JOB_MAX_ATTEMPTS = Setting(
        INT, 3, "A job claimed this many times without finishing fails with a message.", check=at_least(1)
    )
    JOBS_MAX_PER_USER = Setting(
        INT, 3, "Jobs of one kind (imports, fits, audits) one user may have waiting or running at once."
    )
    LONG_JOB_GIVE_WAY_SECONDS = Setting(
        FLOAT,
        0.5,
        "A long job waits between two engine steps while an operator waits for a question, at most this "
        "long at a time (0: never waits).",
    )
    EVALUATION_DEADLINE_SWEEP_SECONDS = Setting(
        FLOAT,
        60.0,
        "How often the beat closes the sessions of tests whose deadline passed and checks the scores.",
    )
    EVALUATION_SCORE_GRACE_SECONDS = Setting(
        FLOAT,
        300.0,
        "A session ended this long ago without a score lost its scoring task: it is queued again.",
    )

    # Logins and the API
    LOGIN_FAILURE_LIMIT = Setting(
        INT, 10, "Failed password logins (web and admin) per address or username before a lock-out."
    )
    LOGIN_COOLOFF_MINUTES = Setting(INT, 15, "How long a lock-out after failed password logins lasts.")
    API_AUTH_FAILURE_LIMIT = Setting(
        INT, 30, "Failed API token authentications per address (and account) in a window; then 429."
    )
    API_AUTH_FAILURE_WINDOW_SECONDS = Setting(
        INT, 300, "The window of API_AUTH_FAILURE_LIMIT (seconds).", check=at_least(1)
    )
    TOKENS_MAX_PER_USER = Setting(INT, 20, "Live API tokens one user may hold.")
    API_PAGE_SIZE = Setting(INT, 50, "Items per page of the API's lists.", check=at_least(1))
    API_RATE_TOKEN = Setting(
        STR, "1200/min", "Requests per API token (DRF's syntax: N/sec, N/min, N/hour, N/day)."
    )
    API_RATE_SESSION = Setting(STR, "1200/min", "Requests per signed-in browser user.")
    API_RATE_ANON = Setting(STR, "60/min", "Requests per anonymous address.")

    # Requests
    UPLOAD_MAX_REQUEST_BYTES = Setting(
        INT, 50 * 1024 * 1024, "The largest request body, file uploads included, refused before it is read."
    )
    UPLOAD_MAX_FILES = Setting(INT, 500, "Files one upload may hold.")
    REQUEST_TIMEOUT_SECONDS = Setting(
        FLOAT,
        0.0,
        "Stop a request running longer than this with a 503 in the error shape (0: never); make serve and "
        "docker-compose set it 10 s under gunicorn's --timeout.",
    )
    JSON_BODY_MAX_BYTES = Setting(
        INT,
        64 * 1024,
        "The largest JSON body of an operation that names no limit of its own; larger is a 413.",
    )
    JSON_MAX_DEPTH = Setting(
        INT, 64, "How deeply a JSON body or an imported record may nest; deeper is a 400."
    )


conf = SiteSettings()
