#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite: unit tests, integration tests against a
# real server on loopback, and end-to-end tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --test
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
# Style: the checked-in .swift-format, as the toolchain's swift-format reads it.
swift format lint --strict --configuration .swift-format -r Sources Tests Examples Benchmarks Plugins
swift build --build-tests
# Commands the tests start without --data use the default data folder: give the run one of its own,
# so a run never reads or changes the machine's real library (~/.local/share/storybridge).
XDG_DATA_HOME="$(mktemp -d -t storybridge-test-data.XXXXXX)"
export XDG_DATA_HOME
trap 'rm -rf "$XDG_DATA_HOME"' EXIT
# The suite takes one to two minutes; a test that hangs fails the run after 20 instead of holding it.
timeout -k 30 1200 swift test --skip-build || { status=$?; [[ $status == 124 || $status == 137 ]] && echo "test.sh: the suite did not finish within 20 minutes: the tests started above without an end hang" >&2; exit $status; }
