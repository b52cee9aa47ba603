"""Live slider latency: from a new slider value to a finished redraw.

For every slider figure of every chapter, times the chapter's draw function
on a new figure plus rendering it to PNG with Agg (what the inline backend
does), at the smallest and the largest slider setting; median of 5.
Budget: median <= 100 ms at the largest setting.
    python benchmarks/slider_latency.py
"""
import io
import sys

import matplotlib.pyplot as plt

from _common import NOTEBOOKS, median_ms, run_chapter, table

BUDGET_MS = 100


def measure(chapters=NOTEBOOKS):
    rows = []
    for path in chapters:
        figures = []
        run_chapter(path, lambda draw, figsize=(8, 3.4), start=None, **values:
                    figures.append((draw, figsize, values)))
        for draw, figsize, values in figures:
            settings = {"smallest": {k: v[0] for k, v in values.items()},
                        "largest": {k: v[-1] for k, v in values.items()}}
            result = {}
            for label, params in settings.items():
                def redraw():
                    fig = plt.figure(figsize=figsize)
                    draw(fig, **params)
                    fig.savefig(io.BytesIO(), format="png")
                    plt.close(fig)
                redraw()   # warm caches once, as a moved slider would
                result[label] = median_ms(redraw)
            rows.append((path.stem, draw.__name__, ", ".join(values),
                         f"{result['smallest']:.0f}", f"{result['largest']:.0f}",
                         "ok" if result["largest"] <= BUDGET_MS else "OVER"))
    return rows


if __name__ == "__main__":
    chapters = [p for p in NOTEBOOKS if not sys.argv[1:] or any(a in p.stem for a in sys.argv[1:])]
    print(table(["chapter", "figure", "sliders", "smallest (ms)", "largest (ms)",
                 f"≤ {BUDGET_MS} ms"], measure(chapters)))
