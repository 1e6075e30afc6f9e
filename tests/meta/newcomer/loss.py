# A newcomer's loss, appended to ovk_ref/losses.py (tests/meta/test_newcomer.py).


class PseudoHuber(Loss):  # noqa: F821 -- defined in the file this is appended to
    """``delta^2 (sqrt(1 + ||r||^2 / delta^2) - 1)``, gradient ``r / sqrt(1 + ||r||^2 / delta^2)``; ``C = delta``."""

    name = "pseudo_huber"
    fields = {"delta": {"type": "number", "exclusiveMinimum": 0}}

    def __init__(self, delta=1.0):
        self.delta = validation.positive("delta", delta)  # noqa: F821
        self.lipschitz = self.delta

    def _root(self, z, y):
        r = z - y
        delta = arithmetic.lift(self.delta, z[0])  # noqa: F821
        return r, delta, arithmetic.sqrt(1 + np.dot(r, r) / delta**2)  # noqa: F821

    def value(self, z, y):
        r, delta, root = self._root(z, y)
        return delta**2 * (root - 1)

    def gradient(self, z, y):
        r, _, root = self._root(z, y)
        return r / root

    @staticmethod
    def exact_value(fields, z, y):
        import sympy as sp
        r, delta = z - y, fields["delta"]
        return delta**2 * (sp.sqrt(1 + r.dot(r) / delta**2) - 1)

    @staticmethod
    def exact_gradient(fields, z, y):
        import sympy as sp
        r, delta = z - y, fields["delta"]
        return r / sp.sqrt(1 + r.dot(r) / delta**2)

    @classmethod
    def strategy(cls):
        from hypothesis import strategies as st
        return st.builds(lambda delta: {"type": "pseudo_huber", "delta": delta}, st.floats(0.05, 2.0, **FLOATS))  # noqa: F821

    @staticmethod
    def fresh_fields():
        return {"delta": 0.5}


LOSSES[PseudoHuber.name] = PseudoHuber  # noqa: F821
