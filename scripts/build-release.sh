#!/usr/bin/env bash
# Builds a self-contained storybridge for Linux x86_64 and packs it for people without a Swift toolchain.
#   scripts/build-release.sh            writes dist/storybridge-VERSION-linux-x86_64.tar.gz
#
# The binary is a release build with the Swift runtime and Foundation linked in (--static-swift-stdlib),
# so it needs only the Debian libraries listed in the tarball's DEPENDENCIES file. The build uses its
# own scratch folder (.build-release) so the debug build in .build is left alone. The tarball holds:
#   bin/storybridge                          the binary
#   share/man/man1/storybridge.1             the man page, generated from the command definitions
#   share/bash-completion/completions/storybridge, share/zsh/site-functions/_storybridge,
#   share/fish/vendor_completions.d/storybridge.fish     completions (argument-parser writes them)
#   README.md                                 how to install and start
#   DEPENDENCIES                              the Debian packages it needs (from ldd)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"

scratch=.build-release
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/StoryBridge/Config/StoryBridgeVersion.swift)
[[ -n "$version" ]] || { echo "build-release: cannot read the version from StoryBridgeVersion.swift" >&2; exit 1; }
name="storybridge-$version-linux-x86_64"

echo "build-release: building storybridge $version (release, static Swift runtime) in $scratch"
swift build -c release --static-swift-stdlib --product storybridge --scratch-path "$scratch"
binary="$scratch/release/storybridge"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
    "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 755 "$binary" "$root/bin/storybridge"
if command -v strip >/dev/null; then strip "$root/bin/storybridge"; fi

# The man page: argument-parser's generate-manual tool (the tool behind its GenerateManual plugin) reads
# the binary's command definitions (--experimental-dump-help). It is built on its own from the resolved
# argument-parser checkout, because the plugin would build every product of this package first.
echo "build-release: generating the man page"
swift build --package-path "$scratch/checkouts/swift-argument-parser" --scratch-path "$scratch/generate-manual" \
    --product generate-manual -q
"$scratch/generate-manual/debug/generate-manual" "$root/bin/storybridge" --output-directory "$root/share/man/man1" \
    --authors "the storybridge authors"
[[ -s "$root/share/man/man1/storybridge.1" ]] || { echo "build-release: no man page was written" >&2; exit 1; }

echo "build-release: generating completions"
"$root/bin/storybridge" --generate-completion-script bash >"$root/share/bash-completion/completions/storybridge"
"$root/bin/storybridge" --generate-completion-script zsh >"$root/share/zsh/site-functions/_storybridge"
"$root/bin/storybridge" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/storybridge.fish"

# The Debian packages that own the shared libraries the binary loads (ldd), less libc's own.
echo "build-release: listing the Debian libraries it needs"
if ldd "$root/bin/storybridge" | grep -q '/opt/swift\|not found'; then
    echo "build-release: the binary still needs a library from the toolchain or one that is missing:" >&2
    ldd "$root/bin/storybridge" >&2
    exit 1
fi
ldd "$root/bin/storybridge" | awk '/=> \// { print $3 }' | while read -r library; do
    dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || echo "unknown: $library"
done | cut -d: -f1 | sort -u | grep -vx 'libc6' >"$root/DEPENDENCIES.packages"
{
    echo "# Debian 12 packages storybridge $version needs at run time (apt-get install -y \$(grep -v '^#' DEPENDENCIES))"
    echo "# Besides libc6. Browser steps of 'storybridge test' also need chromium and chromium-driver."
    cat "$root/DEPENDENCIES.packages"
} >"$root/DEPENDENCIES"
rm "$root/DEPENDENCIES.packages"

cp docs/release-readme.md "$root/README.md"
install -m 755 scripts/install.sh "$root/install.sh"

mkdir -p dist
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
echo "build-release: wrote dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1))"
