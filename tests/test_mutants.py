"""The mutation check's list (tools/mutants.py, `make mutants`) still applies to
the code: each mutation's `old` text is found as often as it says, so the list
cannot rot silently when a chapter changes."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutants  # noqa: E402


def test_every_mutation_still_applies():
    assert len(mutants.MUTATIONS) >= 32
    assert mutants.check(mutants.MUTATIONS) == []
