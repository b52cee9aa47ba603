"""Run every benchmark and write the tables the book shows in its appendix
"How fast is this book?" (book/speed-results.md), each figure beside its budget.

Builds the book cold and warm first (the page and static-slider benchmarks
measure that build), then times the notebooks, the live slider redraws, the
attention implementations, chapter 15's model in the page and, with --tests,
`make test`. `make bench` runs this with --tests and rebuilds the book so the
appendix shows the new tables. With --model-in-page it measures only chapter 15's
model in the page and replaces that section of the appendix (its own date line);
with --first-visit, only what a first visit of each page loads and how soon it is
ready (benchmarks/first_visit.py, on the book built last), likewise.
    python benchmarks/report.py [--tests | --model-in-page | --first-visit]
"""
import datetime
import os
import platform
import re
import subprocess
import sys

import build
import first_visit
import live_sliders
import model_in_page
import notebooks
import pages
import slider_latency
import static_sliders
from _common import NOTEBOOKS, ROOT, reference_ms, table

OUT = ROOT / "book" / "speed-results.md"


def page_label(path):
    """A page named briefly, so the table fits the column: chapter 11 of the Chinese
    edition is "10, 中文版"; other pages keep their path."""
    parts = path.split("/")
    edition = ", 中文版" if parts[0] == "zh" else ""
    name = parts[-1]
    if "notebooks" in parts and name[:2].isdigit():
        return name[:2] + edition
    return path


def verdict(ok):
    return "ok" if ok else "**OVER**"


MODEL_HEADING = "## Chapter 15's model in the page"


def model_in_page_section(when=None):
    """The appendix section on chapter 15's model computed in the page
    (benchmarks/model_in_page.py), with its own date line when `when` is given."""
    rows, summary = model_in_page.measure()
    return "\n\n".join([
        MODEL_HEADING,
        *([f"*Measured {when} by `python benchmarks/report.py --model-in-page`.*"] if when else []),
        "SmolLM2-135M computed by `attention_book/web/smollm2.js` and `kernel.wasm` in headless Chromium, "
        "the page served from 127.0.0.1; the prompt is English text, the last row compares the page with "
        "chapter 15's numpy code.",
        table(["what", "measured"], rows),
        table(["budget", "measured", "", ""], [(a, b, c, verdict(d)) for a, b, c, d in summary]),
    ])


VISIT_HEADING = "## A reader's first visit"


def first_visit_section(when=None, rows=None):
    """The appendix section on what a first visit of each page loads and how soon its
    widgets are ready (benchmarks/first_visit.py), with its own date line when `when` is given."""
    rows = first_visit.measure() if rows is None else rows
    heaviest = max(rows, key=lambda r: float(r[1]))
    timed = [r for r in rows if r[4]]
    slowest = max(timed, key=lambda r: float(r[4]))
    jumpiest = max(rows, key=lambda r: float(r[5]))
    return "\n\n".join([
        VISIT_HEADING,
        *([f"*Measured {when} by `python benchmarks/report.py --first-visit` on {os.cpu_count()} CPUs.*"]
          if when else []),
        "Each page of both editions opened in a fresh browser context of headless Chromium (nothing "
        "cached), the book served from 127.0.0.1, on a 1280 × 900 screen: every byte the visit loads "
        "(the page, its scripts, styles, fonts, images and the slider frames on screen); when its "
        f"widgets are all drawn, after the page's load event (median of {first_visit.REPEATS} visits); "
        f"and its layout shift, the largest of {first_visit.REPEATS} visits.",
        table(["budget", "measured", "", ""], [
            ("first visit, heaviest page", f"{heaviest[1]} MB ({page_label(heaviest[0])})",
             f"≤ {first_visit.PAGE_MB:g} MB", verdict(float(heaviest[1]) <= first_visit.PAGE_MB)),
            ("widgets ready after the load event, slowest page", f"{slowest[4]} s ({page_label(slowest[0])})",
             f"≤ {first_visit.READY_S:g} s", verdict(float(slowest[4]) <= first_visit.READY_S)),
            ("layout shift, worst page", f"{jumpiest[5]} ({page_label(jumpiest[0])})",
             f"≤ {first_visit.SHIFT:g}", verdict(float(jumpiest[5]) <= first_visit.SHIFT))]),
        table(first_visit.HEADER, rows, code=(0,)),
    ])


