#!/usr/bin/env bash
# Installs storybridge: the binary, its man page (man storybridge) and bash/zsh/fish completions.
#   scripts/install.sh [--prefix /usr/local] [--tarball storybridge-VERSION-linux-x86_64.tar.gz]
#
# Where the files come from, first that applies:
#   - the folder this script is in, when it is an unpacked release tarball (bin/storybridge beside it);
#   - --tarball FILE;
#   - in a clone of the repository: dist/storybridge-VERSION-linux-x86_64.tar.gz, built first with
#     scripts/build-release.sh when it is not there (a release build takes about 15 minutes on 2 cores).
# Where they go (the places man, bash-completion, zsh and fish look by default under /usr/local):
#   PREFIX/bin/storybridge
#   PREFIX/share/man/man1/storybridge.1
#   PREFIX/share/bash-completion/completions/storybridge
#   PREFIX/share/zsh/site-functions/_storybridge
#   PREFIX/share/fish/vendor_completions.d/storybridge.fish
set -euo pipefail

prefix=/usr/local
tarball=""
while (($#)); do
    case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --tarball) tarball="${2:?--tarball needs a file}"; shift 2 ;;
    --tarball=*) tarball="${1#--tarball=}"; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
unpacked=""
cleanup() { [[ -z "$unpacked" ]] || rm -rf "$unpacked"; }
trap cleanup EXIT

if [[ -z "$tarball" && -x "$here/bin/storybridge" ]]; then
    source_root="$here"
else
    if [[ -z "$tarball" ]]; then
        repo=$(cd "$here/.." && pwd)
        [[ -f "$repo/Package.swift" ]] || { echo "install.sh: not in a release folder or a clone; pass --tarball FILE" >&2; exit 66; }
        version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$repo/Sources/StoryBridge/Config/StoryBridgeVersion.swift")
        tarball="$repo/dist/storybridge-$version-linux-x86_64.tar.gz"
        [[ -f "$tarball" ]] || bash "$repo/scripts/build-release.sh"
    fi
    [[ -f "$tarball" ]] || { echo "install.sh: '$tarball': not found" >&2; exit 66; }
    unpacked=$(mktemp -d)
    tar -C "$unpacked" -xzf "$tarball"
    source_root=$(find "$unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [[ -x "$source_root/bin/storybridge" ]] || { echo "install.sh: '$tarball' holds no bin/storybridge" >&2; exit 65; }
fi

install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
    "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 755 "$source_root/bin/storybridge" "$prefix/bin/storybridge"
install -m 644 "$source_root/share/man/man1/storybridge.1" "$prefix/share/man/man1/storybridge.1"
install -m 644 "$source_root/share/bash-completion/completions/storybridge" "$prefix/share/bash-completion/completions/storybridge"
install -m 644 "$source_root/share/zsh/site-functions/_storybridge" "$prefix/share/zsh/site-functions/_storybridge"
install -m 644 "$source_root/share/fish/vendor_completions.d/storybridge.fish" \
    "$prefix/share/fish/vendor_completions.d/storybridge.fish"
# Refresh man's index where man-db keeps one (root only; man finds the page without it too).
if [[ $(id -u) -eq 0 ]] && command -v mandb >/dev/null; then mandb -q "$prefix/share/man" 2>/dev/null || true; fi

echo "installed storybridge $("$prefix/bin/storybridge" --version) into $prefix"
echo "  binary:      $prefix/bin/storybridge"
echo "  man page:    $prefix/share/man/man1/storybridge.1 (man storybridge)"
echo "  completions: bash, zsh and fish under $prefix/share"
if [[ -f "$source_root/DEPENDENCIES" ]]; then
    missing=$(grep -v '^#' "$source_root/DEPENDENCIES" | while read -r package; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
    done | tr '\n' ' ')
    [[ -z "${missing// /}" ]] || echo "  missing Debian packages it needs: apt-get install -y $missing"
fi
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "  add $prefix/bin to PATH to run it as 'storybridge'" ;; esac
echo "Check the machine with: storybridge doctor"
