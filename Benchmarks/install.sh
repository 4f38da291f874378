#!/usr/bin/env bash
# Install benchmark: `storybridge install` of a generated ~200 MB package against `unzip -q` of the
# same file, in the same run, on the same disk. Prints each run and the ratio of the medians.
#   bash Benchmarks/install.sh [MEGABYTES] [RUNS]      (defaults: 200 MB, 5 runs each)
set -euo pipefail
cd "$(dirname "$0")/.."
megabytes=${1:-200}
runs=${2:-5}
work=$(mktemp -d /tmp/storybridge-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product storybridge >/dev/null
binary=$(swift build -c release --show-bin-path)/storybridge
python3 Benchmarks/make_package.py "$work/deck.zip" --megabytes "$megabytes"
ls -l "$work/deck.zip" | awk '{printf "package: %.1f MB compressed\n", $5/1e6}'

seconds() { python3 -c 'import sys,time; print(f"{time.time():.6f}")'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

unzip_times=()
install_times=()
for run in $(seq 1 "$runs"); do
    sync
    rm -rf "$work/unzipped" && mkdir "$work/unzipped"
    start=$(seconds); unzip -q "$work/deck.zip" -d "$work/unzipped"; end=$(seconds)
    unzip_times+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
    sync
    rm -rf "$work/data"
    start=$(seconds); "$binary" install "$work/deck.zip" --id 1 --data-dir "$work/data" >/dev/null; end=$(seconds)
    install_times+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
    echo "run $run: unzip -q ${unzip_times[-1]} s, storybridge install ${install_times[-1]} s"
done
unzip_median=$(printf '%s\n' "${unzip_times[@]}" | median)
install_median=$(printf '%s\n' "${install_times[@]}" | median)
python3 -c "print(f'median: unzip -q {$unzip_median:.3f} s, storybridge install {$install_median:.3f} s, ratio {$install_median / $unzip_median:.2f}x (target <= 1.20x)')"
