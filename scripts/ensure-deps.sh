#!/usr/bin/env bash
# Installs what storybridge needs and is missing on a Debian/Ubuntu machine.
#   scripts/ensure-deps.sh          what building and serving need
#   scripts/ensure-deps.sh --test   plus what the test suite needs (headless Chromium)
# Swift itself is not a Debian package: it is expected on PATH or in /opt/swift.
set -euo pipefail

packages=(libsqlite3-dev libminizip-dev zlib1g-dev unzip zip)
if [[ "${1:-}" == "--test" ]]; then
    packages+=(chromium chromium-driver)
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "storybridge: installing missing packages: ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "storybridge: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null; then
    if [[ -x /opt/swift/usr/bin/swift ]]; then
        echo "storybridge: using Swift from /opt/swift (add /opt/swift/usr/bin to PATH to skip this notice)"
    else
        echo "storybridge: Swift 6 is not installed. Get the Debian 12 toolchain from swift.org," >&2
        echo "  unpack it to /opt/swift and run this again." >&2
        exit 1
    fi
fi
