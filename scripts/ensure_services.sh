#!/usr/bin/env bash
# Start the machine's PostgreSQL and Redis when they are down (CI and `make test` need both), and a
# local SeaweedFS when the settings keep the files in a bucket on this machine (MEDIA_STORAGE=s3), or
# when asked with --s3 (`make test`: the storage tests run against a real one).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "PostgreSQL is down; starting it" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432 >/dev/null || { echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Redis is down; starting it" >&2
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { echo "Redis did not come up on 127.0.0.1:6379" >&2; exit 1; }

# The database the defaults point at; tests create their own test_ database next to it.
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='vtt'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE vtt"

storage=${MEDIA_STORAGE:-}
if [[ -z "$storage" && -f .env ]]; then storage=$(sed -n 's/^MEDIA_STORAGE=//p' .env | tail -n1); fi
if [[ "${1:-}" == "--s3" || "$storage" == "s3" ]]; then
  scripts/ensure_seaweedfs.sh
fi