def update_section(heading, new):
    """Replace a section of book/speed-results.md (or add it)."""
    text = OUT.read_text()
    if heading in text:
        head, rest = text.split(heading, 1)
        after = rest.find("\n## ")                       # a section after this one stays
        text = head + new + ("\n\n" + rest[after + 1:] if after >= 0 else "\n")
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    OUT.write_text(text)
    print(new)


def update_model_section():
    """Replace the model section of book/speed-results.md (or add it) with a new measurement."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    update_section(MODEL_HEADING, model_in_page_section(when))


def main():
    if "--model-in-page" in sys.argv:
        return update_model_section()
    if "--first-visit" in sys.argv:
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return update_section(VISIT_HEADING, first_visit_section(when))
    tests = "--tests" in sys.argv
    if not OUT.exists():   # the appendix includes this file: the book must build before it is measured
        OUT.write_text("*Not measured yet: run `make bench`.*\n")
    print("building the book, cold and warm ...", flush=True)
    build_rows = build.measure(tests=tests)
    print("page weight, first visits, static sliders ...", flush=True)
    page_rows = pages.measure()
    visit_rows = first_visit.measure()
    static_rows = static_sliders.measure()
    print("notebooks ...", flush=True)
    notebook_rows = notebooks.measure(NOTEBOOKS)
    print("live sliders ...", flush=True)
    speed_before = reference_ms()
    live_rows = slider_latency.measure()
    speed_after = reference_ms()
    print("live sliders in JupyterLab ...", flush=True)
    lab_rows = live_sliders.measure()
    print("attention ...", flush=True)
    attention = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "attention.py")], check=True,
                               capture_output=True, text=True, cwd=ROOT).stdout
    attention = re.sub(r"^# ", "### ", attention, flags=re.M)
    print("chapter 15's model in the page ...", flush=True)
    model_section = model_in_page_section()

    worst_live = max(live_rows, key=lambda r: float(r[5]))
    over_live = [r for r in live_rows if float(r[5]) > slider_latency.BUDGET_MS]
    ahead = max(live_rows, key=lambda r: float(r[6]))
    worst_lab = max(lab_rows, key=lambda r: float(r[2]))
    worst_static = max(static_rows, key=lambda r: float(r[2]))
    slowest = max(notebook_rows[:-1], key=lambda r: float(r[1]))
    total = notebook_rows[-1]
    largest = max(visit_rows, key=lambda r: float(r[1]))
    slowest_page = max((r for r in visit_rows if r[4]), key=lambda r: float(r[4]))
    jumpiest = max(visit_rows, key=lambda r: float(r[5]))
    editions = [r for r in page_rows if r[0].startswith("**")]
    summary = [
        ("live slider: new frame at the largest setting, slowest figure (median)",
         f"{worst_live[5]} ms ({worst_live[0][:2]} `{worst_live[1]}`)", f"≤ {slider_latency.BUDGET_MS} ms",
         verdict(not over_live) + (f" ({len(over_live)} of {len(live_rows)} figures over)" if over_live else "")),
        ("live slider in JupyterLab, frames drawn ahead: key press to new picture, slowest chapter (median)",
         f"{worst_lab[2]} ms ({worst_lab[0][:2]})", f"≤ {live_sliders.BUDGET_MS} ms",
         verdict(float(worst_lab[2]) <= live_sliders.BUDGET_MS)),
        ("live slider: every frame drawn ahead, slowest figure",
         f"{ahead[6]} s after its cell ran ({ahead[0][:2]} `{ahead[1]}`)", "", ""),
        ("HTML book slider: key press to new frame, slowest page (median)",
         f"{worst_static[2]} ms ({worst_static[0][:2]})", f"≤ {static_sliders.BUDGET_MS} ms",
         verdict(float(worst_static[2]) <= static_sliders.BUDGET_MS)),
        ("notebook execution, slowest notebook", f"{slowest[1]} s ({slowest[0][:2]})",
         f"≤ {notebooks.EACH_S} s", verdict(float(slowest[1]) <= notebooks.EACH_S)),
        ("notebook execution, all together", f"{total[1]} s", f"≤ {notebooks.ALL_S} s",
         verdict(float(total[1]) <= notebooks.ALL_S)),
    ] + [(r[0], f"{r[1]} s", f"{r[2]} s", verdict(r[3] == "ok")) for r in build_rows] + [
        ("first visit of a page, everything it loads: heaviest page", f"{largest[1]} MB ({page_label(largest[0])})",
         f"≤ {first_visit.PAGE_MB:g} MB", verdict(float(largest[1]) <= first_visit.PAGE_MB)),
        ("first visit: widgets ready after the load event, slowest page",
         f"{slowest_page[4]} s ({page_label(slowest_page[0])})", f"≤ {first_visit.READY_S:g} s",
         verdict(float(slowest_page[4]) <= first_visit.READY_S)),
        ("first visit: layout shift, worst page", f"{jumpiest[5]} ({page_label(jumpiest[0])})",
         f"≤ {first_visit.SHIFT:g}", verdict(float(jumpiest[5]) <= first_visit.SHIFT)),
    ] + [(name.replace("**", ""), f"{size} MB", f"≤ {pages.BOOK_MB:g} MB", verdict(float(size) <= pages.BOOK_MB))
         for name, size, _ in editions]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n\n".join([
        f"*Measured {when} by `make bench` on {os.cpu_count()} CPUs "
        f"({platform.machine()}, Python {platform.python_version()}).*",
        "## Every budget",
        table(["what", "measured", "budget", ""], summary),
        "## Live sliders: drawing a new frame in the kernel",
        "Median of 5 new frames of each figure (its update function refilling the figure built once, "
        "then the PNG rendering) at the smallest and the largest setting of its sliders, the two "
        "alternating so every frame follows a change; the last column estimates when every frame has been "
        "drawn ahead in the kernel's idle time.",
        f"Machine speed while this table was measured: a fixed pure-Python loop "
        f"(`benchmarks/_common.py: reference_ms`) took {speed_before:.1f} ms before and "
        f"{speed_after:.1f} ms after. This loop's time drifts from run to run on the same "
        "machine, and every figure here drifts with it.",
        table(["chapter", "figure", "sliders", "frames", "smallest (ms)", "largest (ms)",
               "all drawn ahead after (s)", f"largest ≤ {slider_latency.BUDGET_MS} ms"], live_rows, code=(0, 1, 2)),
        "## Live sliders in JupyterLab, as a reader moves them",
        f"Each chapter run in JupyterLab, then {live_sliders.WAIT_S} s of reading time in which the kernel "
        f"draws frames ahead; every slider of every figure moved {live_sliders.PRESSES} times with the "
        "keyboard in headless Chromium: the time from the key press to the new picture on screen.",
        table(["chapter", "key presses", "median (ms)", "max (ms)", f"≤ {live_sliders.BUDGET_MS} ms"],
              lab_rows, code=(0,)),
        "## Sliders in the HTML book",
        "Headless Chromium, every slider of every figure moved 4 times with the keyboard: the time "
        "from the key press to the animation frame showing the new picture.",
        table(["page", "key presses", "median (ms)", "max (ms)", f"≤ {static_sliders.BUDGET_MS} ms"],
              static_rows, code=(0,)),
        "## Running the notebooks",
        "Each chapter from a fresh kernel in the mode `make book` uses (every slider frame drawn).",
        table(["chapter", "seconds", f"≤ {notebooks.EACH_S} s each, ≤ {notebooks.ALL_S} s all"],
              notebook_rows, code=(0,)),
        "## Building and testing",
        table(["command", "seconds", "budget (s)", ""], build_rows),
        first_visit_section(rows=visit_rows),
        "## Page weight",
        "Each edition's folder as a whole; the downloads no page loads apart.",
        table(["what", "MB", f"≤ {pages.BOOK_MB:g} MB edition"], page_rows, code=(0,)),
        "## Attention itself: numpy against PyTorch",
        attention.strip(),
        model_section,
    ]) + "\n"
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
