#!/usr/bin/env python3
"""Summarises a series of alternating benchmark runs (scripts/alternate-bench.sh's folder).

    scripts/bench-summary.py FOLDER NAME=REGEX [NAME=REGEX ...] [--lower-is-better NAME ...]

Each REGEX has one group, a number, found in every run's log (the first match; a log without it
is reported and left out). For each NAME it prints the figure per run in order, the median and
range of each build (A, B), and the median and range of the pairs' B/A ratios (run 2k-1 with 2k,
the pairs alternate as the script ran them), which is the figure the targets are judged on.

Example (docs/BENCHMARKS.md, the one-slide delta):
    scripts/bench-summary.py /tmp/delta 'own=^ +([0-9.]+) +delta update \\(decision'
"""
import pathlib
import re
import statistics
import sys


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    folder = pathlib.Path(arguments[0])
    figures = []
    for spec in arguments[1:]:
        name, separator, pattern = spec.partition("=")
        if not separator or not pattern:
            print(f"bench-summary: '{spec}' is not NAME=REGEX", file=sys.stderr)
            return 64
        try:
            figures.append((name, re.compile(pattern, re.MULTILINE)))
        except re.error as error:
            print(f"bench-summary: the pattern of {name} is not a regular expression: {error}", file=sys.stderr)
            return 64
    logs = sorted(folder.glob("*-[AB].log"))
    if not logs:
        print(f"bench-summary: {folder} holds no NN-A.log or NN-B.log", file=sys.stderr)
        return 66
    for name, pattern in figures:
        values = {}
        for log in logs:
            match = pattern.search(log.read_text(errors="replace"))
            if not match:
                print(f"{name}: {log.name} has no match; left out")
                continue
            values[log.name] = float(match.group(1))
        print(f"{name}:")
        print("  runs: " + ", ".join(f"{log[:-4]} {value:g}" for log, value in values.items()))
        for label in "AB":
            own = [value for log, value in values.items() if log.endswith(f"-{label}.log")]
            if own:
                print(f"  {label}: median {statistics.median(own):g} ({min(own):g} to {max(own):g}), {len(own)} runs")
        ratios = []
        ordered = list(values.items())
        for index in range(0, len(ordered) - 1, 2):
            (first, first_value), (second, second_value) = ordered[index], ordered[index + 1]
            pair = {first[-5]: first_value, second[-5]: second_value}
            if set(pair) == {"A", "B"} and pair["A"] != 0:
                ratios.append(pair["B"] / pair["A"])
        if ratios:
            print(
                f"  B/A per pair: {' '.join(f'{ratio:.2f}' for ratio in ratios)}; "
                f"median {statistics.median(ratios):.2f}x ({min(ratios):.2f}x to {max(ratios):.2f}x)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
