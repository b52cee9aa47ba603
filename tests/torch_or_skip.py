"""PyTorch for the cross-check tests: imported, or the test module skipped with
the reason. Under CI=true a missing torch is an error (CI installs
requirements-torch.txt, `make install-torch`)."""
import os

import numpy as np
import pytest

# PyTorch's own tolerance for float32 attention (torch.testing's default for float32)
FLOAT32_TOL = dict(atol=1e-5, rtol=1.3e-6)


def import_torch(what):
    """The torch module; without it, skip the calling test module ("to run `what`")."""
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"PyTorch is not installed: run `make install-torch` (requirements-torch.txt) "
                    f"to run {what}", allow_module_level=True)
    return torch
