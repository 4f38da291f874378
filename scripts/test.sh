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
swift test --skip-build
