#!/usr/bin/env python3
"""Lists the `public` (and `open`) declarations of this package's sources that have no `///` doc
comment, and exits 1 if there is one (issue #33 item 6: the public surface is the embedding API,
every public declaration documented).

    python3 scripts/check-public-docs.py            # the undocumented public declarations
    python3 scripts/check-public-docs.py --count    # public and package declarations per target

A declaration is a line whose first word, after its attributes, is `public` or `open` (`public
private(set) var` too). Its doc comment is the `///` line, or the `*/` of a `/** */` block, right
above it and its attribute lines, with no blank line between. `public extension` is refused
outright: its members are public without saying so, so this check could not see them.
The text is read as it is, not compiled: an enum's cases and a protocol's requirements are public
through their type, and are not checked one by one.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The package's own code: its targets and the custom-module example's library (a product of this
# package). Not the embedding guide's package, whose .build holds its dependencies' checkouts.
SOURCE_ROOTS = [ROOT / "Sources", ROOT / "Examples/CustomModule/Sources"]

ATTRIBUTES = r"(?:@[\w.]+(?:\([^()]*\))?\s+)*"
MODIFIERS = r"(?:(?:nonisolated|final|static|class|override|convenience|required|indirect|mutating|nonmutating|dynamic|lazy|weak|unowned)\s+)*"
DECLARATION = re.compile(r"^\s*" + ATTRIBUTES + MODIFIERS + r"(public|open|package)\b(?:\s+|\(set\)\s+)(?=[A-Za-z@_])")
ATTRIBUTE_LINE = re.compile(r"^\s*@[\w.]+(?:\(.*\))?\s*$")
EXTENSION = re.compile(r"\b(public|open)\s+extension\b")


def swift_files():
    for root in SOURCE_ROOTS:
        for path in sorted(root.rglob("*.swift")):
            if ".build" not in path.parts:
                yield path


def target_of(path):
    relative = path.relative_to(ROOT).parts
    return relative[1] if relative[0] == "Sources" else "/".join(relative[:3])


def is_documented(lines, index):
    above = index - 1
    while above >= 0 and ATTRIBUTE_LINE.match(lines[above]):
        above -= 1
    if above < 0:
        return False
    line = lines[above].strip()
    return line.startswith("///") or line.endswith("*/")


def main():
    counting = "--count" in sys.argv[1:]
    counts = {}
    missing = []
    in_string = False
    for path in swift_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        target = target_of(path)
        for index, line in enumerate(lines):
            # Lines inside a multi-line string literal are text, not declarations.
            if line.count('"""') % 2 == 1:
                in_string = not in_string
                continue
            if in_string:
                continue
            match = DECLARATION.match(line)
            if not match:
                continue
            level = "public" if match.group(1) in ("public", "open") else "package"
            counts.setdefault(target, {"public": 0, "package": 0})[level] += 1
            if level != "public":
                continue
            where = f"{path.relative_to(ROOT)}:{index + 1}"
            if EXTENSION.search(line):
                missing.append(f"{where}: public extension (write `public` on each member instead): {line.strip()}")
            elif not is_documented(lines, index):
                missing.append(f"{where}: {line.strip()}")
    if counting:
        for target in sorted(counts):
            print(f"{target}: {counts[target]['public']} public, {counts[target]['package']} package")
        return 0
    for entry in missing:
        print(entry)
    if missing:
        print(f"check-public-docs: {len(missing)} public declarations without a /// doc comment", file=sys.stderr)
        return 1
    print("check-public-docs: every public declaration has a /// doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
