#!/usr/bin/env python3
"""The counts issue #42 asks for, made the same way before and after a change.

    python3 scripts/code-counts.py            # a table for a person
    python3 scripts/code-counts.py --json     # the same figures as JSON
    python3 scripts/code-counts.py --unused   # also list every unused `package` name
    python3 scripts/code-counts.py --carriers # ... each with what keeps it `package` (see below)

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
  `--carriers` prints, beside each, a `package` declaration of its own target that another target
  or a test names and whose signature (the text up to its body, enum cases included)
  names it: the compiler refuses the name internal while that declaration is `package`. "none
  found" is left for a protocol witness (GRDB's `databaseDateEncodingStrategy`, `customMirror`, a
  `package` protocol's requirement) or a signature this text reading misses; check those by hand.
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


DECLARATION = re.compile(
    r"^\s*(?:@[\w().: ]+\s+)*package\s+(?:(?:static|final|override|nonisolated|mutating|lazy|indirect|convenience|required)\s+)*"
    r"(func|var|let|init|subscript|struct|enum|class|actor|protocol|typealias)\b\s*`?([A-Za-z_]\w*)?"
)
TYPE_OPENING = re.compile(
    r"^(\s*)(?:@[\w().: ]+\s+)*(?:(package|public|private|fileprivate|internal)\s+)?(?:final\s+|indirect\s+)?"
    r"(?:struct|enum|class|actor|protocol|extension)\s+`?([A-Za-z_][\w.]*)"
)


def signature(lines, index):
    """A declaration's text up to its body (`{`): its first line, the lines its open parentheses
    run on, and the lines that go on with `)`, `->`, `async`, `throws` or `where` (a function's
    parameters with their default values, result and thrown error; a property's type or initial
    value; an enum case's payload; a type's conformances)."""
    text = lines[index]
    end = index
    while "{" not in text and end + 1 < len(lines):
        following = lines[end + 1].strip()
        open_parentheses = text.count("(") - text.count(")")
        if open_parentheses <= 0 and not re.match(r"(\)|->|async\b|throws\b|rethrows\b|where\b)", following):
            break
        end += 1
        text += " " + following
    return text.split("{")[0]


def carriers(unused):
    """For each unused `package` name (path:line: name), a `package` declaration of the same target
    named elsewhere whose signature names it, or None."""
    by_target = targets()
    outside = set()
    for path in swift_files(ROOT / "Tests") + swift_files(ROOT / "Benchmarks") + swift_files(ROOT / "Examples"):
        outside.update(re.findall(r"[A-Za-z_]\w*", path.read_text(errors="replace")))
    words_of = {
        name: set().union(*(set(re.findall(r"[A-Za-z_]\w*", p.read_text(errors="replace"))) for p in files))
        for name, files in by_target.items()
    }
    result = {}
    for target, files in by_target.items():
        others = set().union(*(w for t, w in words_of.items() if t != target)) | outside
        named = []  # (where, signature) of the target's package declarations named elsewhere
        for path in files:
            lines = code_lines(path)
            types = []
            for index, line in enumerate(lines):
                opening = TYPE_OPENING.match(line)
                if opening:
                    while types and types[-1][0] >= len(opening.group(1)):
                        types.pop()
                    types.append((len(opening.group(1)), opening.group(3).split(".")[-1], opening.group(2) or ""))
                declaration = DECLARATION.match(line)
                case = re.match(r"^\s*(?:indirect\s+)?case\s+\w+\(", line)
                # The type a member is declared in: the nearest opened type indented less than it.
                indent = len(line) - len(line.lstrip())
                enclosing = next((t for t in reversed(types) if t[0] < indent), None)
                if declaration:
                    kind, name = declaration.group(1), declaration.group(2)
                    owner = name if kind not in ("init", "subscript") else (enclosing[1] if enclosing else None)
                elif case and enclosing and enclosing[2] == "package":
                    owner = enclosing[1]
                else:
                    continue
                if owner in others:
                    where = f"{path.relative_to(ROOT)}:{index + 1}"
                    named.append((where, signature(lines, index)))
        for entry in unused:
            where, name = entry.rsplit(": ", 1)
            if not where.startswith(f"Sources/{target}/"):
                continue
            pattern = re.compile(r"\b%s\b" % re.escape(name))
            result[entry] = next((w for w, text in named if w != where and pattern.search(text)), None)
    return result


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
    if "--carriers" in sys.argv:
        kept = carriers(unused)
        for entry in unused:
            print(f"{entry}  <- {kept.get(entry) or 'none found'}")
        print(f"carried by a package declaration named elsewhere: {sum(1 for v in kept.values() if v)} of {len(unused)}")
    elif "--unused" in sys.argv:
        print("\n".join(unused))


if __name__ == "__main__":
    main()
