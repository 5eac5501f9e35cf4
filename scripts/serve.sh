#!/usr/bin/env bash
# Web (gunicorn, static files served by the app) and a Celery worker (with the job sweeper's beat), like docker-compose's web and
# worker services, on whatever DATABASE_URL and REDIS_URL say. Stops both when either stops.
set -euo pipefail
BIN=${BIN:-.venv/bin}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}

"$BIN/python" manage.py migrate --noinput
"$BIN/python" manage.py collectstatic --noinput >/dev/null

# gunicorn kills a worker after --timeout; the app stops a request 10 s earlier with a 503 in the error
# shape (vtt_site.middleware.RequestDeadlineMiddleware), so a client never gets gunicorn's HTML page.
# Production defaults: cookies only over HTTPS (browsers treat http://localhost as secure, so a local
# browser still logs in) and HSTS on HTTPS responses. `make run` keeps plain-HTTP defaults.
export SECURE_COOKIES=${SECURE_COOKIES:-1}
export HSTS_SECONDS=${HSTS_SECONDS:-31536000}
WEB_TIMEOUT=${WEB_TIMEOUT:-60}
export REQUEST_TIMEOUT_SECONDS=${REQUEST_TIMEOUT_SECONDS:-$((WEB_TIMEOUT - 10))}
"$BIN/gunicorn" vtt_site.wsgi:application --bind "$HOST:$PORT" --workers "${WEB_WORKERS:-2}" \
  --timeout "$WEB_TIMEOUT" --access-logfile - &
web=$!
# --beat: the job sweeper (vtt_site/jobs.py) runs in this one worker; run exactly one worker with it.
"$BIN/celery" -A vtt_site worker --beat --loglevel "${WORKER_LOGLEVEL:-info}" \
  --concurrency "${WORKER_CONCURRENCY:-1}" --queues "${CELERY_QUEUE:-vtt}" &
worker=$!

trap 'kill -TERM $web $worker 2>/dev/null; wait' INT TERM EXIT
echo "Serving on http://$HOST:$PORT/ with a Celery worker (pids $web, $worker)" >&2
wait -n $web $worker
