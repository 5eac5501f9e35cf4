#!/usr/bin/env bash
# `make test`'s three parts at once (decision 0084): the checks (ruff, mypy, the schema, the migrations,
# the import contracts) and the Django-free tests in the background, each into a log of its own, while the
# Django tests run in front on TEST_WORKERS pytest-xdist workers. The Django tests wait on processes,
# browsers and sockets for about 40% of their time (2 cores, 3 workers: 13 min of CPU in 11 min of wall),
# and the other two parts fill that time instead of adding theirs to it.
# The Makefile passes BIN, TEST_WORKERS, DJANGO_FREE_TESTS, DATABASE_URL and REDIS_URL.
set -uo pipefail
cd "$(dirname "$0")/.."

# One thread per process for OpenMP and the BLAS: the suite runs three pytest workers and two background
# parts on two cores, and scikit-learn's boosting (the seeing baseline) spins a thread per core in each of
# them. Oversubscribed, its OpenMP threads spin while they wait: the seeing baseline's test took 202 s of
# wall and 92 s of CPU beside the other parts, and 42 s and 31 s with one thread (issue 47, item 9).
# Asynchronous commits: a test database need not survive a crash of PostgreSQL, and each commit of the
# transactional and served tests then returns without waiting for its fsync.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}
export PGOPTIONS="${PGOPTIONS:-} -c synchronous_commit=off"

LOGS=var/test-logs
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log

# The Django-free tests on one worker: the other core is the Django tests'. -p no:django proves that the
# engine core, the kernel, the scene generators and the scoring core need no Django.
"$BIN/python" -m pytest -q -p no:django -W ignore::pytest.PytestConfigWarning -n 1 \
    $DJANGO_FREE_TESTS >"$LOGS/django-free.log" 2>&1 &
free=$!
make --no-print-directory check >"$LOGS/check.log" 2>&1 &
check=$!
echo "The checks and the Django-free tests run beside the Django tests: $LOGS/check.log, $LOGS/django-free.log"

ignored=()
for path in $DJANGO_FREE_TESTS; do ignored+=("--ignore=$path"); done
"$BIN/python" -m pytest -q --durations=15 -n "$TEST_WORKERS" --dist loadgroup "${ignored[@]}"
django=$?

wait "$check"
checked=$?
wait "$free"
freed=$?

report() {  # the part's verdict, and its whole log when it failed
    local name=$1 status=$2 log=$3
    if [ "$status" -eq 0 ]; then
        echo "$name: passed ($(tail -n 1 "$log"))"
    else
        echo "$name: FAILED (exit $status); its log, $log:"
        cat "$log"
    fi
}
echo
report "the checks" "$checked" "$LOGS/check.log"
report "the Django-free tests" "$freed" "$LOGS/django-free.log"
[ "$django" -eq 0 ] && echo "the Django tests: passed" || echo "the Django tests: FAILED (exit $django)"
[ "$checked" -eq 0 ] && [ "$freed" -eq 0 ] && [ "$django" -eq 0 ]
