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
    ("test-unit", "structure, course, sliders, properties, PyTorch cross-checks", ["unit"]),
    ("test-notebooks", "nbval, strict: as the machine is / second numeric configuration",
     ["notebooks", "notebooks-alt"]),
    ("book", "the HTML book, warnings as errors", []),
    ("test-browser", "the built book in Chromium; JupyterLab with a live kernel", ["browser", "live"]),
    ("test-colab", "every notebook under Colab's versions", ["colab"]),
]

# a group of skipped tests, recognised by its test file, and what turns it on
TURN_ON = [
    ("test_crosscheck_torch", "make install-torch"),
    ("test_crosscheck_block", "make install-torch"),
    ("browser", "apt-get install chromium   (Debian's Chromium; then make test-browser)"),
    ("live", "apt-get install chromium   (Debian's Chromium; then make test-browser)"),
]


def counts(report):
    """passed, failed, skipped and {(group, reason): n} from one JUnit XML file."""
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
                msg = found[1] if found else msg
            group = f"{report.stem}: {case.get('classname') or case.get('name', '')}"
            skipped[(group, msg.strip())] += 1
        else:
            c["passed"] += 1
    return c, skipped


def main():
    REPORTS.mkdir(parents=True, exist_ok=True)
    for old in REPORTS.glob("*.xml"):
        old.unlink()
    make = os.environ.get("MAKE", "make")
    results = []
    for target, what, reports in STEPS:
        start = time.monotonic()
        code = subprocess.call([make, "--no-print-directory", target], cwd=ROOT)
        results.append((target, what, reports, code, time.monotonic() - start))

    total, lines, skips = Counter(), [], Counter()
    for target, what, reports, code, seconds in results:
        step = Counter()
        for name in reports:
            path = REPORTS / f"{name}.xml"
            if path.exists():
                c, s = counts(path)
                step += c
                skips += s
        total += step
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        if reports:
            detail = (f"{step['passed']:4d} passed, {step['failed']:3d} failed, "
                      f"{step['skipped']:3d} skipped")
        else:
            detail = "built" if code == 0 else "not built"
        lines.append(f"  {target:15s} {status:16s} {detail:38s} {seconds:5.0f} s  {what}")
        if code and reports and not step["failed"]:
            total["failed"] += 1           # a step that stopped before its tests ran
    print("\n" + "=" * 30 + " make test: summary " + "=" * 30)
    print("\n".join(lines))
    if skips:
        print("skipped:")
        for (group, reason), n in sorted(skips.items()):
            hint = next((cmd for key, cmd in TURN_ON if key in group), None)
            print(f"  {n:4d} in {group}: {reason}")
            if hint:
                print(f"       turn on with: {hint}")
    failed_steps = [r[0] for r in results if r[3]]
    if failed_steps:
        print("failed steps: " + ", ".join(failed_steps))
    print(f"make test: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 1 if failed_steps else 0


if __name__ == "__main__":
    sys.exit(main())
