"""What the times were measured on: CPU model, cores, memory, Python, numpy and its BLAS threads."""
from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _memory_gib() -> str:
    try:
        return f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2 ** 30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        return "memory unknown"


def blas_threads() -> str:
    return os.environ.get("OPENBLAS_NUM_THREADS", "library default")


def describe() -> str:
    """One line, e.g. ``AMD EPYC, 2 cores, 8 GiB, Linux, Python 3.11.2, numpy 2.1.0, BLAS threads 1``."""
    return (f"{_cpu_model()}, {os.cpu_count()} cores, {_memory_gib()}, {platform.system()}, "
            f"Python {platform.python_version()}, numpy {np.__version__}, BLAS threads {blas_threads()}; "
            f"load average {os.getloadavg()[0]:.2f} at the end of the run")
