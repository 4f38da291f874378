#!/usr/bin/env python3
"""Writes a synthetic presentation package for the install benchmark.

Usage: make_package.py OUTPUT.zip [--megabytes 200]

About 40% of the bytes are many small text files (slides, scripts, styles, spread over folders),
60% a few large media files of incompressible bytes, as real decks carry videos. Deterministic:
the same size gives the same package.
"""
import argparse
import random
import zipfile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output")
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    total = args.megabytes * 1_000_000
    rng = random.Random(42)
    words = [f"w{n}" for n in range(4000)]
    with zipfile.ZipFile(args.output, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as package:
        package.writestr("index.html", '<html><head><meta name="clm" content="s1.html"></head><body>start</body></html>')
        small_budget = int(total * 0.4)
        written = 0
        n = 0
        while written < small_budget:
            n += 1
            size = rng.randint(2_000, 60_000)
            text = " ".join(rng.choice(words) for _ in range(size // 6))[:size]
            folder = ["", "js/", "css/", "img/", f"assets/{n % 50}/"][n % 5]
            name = f"s{n}.html" if folder == "" else f"{folder}f{n}.txt"
            package.writestr(name, text)
            written += len(text)
        media_budget = total - written
        count = 4
        for index in range(count):
            size = media_budget // count
            with package.open(f"mediafiles/film{index}.mp4", "w", force_zip64=True) as media:
                remaining = size
                while remaining > 0:
                    chunk = min(remaining, 1 << 20)
                    media.write(rng.randbytes(chunk))
                    remaining -= chunk
    print(f"{args.output}: {n + 1} small files, {count} media files, {total / 1e6:.0f} MB uncompressed")


if __name__ == "__main__":
    main()
