"""numpy's BLAS threads, which numpy reads once, when it is imported: nothing here imports numpy."""
from __future__ import annotations

import os

# The variables of the OpenBLAS, OpenMP and MKL builds.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """numpy's BLAS at one thread unless the caller set it otherwise: to be called before numpy is imported
    (a worker process per core, or a command with no matrix product to speed up)."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
