#!/usr/bin/env bash
# `make serve`: the docker-compose set-up without Docker, on whatever DATABASE_URL and REDIS_URL say.
#
#   scripts/serve.sh            migrate, collect static files, then supervisord runs the five processes
#                               below and starts again whichever dies (scripts/supervisord.conf)
#   scripts/serve.sh web        gunicorn (the API, the pages and their static files)
#   scripts/serve.sh worker     a Celery worker for the long jobs (imports, fits, automatic truthing,
#                               audits, scoring), at a lower CPU priority than the rest
#   scripts/serve.sh proposer   a Celery worker for the operators' next questions and the sweeps only
#   scripts/serve.sh dealer     a Celery worker for the deals only: a vision system's fresh streams
#   scripts/serve.sh beat       Celery beat: the sweeps' clock; exactly one sends (a lock in Redis)
#
# Each role replaces this shell (exec), so the process supervisord watches is the program itself.
set -euo pipefail
BIN=${BIN:-.venv/bin}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}

# gunicorn kills a worker after --timeout; the app stops a request 10 s earlier with a 503 in the error
# shape (vtt_site.middleware.RequestDeadlineMiddleware), so a client never gets gunicorn's HTML page.
# Production defaults: cookies only over HTTPS (browsers treat http://localhost as secure, so a local
# browser still logs in) and HSTS on HTTPS responses. `make run` keeps plain-HTTP defaults.
export SECURE_COOKIES=${SECURE_COOKIES:-1}
export HSTS_SECONDS=${HSTS_SECONDS:-31536000}
WEB_TIMEOUT=${WEB_TIMEOUT:-60}
export REQUEST_TIMEOUT_SECONDS=${REQUEST_TIMEOUT_SECONDS:-$((WEB_TIMEOUT - 10))}

# The queues as the settings name them (the environment, then .env, then the defaults), asked once by
# the whole service so that a queue renamed in .env is the one the workers take.
queues() {
  if [[ -z "${CELERY_QUEUE:-}" || -z "${CELERY_PROPOSAL_QUEUE:-}" || -z "${CELERY_DEAL_QUEUE:-}" ]]; then
    read -r CELERY_QUEUE CELERY_PROPOSAL_QUEUE CELERY_DEAL_QUEUE < <("$BIN/python" -c \
      "from vtt_site import settings as s
print(s.CELERY_TASK_DEFAULT_QUEUE, s.CELERY_PROPOSAL_QUEUE, s.CELERY_DEAL_QUEUE)")
    export CELERY_QUEUE CELERY_PROPOSAL_QUEUE CELERY_DEAL_QUEUE
  fi
}

celery_worker() {  # name, queue, concurrency, niceness
  exec nice -n "$4" "$BIN/celery" -A vtt_site worker --hostname "$1@%h" --queues "$2" --concurrency "$3" \
    --loglevel "${WORKER_LOGLEVEL:-info}" --without-gossip --without-mingle
}

case "${1:-all}" in
  web)
    # Each worker is replaced after about WEB_MAX_REQUESTS requests (the jitter staggers them), so
    # memory one large request took does not stay with the worker for good. An operator's answer holds
    # its worker while it waits for the next question (decision 0077), idle but taken: gunicorn's own
    # rule, 2 per core plus 1, keeps workers free for the other operators (5 on 2 cores, where 2 made
    # answers queue behind one another's waits).
    exec "$BIN/gunicorn" vtt_site.wsgi:application --bind "$HOST:$PORT" \
      --workers "${WEB_WORKERS:-$((2 * $(nproc) + 1))}" \
      --timeout "$WEB_TIMEOUT" --max-requests "${WEB_MAX_REQUESTS:-1000}" \
      --max-requests-jitter "${WEB_MAX_REQUESTS_JITTER:-100}" --access-logfile -
    ;;
  worker)
    # Niceness 10: on a busy machine the web and the proposer get the CPU first, so a long job slows
    # down rather than an operator's next question.
    queues
    celery_worker jobs "$CELERY_QUEUE" "${WORKER_CONCURRENCY:-1}" "${WORKER_NICE:-10}"
    ;;
  proposer)
    # Two processes, as docker-compose: with one, 16 operators' proposals (and the sweeps) queued behind
    # each other, and the next question's p95 was 152 ms against 150 (decision 0077).
    queues
    celery_worker proposals "$CELERY_PROPOSAL_QUEUE" "${PROPOSER_CONCURRENCY:-2}" 0
    ;;
  dealer)
    # A deal gives way to operators between its engine steps (vtt_site.interactive), like a long job,
    # but never waits behind one: the system that enrolled waits for it.
    queues
    celery_worker deals "$CELERY_DEAL_QUEUE" "${DEALER_CONCURRENCY:-2}" "${WORKER_NICE:-10}"
    ;;
  beat)
    exec "$BIN/celery" -A vtt_site beat --loglevel "${WORKER_LOGLEVEL:-info}"
    ;;
  all)
    "$BIN/python" manage.py migrate --noinput
    "$BIN/python" manage.py collectstatic --noinput >/dev/null
    queues
    export BIN HOST PORT SERVE_DIR=${VAR_DIR:-var}
    mkdir -p "$SERVE_DIR"
    echo "Serving on http://$HOST:$PORT/: web, worker ($CELERY_QUEUE), proposer ($CELERY_PROPOSAL_QUEUE), dealer ($CELERY_DEAL_QUEUE), beat" >&2
    exec "$BIN/supervisord" --configuration scripts/supervisord.conf
    ;;
  *)
    echo "usage: $0 [web|worker|proposer|beat]" >&2
    exit 2
    ;;
esac
