#!/usr/bin/env python3
"""Names the tests a Swift Testing log shows as started and never ended (passed or failed).

Usage: python3 scripts/unended-tests.py LOG

scripts/test.sh runs it on the log of a target killed for hanging: the tests it prints are the
ones that were running when the target was stopped, one of which hangs.
"""
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    started: dict[str, None] = {}
    ended: set[str] = set()
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        for line in log:
            if match := re.search(r'Test "(.*?)" started', line):
                started[match.group(1)] = None
            elif match := re.search(r'Test "(.*?)" (passed|failed)', line):
                ended.add(match.group(1))
    unended = [name for name in started if name not in ended]
    for name in unended:
        print(f"  {name}")
    if not unended:
        print("  (none: the log ends before a test's start was written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
