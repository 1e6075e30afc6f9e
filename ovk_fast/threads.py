"""ovk_fast runs its BLAS calls on one thread.

The online loops make thousands of small BLAS calls, where extra threads only add synchronisation; and on a
shared machine (other processes on the cores) OpenBLAS threads busy-wait for each other. Measured on the
2-core machine under load (load average ~5): ONORMA t = 5000 in 0.12 s with one thread against 0.6-1.9 s with
two; batch ridge t = 5000 in 2.4-5.3 s against 12.8-16 s, and at t = 500 in 0.03 s against 2.2 s. One
thread also keeps the summation order, hence the results, the same from run to run.
"""
from threadpoolctl import threadpool_limits


def single_blas_thread():
    """Context manager limiting BLAS to one thread."""
    return threadpool_limits(limits=1, user_api="blas")
