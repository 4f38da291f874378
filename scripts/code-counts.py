#!/usr/bin/env python3
"""The counts issue #42 asks for, made the same way before and after a change.

    python3 scripts/code-counts.py            # a table for a person
    python3 scripts/code-counts.py --json     # the same figures as JSON
    python3 scripts/code-counts.py --unused   # also list every unused `package` name

What it counts (all from the working tree, as text):

- engine lines: `wc -l` of the connection engine as the issue names it: Sources/StoryBridge/Bridge,
  Sources/StoryBridge/Storage, Sources/StoryBridge/Engine (when it exists) and the server's
  connection files (BridgeSocket, PageLoadGate, OutboundChannel, where they exist).
- locks, atomics and continuation sites in those files and, per 1,000 lines, in all of Sources
  next to Hummingbird's own sources (the checkout in .build/checkouts, when built). A lock is a
  `Mutex<`, `NIOLock`, `NIOLockedValueBox` or `OSAllocatedUnfairLock`; an atomic an `Atomic<` or
  `ManagedAtomic<`; a continuation site a call of `with(Checked|Unsafe)(Throwing)?Continuation`.
- unused `package` names: a declaration marked `package` in one target whose name no other target
  and no test mentions (a word match, so a name shared by two declarations counts as used when
  either is; the figure is a lower bound of what could be internal).
- duplicated blocks in Tests: the pairs `duplicates --repo Tests` reports (six or more shared
  lines), when that command is on PATH; otherwise "n/a".
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = re.compile(r"\b(Mutex<|NIOLock\b|NIOLockedValueBox<|OSAllocatedUnfairLock)")
ATOMIC = re.compile(r"\b(Atomic<|ManagedAtomic<)")
CONTINUATION = re.compile(r"\bwith(Checked|Unsafe)(Throwing)?Continuation\b")
PACKAGE_DECL = re.compile(
    r"^\s*(?:@[\w().: ]+\s+)*package\s+(?:(?:static|final|override|nonisolated|mutating|lazy|indirect|convenience|required)\s+)*"
    r"(?:func|var|let|struct|enum|class|actor|protocol|typealias|case)\s+`?([A-Za-z_]\w*)"
)
ENGINE_FOLDERS = ["Sources/StoryBridge/Bridge", "Sources/StoryBridge/Storage", "Sources/StoryBridge/Engine"]
CONNECTION_FILES = ["BridgeSocket.swift", "PageLoadGate.swift", "OutboundChannel.swift"]


def swift_files(folder):
    """The Swift files below `folder`, leaving out build folders inside it."""
    return sorted(p for p in folder.rglob("*.swift") if ".build" not in p.relative_to(folder).parts)


def code_lines(path):
    return path.read_text(errors="replace").splitlines()


def engine_files():
    files = []
    for folder in ENGINE_FOLDERS:
        files += swift_files(ROOT / folder)
    server = ROOT / "Sources/StoryBridgeServer"
    files += [p for p in swift_files(server) if p.name in CONNECTION_FILES]
    return files


def mechanism_counts(files):
    counts = {"lines": 0, "locks": 0, "atomics": 0, "continuations": 0}
    for path in files:
        for line in code_lines(path):
            counts["lines"] += 1
            stripped = line.strip()
            if stripped.startswith("//"):
                continue
            counts["locks"] += len(LOCK.findall(line))
            counts["atomics"] += len(ATOMIC.findall(line))
            counts["continuations"] += len(CONTINUATION.findall(line))
    return counts


def per_thousand(counts):
    lines = max(1, counts["lines"])
    return {k: round(counts[k] * 1000 / lines, 2) for k in ("locks", "atomics", "continuations")}


def hummingbird_sources():
    checkout = ROOT / ".build/checkouts/hummingbird/Sources"
    return swift_files(checkout) if checkout.is_dir() else []


def targets():
    """Each target's Swift files by name: Sources/<target>/..."""
    result = {}
    for folder in sorted((ROOT / "Sources").iterdir()):
        if folder.is_dir():
            files = swift_files(folder)
            if files:
                result[folder.name] = files
    return result


def unused_package_names():
    by_target = targets()
    tests = swift_files(ROOT / "Tests") + swift_files(ROOT / "Benchmarks") + swift_files(ROOT / "Examples")
    words_of = {}
    for name, files in by_target.items():
        words = set()
        for path in files:
            words.update(re.findall(r"[A-Za-z_]\w*", path.read_text(errors="replace")))
        words_of[name] = words
    outside_words = set()
    for path in tests:
        outside_words.update(re.findall(r"[A-Za-z_]\w*", path.read_text(errors="replace")))
    unused = []
    total = 0
    for name, files in by_target.items():
        others = set().union(*(w for t, w in words_of.items() if t != name)) | outside_words
        for path in files:
            for number, line in enumerate(code_lines(path), 1):
                match = PACKAGE_DECL.match(line)
                if not match:
                    continue
                total += 1
                declared = match.group(1)
                if declared not in others:
                    unused.append(f"{path.relative_to(ROOT)}:{number}: {declared}")
    return total, unused


def test_duplicates():
    tool = shutil.which("duplicates")
    if not tool:
        return None
    output = subprocess.run(
        [tool, "--repo", str(ROOT / "Tests"), "--most", "1", "--seconds", "120"], capture_output=True, text=True
    ).stdout
    match = re.search(r"(\d+) pairs?", output)
    if match:
        return int(match.group(1))
    return 0 if "no duplicates" in output else None


def main():
    engine = mechanism_counts(engine_files())
    sources = mechanism_counts([p for files in targets().values() for p in files])
    hummingbird_files = hummingbird_sources()
    hummingbird = mechanism_counts(hummingbird_files) if hummingbird_files else None
    declared, unused = unused_package_names()
    duplicates = test_duplicates()
    figures = {
        "engine": engine,
        "sources": {**sources, "perThousandLines": per_thousand(sources)},
        "hummingbird": {**hummingbird, "perThousandLines": per_thousand(hummingbird)} if hummingbird else None,
        "packageDeclarations": declared,
        "unusedPackageNames": len(unused),
        "testDuplicatePairs": duplicates,
    }
    if "--json" in sys.argv:
        print(json.dumps(figures, indent=2))
    else:
        print(f"engine (Bridge + Storage + Engine + connection files): {engine['lines']} lines, "
              f"{engine['locks']} locks, {engine['atomics']} atomics, {engine['continuations']} continuation sites")
        s = figures["sources"]["perThousandLines"]
        print(f"Sources: {sources['lines']} lines; per 1,000 lines {s['locks']} locks, {s['atomics']} atomics, "
              f"{s['continuations']} continuation sites")
        if hummingbird:
            h = figures["hummingbird"]["perThousandLines"]
            ratio = lambda key: f"{s[key] / h[key]:.1f}x" if h[key] else "n/a"
            print(f"Hummingbird: {hummingbird['lines']} lines; per 1,000 lines {h['locks']} locks, "
                  f"{h['continuations']} continuation sites (ours: {ratio('locks')} locks, {ratio('continuations')} continuations)")
        else:
            print("Hummingbird: not checked out (swift build first)")
        print(f"package declarations: {declared}, named by no other target or test: {len(unused)}")
        print(f"duplicated blocks in Tests (pairs of six or more lines): {duplicates if duplicates is not None else 'n/a'}")
    if "--unused" in sys.argv:
        print("\n".join(unused))


if __name__ == "__main__":
    main()
