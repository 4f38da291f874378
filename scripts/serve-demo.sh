#!/usr/bin/env bash
# Installs what is missing, builds storybridge and serves the bundled demo presentation.
# PORT (default 8080) and any extra arguments are passed to `storybridge serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
echo "storybridge: building (the first build fetches and compiles dependencies: several minutes)..."
swift build --product storybridge
exec .build/debug/storybridge serve Fixtures/presentations/demo --port "${PORT:-8080}" "$@"
