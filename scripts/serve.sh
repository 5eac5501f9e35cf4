#!/usr/bin/env bash
# Web (gunicorn, static files served by the app) and a Celery worker (with the job sweeper's beat), like docker-compose's web and
# worker services, on whatever DATABASE_URL and REDIS_URL say. Stops both when either stops.
set -euo pipefail
BIN=${BIN:-.venv/bin}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}

"$BIN/python" manage.py migrate --noinput
"$BIN/python" manage.py collectstatic --noinput >/dev/null

"$BIN/gunicorn" vtt_site.wsgi:application --bind "$HOST:$PORT" --workers "${WEB_WORKERS:-2}" \
  --access-logfile - &
web=$!
# --beat: the job sweeper (vtt_site/jobs.py) runs in this one worker; run exactly one worker with it.
"$BIN/celery" -A vtt_site worker --beat --loglevel "${WORKER_LOGLEVEL:-info}" \
  --concurrency "${WORKER_CONCURRENCY:-1}" --queues "${CELERY_QUEUE:-vtt}" &
worker=$!

trap 'kill -TERM $web $worker 2>/dev/null; wait' INT TERM EXIT
echo "Serving on http://$HOST:$PORT/ with a Celery worker (pids $web, $worker)" >&2
wait -n $web $worker
