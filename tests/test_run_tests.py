"""The summary of `make test` (tools/run_tests.py): a step whose tests were all
skipped for a stated reason is skipped, not failed (pytest's exit 5 included);
a real failure, or tests gone missing, fails the step; counts come from JUnit."""
import sys
import textwrap
from collections import Counter

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from run_tests import counts, step_status  # noqa: E402

REASON = {("browser: test_book", "Chromium not found"): 3}


def test_exit_5_with_a_stated_reason_is_skipped():
    assert step_status(5, Counter(skipped=3), REASON) == "skipped"


def test_all_skipped_with_exit_0_is_skipped():
    assert step_status(0, Counter(skipped=3), REASON) == "skipped"


def test_exit_5_with_no_test_and_no_reason_fails():
    assert step_status(5, Counter(), Counter()).startswith("FAILED")


def test_a_real_failure_fails_whatever_else_was_skipped():
    assert step_status(1, Counter(passed=10, failed=1, skipped=3), REASON).startswith("FAILED")
    assert step_status(2, Counter(), Counter()).startswith("FAILED")   # stopped before its tests


def test_passing_tests_beside_skipped_ones_are_ok():
    assert step_status(0, Counter(passed=4, skipped=3), REASON) == "ok"


def test_counts_read_a_junit_report(tmp_path):
    report = tmp_path / "unit.xml"
    report.write_text(textwrap.dedent("""\
        <testsuites><testsuite>
          <testcase classname="tests.test_a" name="test_ok"/>
          <testcase classname="tests.test_a" name="test_bad"><failure message="boom"/></testcase>
          <testcase classname="tests.test_b" name="test_skip"><skipped message="no browser"/></testcase>
          <testcase classname="tests.test_b" name="test_skip2"><skipped message="no browser"/></testcase>
        </testsuite></testsuites>"""))
    c, skipped = counts(report)
    assert (c["passed"], c["failed"], c["skipped"]) == (1, 1, 2)
    assert skipped == Counter({("unit: tests.test_b", "no browser"): 2})
