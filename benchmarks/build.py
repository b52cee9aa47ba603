"""Book build and test time: `make book` from an empty _build (cold, as in a
fresh clone with the packages installed: every notebook runs, every slider
frame is drawn) and again with nothing changed (warm: Sphinx's environment and
the execution cache are reused); optionally `make test`.
Budget: build (both editions) <= 8 min cold, <= 1 min warm; both PDFs (make pdf,
after make book) <= 90 s together; make test <= 30 min (its own summary: steps only).
    python benchmarks/build.py [--tests]
"""
import shutil
import subprocess
import sys
import time

from _common import ROOT, table

COLD_S, WARM_S, PDF_S, TEST_S = 480, 60, 90, 1800


def timed(*command):
    """Wall-clock seconds of a command run in the repository; fails loudly if it fails."""
    t = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def measure(tests=False):
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    cold = timed("make", "book")
    warm = timed("make", "book")
    rows = [("`make book`, cold (empty `_build`)", f"{cold:.0f}", f"≤ {COLD_S}",
             "ok" if cold <= COLD_S else "OVER"),
            ("`make book`, warm (nothing changed)", f"{warm:.0f}", f"≤ {WARM_S}",
             "ok" if warm <= WARM_S else "OVER")]
    pdf = timed("make", "pdf")
    rows.append(("`make pdf` (both editions, after `make book`)", f"{pdf:.0f}", f"≤ {PDF_S}",
                 "ok" if pdf <= PDF_S else "OVER"))
    if tests:
        seconds = timed("make", "test")
        rows.append(("`make test` (every test, the book included)", f"{seconds:.0f}", f"≤ {TEST_S}",
                     "ok" if seconds <= TEST_S else "OVER"))
    return rows


if __name__ == "__main__":
    print(table(["command", "seconds", "budget (s)", ""], measure(tests="--tests" in sys.argv)))
