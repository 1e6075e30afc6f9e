# A newcomer's scalar kernel family, appended to ovk_ref/kernels/scalar.py (tests/meta/test_newcomer.py): everything
# the project needs to know about it, declared on the class.


class RationalQuadratic(ScalarKernel):  # noqa: F821 -- defined in the file this is appended to
    """``1 / (1 + ||x - z||^2 / mu)``, ``mu > 0`` (a scale mixture of Gaussians: PSD)."""

    name = "rational_quadratic"
    fields = {"mu": {"type": "number", "exclusiveMinimum": 0}}

    def __init__(self, mu):
        self.mu = validation.positive("mu", mu)  # noqa: F821

    def __call__(self, x, z):
        diff = x - z
        return 1 / (1 + np.dot(diff, diff) / arithmetic.lift(self.mu, x))  # noqa: F821

    @staticmethod
    def sup_on_box():
        import sympy as sp
        return sp.Integer(1)

    @staticmethod
    def exact(fields, x, z):
        return 1 / (1 + sum((a - b) ** 2 for a, b in zip(x, z)) / fields["mu"])

    @staticmethod
    def parameter_strategies():
        from hypothesis import strategies as st
        return {"mu": st.floats(1e-2, 1e2, **FLOATS)}  # noqa: F821

    @staticmethod
    def fresh_fields(rng, scale):
        return {"mu": float(rng.uniform(0.3, 3.0)) * scale}

    def vectorised(self, pairs):
        return 1 / (1 + pairs.sqdist / self.mu)

    def intermediate_bound(self, reach, p):
        return np.ones_like(reach)  # noqa: F821 -- 1 / (1 + r) <= 1; an overflowing |x - z|^2 gives 0


SCALAR_KERNELS[RationalQuadratic.name] = RationalQuadratic  # noqa: F821
