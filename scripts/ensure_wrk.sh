#!/usr/bin/env bash
# The answer-throughput benchmark drives the server with wrk; install Debian's package when missing
# (never a downloaded binary). The benchmark itself installs nothing: it says to run `make wrk`.
set -euo pipefail
command -v wrk >/dev/null && exit 0
echo "Installing Debian's wrk for benchmarks/answer_throughput.py" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
