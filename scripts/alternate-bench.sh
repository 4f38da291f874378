#!/usr/bin/env bash
# Runs one storybridge-bench benchmark of two builds in alternation, as docs/BENCHMARKS.md judges
# a target: RUNS full runs of each, A, B, A, B, ... (or B first with --b-first), each run's whole
# output kept in OUT/<n>-<label>.log, and a line per run on standard output.
#
#   scripts/alternate-bench.sh [--b-first] [--a-extra "ARGS"] [--b-extra "ARGS"] OUT RUNS A_FOLDER B_FOLDER -- BENCH ARGUMENTS...
#
# --a-extra/--b-extra add arguments to one side's runs only (A and B may then be one folder: the
# same build with and without an option, e.g. --a-extra --unsigned for delta-sync).
# A_FOLDER and B_FOLDER each hold a `storybridge-bench` with the `storybridge` (and its resource
# bundles) it drives beside it: a release build's `.build/release`, or a folder the binaries were
# copied into. Each run starts from its own folder, so `ServeChild.binary()` finds that build's
# host. Nothing else should run on the machine meanwhile; the script prints the load average
# before each run so a loaded run shows.
#
# Example (the one-slide delta of TRUST.md 7.3):
#   scripts/alternate-bench.sh /tmp/delta 6 /work/base/.build/release .build/release -- delta-sync --rounds 3
set -euo pipefail

b_first=0
a_extra=()
b_extra=()
while [[ "${1:-}" == --* && "${1:-}" != "--" ]]; do
    case "$1" in
        --b-first) b_first=1; shift ;;
        --a-extra) read -r -a a_extra <<<"$2"; shift 2 ;;
        --b-extra) read -r -a b_extra <<<"$2"; shift 2 ;;
        *) echo "alternate-bench: unknown option $1" >&2; exit 64 ;;
    esac
done
if [[ $# -lt 5 || "$5" != "--" ]]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
fi
out=$1 runs=$2 a=$(cd "$3" && pwd) b=$(cd "$4" && pwd)
shift 5
for folder in "$a" "$b"; do
    for binary in storybridge-bench storybridge; do
        if [[ ! -x "$folder/$binary" ]]; then
            echo "alternate-bench: $folder has no executable $binary" >&2
            exit 66
        fi
    done
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "alternate-bench: RUNS must be a positive whole number, not '$runs'" >&2
    exit 64
fi
mkdir -p "$out"
echo "A = $a"
echo "B = $b"
echo "benchmark: storybridge-bench $*"
n=0
for ((round = 1; round <= runs; round++)); do
    if ((b_first)); then order=(B A); else order=(A B); fi
    for label in "${order[@]}"; do
        n=$((n + 1))
        if [[ $label == A ]]; then folder=$a; extra=("${a_extra[@]}"); else folder=$b; extra=("${b_extra[@]}"); fi
        log="$out/$(printf '%02d' "$n")-$label.log"
        started=$(date -u +%H:%M:%S)
        load=$(cut -d' ' -f1 /proc/loadavg)
        if (cd "$folder" && ./storybridge-bench "$@" "${extra[@]}") >"$log" 2>&1; then status=ok; else status="failed ($?)"; fi
        echo "run $n: $label, round $round, started $started UTC, load $load, $status, log $log"
    done
done
