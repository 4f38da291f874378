#!/usr/bin/env python3
"""Writes a synthetic presentation folder for timing `storybridge shots` (docs/VISUAL-QA.md).

Usage: make_shots_deck.py OUTPUT_FOLDER [--slides 200]

Every slide uses the demo deck's stylesheet and storyclm.js (copied from
Fixtures/presentations/demo), calls Presentation.GetInfo through the bridge at load and writes the
answer into the page, and has a 0.3 s entrance animation. index.html links every slide (its
`clm` meta tag), so the map holds them all. Deterministic: the same count gives the same files.
"""
import argparse
import pathlib
import shutil

DEMO = pathlib.Path(__file__).resolve().parent.parent / "Fixtures" / "presentations" / "demo"

SLIDE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="clm" content="{links}">
<title>{title}</title>
<link rel="stylesheet" href="css/demo.css">
<style>
  @keyframes enter {{ from {{ opacity: 0; transform: translateY(24px); }} to {{ opacity: 1; transform: none; }} }}
  main {{ animation: enter 0.3s ease-out both; }}
  .swatch {{ width: 240px; height: 120px; background: hsl({hue}, 60%, 55%); }}
</style>
<script src="js/storyclm.js"></script>
</head>
<body>
<header><h1>{title}</h1><p class="lead">Generated slide {number} of {count}.</p></header>
<main>
  <div class="swatch"></div>
  <h2>Presentation.GetInfo at load</h2>
  <pre id="info">waiting</pre>
</main>
<script>
  StoryCLM.Presentation.GetInfo(function (answer) {{
    document.getElementById('info').textContent = JSON.stringify(answer && answer.data ? answer.data : answer, null, 2);
  }});
</script>
</body>
</html>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output")
    parser.add_argument("--slides", type=int, default=200)
    args = parser.parse_args()
    out = pathlib.Path(args.output)
    if out.exists():
        shutil.rmtree(out)
    (out / "css").mkdir(parents=True)
    (out / "js").mkdir()
    shutil.copy(DEMO / "css" / "demo.css", out / "css" / "demo.css")
    shutil.copy(DEMO / "js" / "storyclm.js", out / "js" / "storyclm.js")
    names = [f"slide{n:03d}.html" for n in range(1, args.slides)]
    (out / "index.html").write_text(
        SLIDE.format(links=",".join(names), title="index", number=1, count=args.slides, hue=0), encoding="utf-8")
    for number, name in enumerate(names, start=2):
        (out / name).write_text(
            SLIDE.format(links="", title=name, number=number, count=args.slides, hue=number * 37 % 360), encoding="utf-8")


if __name__ == "__main__":
    main()
