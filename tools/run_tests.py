"""Run every test step of `make test`, then print one short summary.

    python tools/run_tests.py            # what `make test` runs

Each step is a make target of its own (`make test-unit`, ...). Every step runs
even when one before it failed, so the summary shows the whole picture; the exit
status is non-zero if any step failed. The pytest steps write JUnit XML reports
to _build/test-reports/, from which the summary takes its counts and the reason
for every group of skipped tests, with the command that turns the group on.
"""
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "_build" / "test-reports"

# (make target, what it checks, the JUnit reports it writes)
STEPS = [
    ("test-unit", "structure, course, sliders, properties, Chinese edition, PyTorch cross-checks",
     ["unit", "unit-b"]),
    ("test-notebooks", "nbval, strict: the machine's kernel, 1 thread / generic kernel, 1 thread / AVX2, 2 threads",
     ["notebooks", "notebooks-alt", "notebooks-avx2"]),
    ("book", "the HTML book, warnings as errors", []),
    ("test-pdf", "the PDF editions built (make pdf) and read", ["pdf"]),
    ("test-browser", "the built book in Chromium; JupyterLab with a live kernel",
     ["browser", "browser-zh", "live"]),
    ("test-colab", "every notebook under Colab's versions", ["colab"]),
]

# a group of skipped tests, recognised by its test file, and what turns it on
TURN_ON = [
    ("test_crosscheck_torch", "make install-torch"),
    ("test_crosscheck_block", "make install-torch"),
    ("browser", "as root: apt-get install chromium fonts-dejavu-core; then make test-browser"),
    ("live", "as root: apt-get install chromium fonts-dejavu-core; then make test-browser"),
    ("pdf", "as root: make pdf (installs TeX); then make test-pdf"),
]


def counts(report):
    """passed, failed, skipped and {(group, reason): n} from one JUnit XML file.

    A module skipped whole at collection is one JUnit entry ("collection
    skipped"); the tests it holds are not known then. The book's tests skip
    per test instead (a marker added at collection), so every skipped test is
    counted; a whole-module skip that slips through is counted once and named.
    """
    c, skipped = Counter(), Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        children = {child.tag: child for child in case}
        if "failure" in children or "error" in children:
            c["failed"] += 1
        elif "skipped" in children:
            c["skipped"] += 1
            msg = children["skipped"].get("message", "").removeprefix("Skipped: ")
            if msg == "collection skipped":   # a whole module: the reason is in the text
                found = re.search(r"Skipped: (.*?)['\"]\)?$", children["skipped"].text or "")
                msg = (found[1] if found else msg) + " (a whole module, counted once)"
            group = f"{report.stem}: {case.get('classname') or case.get('name', '')}"
            skipped[(group, msg.strip())] += 1
        else:
            c["passed"] += 1
    return c, skipped


def step_status(code, step, reasons):
    """"ok", "skipped" or "FAILED (...)" for one step.

    code: the step's exit status; step: its passed/failed/skipped counts;
    reasons: the skip reasons found in its reports. pytest exits 5 when it
    collected no test: a step whose tests were all skipped for a stated reason
    (exit 0 or 5) is skipped, not failed; exit 5 with no reason is a failure
    (tests went missing), and so is any other non-zero exit.
    """
    if step["failed"]:
        return f"FAILED ({step['failed']} failed)"
    if code in (0, 5) and not step["passed"] and step["skipped"] and reasons:
        return "skipped"
    if code == 0:
        return "ok"
    return f"FAILED (exit {code}{', no test ran' if code == 5 else ''})"


def main():
    REPORTS.mkdir(parents=True, exist_ok=True)
    for old in REPORTS.glob("*.xml"):
        old.unlink()
    make = os.environ.get("MAKE", "make")
    start = time.monotonic()
    subprocess.call([sys.executable, str(ROOT / "tools" / "test_setup.py")], cwd=ROOT)
    # the venv with Colab's versions, installed here so that the steps' seconds are tests only
    subprocess.call([make, "--no-print-directory", ".venv-colab/.installed"], cwd=ROOT)
    setup_seconds = time.monotonic() - start
    results = []
    for target, what, reports in STEPS:
        start = time.monotonic()
        code = subprocess.call([make, "--no-print-directory", target], cwd=ROOT)
        results.append((target, what, reports, code, time.monotonic() - start))

    total, lines, skips, failed_steps = Counter(), [], Counter(), []
    for target, what, reports, code, seconds in results:
        step, step_skips = Counter(), Counter()
        for name in reports:
            path = REPORTS / f"{name}.xml"
            if path.exists():
                c, s = counts(path)
                step += c
                step_skips += s
        skips += step_skips
        total += step
        if reports:
            status = step_status(code, step, step_skips)
            detail = (f"{step['passed']:4d} passed, {step['failed']:3d} failed, "
                      f"{step['skipped']:3d} skipped")
        else:
            status = "ok" if code == 0 else f"FAILED (exit {code})"
            detail = "built" if code == 0 else "not built"
        if status.startswith("FAILED"):
            failed_steps.append(target)
            if not step["failed"]:
                total["failed"] += 1           # a step that stopped before its tests ran
        lines.append(f"  {target:15s} {status:18s} {detail:38s} {seconds:5.0f} s  {what}")
    tests = sum(r[4] for r in results)
    print("\n" + "=" * 30 + " make test: summary " + "=" * 30)
    print(f"  {'set-up':15s} {'':18s} {'(tools/test_setup.py)':38s} {setup_seconds:5.0f} s  "
          "installs: browser, fonts, TeX, PyTorch where missing and possible; Colab's venv")
    print("\n".join(lines))
    print(f"  {'all steps':15s} {'':18s} {'':38s} {tests:5.0f} s  ({tests / 60:.1f} min, "
          f"set-up and installs not counted)")
    if skips:
        print("skipped:")
        for (group, reason), n in sorted(skips.items()):
            hint = next((cmd for key, cmd in TURN_ON if key in group), None)
            print(f"  {n:4d} in {group}: {reason}")
            if hint and hint not in reason:
                print(f"       turn on with: {hint}")
    if failed_steps:
        print("failed steps: " + ", ".join(failed_steps))
    print(f"tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 1 if failed_steps else 0


if __name__ == "__main__":
    sys.exit(main())
