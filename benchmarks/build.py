"""Book build and test time: `make book` from an empty _build (cold, as in a
fresh clone with the packages installed: every notebook runs, every slider
frame is drawn) and again with nothing changed (warm: Sphinx's environment and
the execution cache are reused); optionally `make test`.
Budget: build (both editions) <= 8 min cold, <= 1 min warm; both PDFs (make pdf,
after make book) <= 90 s together; make test <= 15 min on a 2-core machine (the
steps its own summary times, set-up and installs not counted), each step listed.
    python benchmarks/build.py [--tests]
"""
import re
import shutil
import subprocess
import sys
import time

from _common import ROOT, table

COLD_S, WARM_S, PDF_S, TEST_S = 480, 60, 90, 900


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
        run = subprocess.run(["make", "test"], cwd=ROOT, capture_output=True, text=True)
        steps = re.findall(r"^  (test-\S+|book)\s+(?:ok|FAILED.*?|skipped)\s.*?(\d+) s  ", run.stdout, re.M)
        total = re.search(r"^  all steps\s+(\d+) s", run.stdout, re.M)
        if run.returncode or not total:
            sys.exit(f"make test failed (exit {run.returncode}):\n{run.stdout[-3000:]}")
        for target, seconds in steps:
            rows.append((f"`make test`: {target}", seconds, "", ""))
        seconds = int(total[1])
        rows.append(("`make test` (its steps, set-up and installs not counted)", f"{seconds}",
                     f"≤ {TEST_S}", "ok" if seconds <= TEST_S else "OVER"))
    return rows


if __name__ == "__main__":
    print(table(["command", "seconds", "budget (s)", ""], measure(tests="--tests" in sys.argv)))
