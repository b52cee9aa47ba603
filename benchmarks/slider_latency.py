"""Live slider latency: from a new slider value to a finished redraw.

For every slider figure of every chapter, times what a moved slider costs in
a kernel: the setup cell's `Frames.render` (the chapter's update function
refilling the figure built once, then the PNG rendered with Agg), at the
smallest and the largest slider setting. The two settings alternate, so every timed frame follows a
change; median of 5 each. Budget: median <= 100 ms at the largest setting.

In a kernel the setup cell also draws the remaining frames ahead, one per
idle turn of the event loop, nearest first; a frame drawn ahead is shown with
no drawing at all. The last column estimates how long after the cell ran every
frame is drawn ahead (frames x the mean of the two medians).
    python benchmarks/slider_latency.py [chapter ...]
"""
import statistics
import sys
import time

from _common import NOTEBOOKS, run_code, table

BUDGET_MS = 100


def figures(path):
    """(Frames, setup, slider values) for every sliders(...) call of a chapter."""
    found = []

    def catch(ns):
        ns["sliders"] = lambda setup, figsize=(8, 3.4), start=None, **values: found.append(
            (ns["Frames"](setup, figsize), setup, values))
    run_code(path, after_setup=catch)
    return found


def measure(chapters=NOTEBOOKS, repeats=5):
    rows = []
    for path in chapters:
        for frames, draw, values in figures(path):
            settings = {"smallest": {k: v[0] for k, v in values.items()},
                        "largest": {k: v[-1] for k, v in values.items()}}
            times = {label: [] for label in settings}
            for label, params in settings.items():   # warm up once each
                frames.render(**params)
            for _ in range(repeats):
                for label, params in settings.items():
                    t = time.perf_counter()
                    frames.render(**params)
                    times[label].append((time.perf_counter() - t) * 1000)
            small, large = (statistics.median(times[k]) for k in settings)
            count = 1
            for v in values.values():
                count *= len(v)
            rows.append((path.stem, draw.__name__, ", ".join(values), count, f"{small:.0f}", f"{large:.0f}",
                         f"{count * (small + large) / 2000:.1f}", "ok" if large <= BUDGET_MS else "OVER"))
    return rows


if __name__ == "__main__":
    chapters = [p for p in NOTEBOOKS if not sys.argv[1:] or any(a in p.stem for a in sys.argv[1:])]
    print(table(["chapter", "figure", "sliders", "frames", "new frame, smallest (ms)",
                 "new frame, largest (ms)", "all drawn ahead after (s)", f"largest ≤ {BUDGET_MS} ms"],
                measure(chapters)))
