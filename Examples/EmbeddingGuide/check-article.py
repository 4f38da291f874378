#!/usr/bin/env python3
"""Checks that the embedding guide's Swift code is this package's code, and all of it.

Every ```swift block of the article (Sources/StoryBridge/StoryBridge.docc/
EmbeddingAndCustomModules.md) starts with a comment naming a file of this package
(`// Sources/GreetingHost/main.swift`), and the rest of the block must be a run of consecutive
lines of that file, exactly; or it starts with the manifest's `// swift-tools-version` line (which
must stay first, so the block can be copied as it is), and the whole block is a run of lines of
Package.swift. Together the blocks must show every non-blank line of Package.swift and of
every Swift file under Sources/. Exits 1 with what differs, so a change to one side fails CI
until the other follows.
"""
import pathlib
import re
import sys

package = pathlib.Path(__file__).resolve().parent
article = package.parents[1] / "Sources/StoryBridge/StoryBridge.docc/EmbeddingAndCustomModules.md"
files = [package / "Package.swift"] + sorted((package / "Sources").rglob("*.swift"))
lines = {path: path.read_text().split("\n") for path in files}
covered = {path: set() for path in files}
problems = []

blocks = re.findall(r"^```swift\n(.*?)^```$", article.read_text(), re.MULTILINE | re.DOTALL)
for number, block in enumerate(blocks, 1):
    body = block.split("\n")[:-1]
    if body and body[0].startswith("// swift-tools-version"):
        name, excerpt = "Package.swift", body
    else:
        header = re.fullmatch(r"// (\S+)", body[0]) if body else None
        name, excerpt = (header.group(1), body[1:]) if header else (None, [])
    path = package / name if name else None
    if path not in lines:
        problems.append(f"block {number} does not start with '// <a file of {package.name}>': {body[:1]}")
        continue
    text = lines[path]
    starts = [i for i in range(len(text) - len(excerpt) + 1) if text[i : i + len(excerpt)] == excerpt]
    if not excerpt or not starts:
        problems.append(f"block {number} ({name}) is not a run of lines of that file")
        continue
    covered[path].update(range(starts[0], starts[0] + len(excerpt)))

for path in files:
    missing = [i + 1 for i, line in enumerate(lines[path]) if line.strip() and i not in covered[path]]
    if missing:
        problems.append(f"{path.relative_to(package)}: lines {missing} are in no block of the article")

if problems:
    print(f"check-article: {article.name} and {package.name} differ:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"check-article: the {len(blocks)} Swift blocks of {article.name} are the {len(files)} files of {package.name}")
