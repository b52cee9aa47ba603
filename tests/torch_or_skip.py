"""PyTorch for the cross-check tests: imported, or every test of the calling
module skipped with the reason (each test counted in the summary, not the
module as one). Under CI=true a missing torch is an error (`make test` installs
requirements-torch.txt where pip takes its CPU build; `make install-torch`)."""
import os

import pytest

# PyTorch's own tolerance for float32 attention (torch.testing's default for float32)
FLOAT32_TOL = dict(atol=1e-5, rtol=1.3e-6)


class _Missing:
    """Stands in for torch when it is not installed, so that module-level uses
    (torch.nn.functional, torch.float32) still import; no test runs with it."""
    def __getattr__(self, name):
        return _Missing()

    def __call__(self, *args, **kwargs):
        return _Missing()


def import_torch(what):
    """(torch, pytestmark): the torch module and no mark; without torch, a
    stand-in and a skip mark for every test of the module ("to run `what`").
    Use: `torch, pytestmark = import_torch("the cross-checks")`."""
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        return _Missing(), pytest.mark.skip(
            reason=f"PyTorch is not installed: run `make install-torch` (requirements-torch.txt) "
                   f"to run {what}")
    return torch, []
