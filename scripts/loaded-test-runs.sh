#!/usr/bin/env bash
# Runs the whole suite (scripts/test.sh) N times in a row while a second process keeps every core
# busy, and writes a summary: the evidence that the suite passes without a retry on a loaded
# machine. Usage:
#
#   bash scripts/loaded-test-runs.sh [RUNS] [LOG-FOLDER]     # default: 10 runs, a new temp folder
#
# The load is a second process group of busy loops, one per core, started before the first run
# and stopped after the last (also on Ctrl-C), so the suite never has the machine to itself. Each run's full output is kept as run-N.log in the log folder;
# summary.txt has one line per run (exit status, wall time, tests passed, the failed tests) and
# the load average seen at the end of each run. The script stops at the first failed run (its
# log names the test) and exits with that run's status.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
logs="${2:-$(mktemp -d -t storybridge-loaded-runs.XXXXXX)}"
mkdir -p "$logs"
cores="$(nproc)"
# The load: a busy loop per core, in a process group of its own, ended on any exit.
setsid bash -c "for i in \$(seq $cores); do (while :; do :; done) & done; wait" &
load_pid=$!
trap 'kill -- -"$load_pid" 2>/dev/null || true' EXIT
summary="$logs/summary.txt"
echo "loaded-test-runs: $runs runs of scripts/test.sh beside $cores busy loops, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)" | tee "$summary"
for run in $(seq "$runs"); do
    log="$logs/run-$run.log"
    started=$(date +%s)
    status=0
    bash scripts/test.sh >"$log" 2>&1 || status=$?
    seconds=$(($(date +%s) - started))
    passed=$(grep -Eo '^[0-9]+ passed, 0 failed' "$log" | grep -Eo '^[0-9]+' || echo 0)
    failed=$(grep -E '✘ Test .* (failed|recorded an issue)' "$log" | cut -c1-200 | sort -u | tr '\n' ';' || true)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "run $run: exit $status, ${seconds} s, $passed tests passed, load $load${failed:+, failed: $failed}" | tee -a "$summary"
    if [[ $status != 0 ]]; then
        echo "loaded-test-runs: run $run failed; its output is $log" | tee -a "$summary"
        exit "$status"
    fi
done
echo "loaded-test-runs: $runs of $runs runs passed; logs in $logs" | tee -a "$summary"
