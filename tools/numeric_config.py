"""Print the numeric configuration this Python runs with: the OpenBLAS kernel and
thread count, and numpy's SIMD extensions. `make test-notebooks` prints it
before each of its two nbval runs, so a report shows which arithmetic the
stored outputs were compared under."""
import os

import numpy as np


def describe():
    """One line: numpy version, BLAS kernel and threads, SIMD extensions in use."""
    try:
        from threadpoolctl import threadpool_info
        blas = ", ".join(f"{i['internal_api']} {i.get('architecture', '?')} kernel, "
                         f"{i['num_threads']} thread(s)"
                         for i in threadpool_info() if i.get("user_api") == "blas") or "BLAS unknown"
    except ImportError:
        blas = "BLAS unknown (threadpoolctl not installed)"
    try:                                  # numpy's own summary: X86_V3* = in use, ? = off
        simd = np.lib._utils_impl._opt_info()
    except AttributeError:
        simd = "?"
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS",
                                      "NPY_DISABLE_CPU_FEATURES") if k in os.environ}
    return f"numpy {np.__version__}; {blas}; numpy SIMD: {simd.strip() or 'baseline only'}; env {env}"


if __name__ == "__main__":
    print("numeric configuration:", describe())
