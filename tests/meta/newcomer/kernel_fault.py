# The newcomer's planted fault in the new kernel, appended to proofs_check/faults/kernels.py.


def _rational_quadratic_bandwidth_squared(original):
    def rational_quadratic(self, x, z):
        diff = x - z
        return 1 / (1 + np.dot(diff, diff) / arithmetic.lift(self.mu, x) ** 2)  # noqa: F821
    return rational_quadratic


KERNEL_FAULTS.append(Fault(  # noqa: F821
    "rational_quadratic_bandwidth_squared", "kernel", "1 / (1 + ||x - z||^2 / mu^2): the bandwidth read as a length",
    (Patch(scalar.RationalQuadratic, "__call__", _rational_quadratic_bandwidth_squared),)))  # noqa: F821
