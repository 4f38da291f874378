#!/usr/bin/env bash
# Proves the release tarball runs without the Swift toolchain: unpacks it in a clean folder, checks with
# ldd that no library comes from the toolchain, and runs serve (a slide fetched over loopback with curl),
# install, test and doctor with a PATH and environment that do not contain /opt/swift, then installs it
# with install.sh into a prefix and checks the man page and completions.
#   scripts/test-release.sh [dist/storybridge-VERSION-linux-x86_64.tar.gz]   (default: the current version's)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/StoryBridge/Config/StoryBridgeVersion.swift)
tarball=$(realpath "${1:-dist/storybridge-$version-linux-x86_64.tar.gz}")
[[ -f "$tarball" ]] || { echo "test-release: '$tarball' not found: run scripts/build-release.sh first" >&2; exit 66; }

work=$(mktemp -d)
serve_pid=""
cleanup() {
    [[ -z "$serve_pid" ]] || kill "$serve_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
passed=0
failed=0
check() { # check NAME COMMAND...: runs COMMAND (no input, at most 3 minutes), counts and reports the outcome
    local name="$1"; shift
    local limit=(timeout -k 10 180)
    [[ $(type -t "$1") == function ]] && limit=()  # a shell function bounds its own waits
    if "${limit[@]}" "$@" </dev/null >"$work/last.log" 2>&1; then
        passed=$((passed + 1)); echo "  ok    $name"
    else
        failed=$((failed + 1)); echo "  FAIL  $name"; sed "s/^/        /" "$work/last.log"
    fi
}
# Runs the unpacked binary with nothing of the build environment: no /opt/swift on PATH, no LD_LIBRARY_PATH.
clean() { env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }

mkdir -p "$work/home" "$work/unpacked"
tar -C "$work/unpacked" -xzf "$tarball"
root="$work/unpacked/storybridge-$version-linux-x86_64"
binary="$root/bin/storybridge"
cp -R Fixtures/presentations/demo "$work/demo"
(cd "$work/demo" && zip -qr "$work/demo.zip" .)
echo "test-release: $tarball ($(du -h "$tarball" | cut -f1)), unpacked in $work"

no_toolchain_libraries() {
    ldd "$binary"
    ! ldd "$binary" | grep -E '/opt/swift|libswift|libFoundation|libdispatch|not found'
}
check "ldd: no library from the toolchain (/opt/swift, libswift*, libFoundation*), none missing" no_toolchain_libraries
check "--version says $version" bash -c "[[ \$(env -i PATH=/usr/bin:/bin '$binary' --version) == '$version' ]]"

serve_and_fetch() {
    # env execs the binary, so $! is storybridge itself (a backgrounded shell function would be a subshell).
    env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$binary" serve "$work/demo" --port 0 --no-watch \
        --data-dir "$work/data" >"$work/serve.out" 2>"$work/serve.err" &
    serve_pid=$!
    local url=""
    for _ in $(seq 1 100); do
        url=$(sed -n 's|.*Open \(http://127.0.0.1:[0-9]*/\) in a browser.*|\1|p' "$work/serve.out")
        [[ -n "$url" ]] && break
        sleep 0.1
    done
    [[ -n "$url" ]] || { cat "$work/serve.out" "$work/serve.err"; return 1; }
    curl -fsS --max-time 30 "${url}p/1/index.html" -o "$work/slide.html"
    grep -q '/__storybridge/client.js' "$work/slide.html"
    kill -TERM "$serve_pid"
    # At most 30 s to stop; then it is killed, and the check fails on its status.
    for _ in $(seq 1 300); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$serve_pid" 2>/dev/null || true
    wait "$serve_pid"
    local status=$?
    serve_pid=""
    return "$status"
}
check "serve: a slide fetched over loopback with curl has the client injected; SIGTERM exits 0" serve_and_fetch
check "install: the demo package into a fresh data folder" bash -c \
    "env -i HOME='$work/home' PATH=/usr/bin:/bin '$binary' install '$work/demo.zip' --name Demo --data-dir '$work/data' | grep -q 'installed \"Demo\" as presentation 1'"
check "list: the installed presentation" bash -c \
    "env -i HOME='$work/home' PATH=/usr/bin:/bin '$binary' list --json --data-dir '$work/data' | grep -q '\"name\":\"Demo\"'"

mkdir -p "$work/scripts"
cat >"$work/scripts/smoke.yaml" <<SCRIPT
name: release smoke test
presentation: ../demo
tests:
  - name: identity answers
    steps:
      - send: getUserInfo
        expect: {status: Success, code: 200}
  - name: map answers
    steps:
      - send: getMap
        expect: {status: Success}
SCRIPT
check "test: a folder of scripts runs against an in-process host" bash -c \
    "cd '$work' && env -i HOME='$work/home' PATH=/usr/bin:/bin '$binary' test scripts | tee /dev/stderr | grep -qx '2 passed, 0 failed'"
check "doctor: the required checks pass" clean "$binary" doctor --port 0 --data-dir "$work/data"
check "errors are words: a missing script" bash -c \
    "env -i PATH=/usr/bin:/bin '$binary' test '$work/none.yaml' 2>&1 | grep -qx \"storybridge test: '$work/none.yaml': not found\""

check "install.sh --prefix: binary, man page and completions in place" bash "$root/install.sh" --prefix "$work/prefix"
check "installed binary runs" clean "$work/prefix/bin/storybridge" --version
check "man page: generated from the command definitions, lists the subcommands" bash -c \
    "grep -q '^\.Dt STORYBRIDGE 1' '$work/prefix/share/man/man1/storybridge.1' && grep -q 'doctor' '$work/prefix/share/man/man1/storybridge.1'"
if command -v man >/dev/null; then
    check "man storybridge finds and renders the page" bash -c \
        "MANPATH='$work/prefix/share/man' man -P cat storybridge 2>/dev/null | grep -q 'storybridge'"
fi
check "bash completion parses and completes subcommands" bash -c \
    "bash -n '$work/prefix/share/bash-completion/completions/storybridge' && grep -q 'doctor' '$work/prefix/share/bash-completion/completions/storybridge'"
# zsh and fish load the installed files the way a user's shell does, and complete with them.
check "zsh completion parses and defines _storybridge after compinit" env -i HOME="$work/home" PATH="$work/prefix/bin:/usr/bin:/bin" \
    zsh -f -c "fpath=('$work/prefix/share/zsh/site-functions' \$fpath); autoload -U compinit; compinit -u -d '$work/zcompdump'; \
        zsh -n '$work/prefix/share/zsh/site-functions/_storybridge' && autoload -U _storybridge && whence -w _storybridge | grep -q function"
check "fish completion completes subcommands and options" env -i HOME="$work/home" PATH="$work/prefix/bin:/usr/bin:/bin" \
    fish --no-config -c "source '$work/prefix/share/fish/vendor_completions.d/storybridge.fish'; \
        complete -C 'storybridge se' | grep -q '^serve'; and complete -C 'storybridge serve --log-l' | grep -q '^--log-level'"
check "install.sh from the clone (no --tarball): installs the tarball in dist/" bash -c \
    "bash '$repo/scripts/install.sh' --prefix '$work/from-clone' && '$work/from-clone/bin/storybridge' --version | grep -qx '$version'"

echo "test-release: $passed passed, $failed failed"
((failed == 0))
