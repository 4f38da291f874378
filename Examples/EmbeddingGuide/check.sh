#!/usr/bin/env bash
# The embedding guide's example package, as CI runs it (.ci/run):
#   1. its code is the article's, all of it (check-article.py);
#   2. it builds against this checkout (`swift build --package-path Examples/EmbeddingGuide`);
#   3. it serves: started on the demo deck with port 0, it prints its URL at once (not at exit),
#      the URL leads to a slide that carries the launch token, the module's commands answer over
#      the bridge socket (bridge-call.py), and SIGTERM stops it gracefully (its own service says
#      goodbye, exit status 0).
set -euo pipefail
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
package="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$package/../.." && pwd)"
work=$(mktemp -d)
pid=""
cleanup() {
    [[ -z "$pid" ]] || kill -KILL "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

python3 "$package/check-article.py"

# A second build of storybridge and its dependencies, in the example's own .build.
echo "check: swift build --package-path Examples/EmbeddingGuide"
start=$(date +%s)
swift build --package-path "$package" >"$work/build.log" 2>&1 || { tail -60 "$work/build.log"; exit 1; }
echo "check: built in $(($(date +%s) - start)) s"
binary="$(swift build --package-path "$package" --show-bin-path)/greeting-host"
# TMPDIR: the example keeps its data folder in the temporary directory; this run gets its own.
TMPDIR="$work" "$binary" "$repo/Fixtures/presentations/demo" >"$work/out" 2>"$work/err" &
pid=$!
url=""
for _ in $(seq 1 600); do
    url=$(sed -n 's|^greeting-host: open \(http://127.0.0.1:[0-9]*/\) in a browser$|\1|p' "$work/out")
    [[ -n "$url" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
[[ -n "$url" ]] || { echo "check: greeting-host printed no URL within 60 s"; cat "$work/out" "$work/err"; exit 1; }
echo "check: greeting-host printed $url"
landed=$(curl -fsSL --max-time 30 -o "$work/slide.html" -w '%{url_effective}' "$url")
slide=${landed##*/}
token=$(sed -n 's/.*data-token="\([0-9a-f]*\)".*/\1/p' "$work/slide.html" | head -1)
[[ -n "$token" && "$landed" == */p/1/* ]] || { echo "check: $url led to $landed without a token"; exit 1; }
echo "check: $url leads to $landed, which carries the token"
port=${url#http://127.0.0.1:}
python3 "$package/bridge-call.py" "${port%/}" "$token" "$slide" | sed 's/^/check: /'

kill -TERM "$pid"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
status=0
wait "$pid" || status=$?
pid=""
grep -q '^greeting-host: stopping$' "$work/out" || { echo "check: no goodbye on SIGTERM"; cat "$work/out" "$work/err"; exit 1; }
[[ $status -eq 0 ]] || { echo "check: greeting-host exited $status on SIGTERM"; cat "$work/err"; exit 1; }
echo "check: SIGTERM stopped greeting-host gracefully (exit 0)"
