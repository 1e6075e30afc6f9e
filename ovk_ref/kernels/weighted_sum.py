"""Non-negative weighted sums ``sum_j w_j K^j`` (PSD: a non-negative combination of PSD kernels)."""
from __future__ import annotations

from ovk_ref import arithmetic, validation
from ovk_ref.kernels.base import OperatorKernel


class WeightedSum(OperatorKernel):
    """``terms`` is a sequence of ``(weight, kernel)`` with ``weight >= 0`` and one common ``d``."""

    family = "sum"
    fields = {"terms": {"type": "array", "minItems": 1,
                        "items": {"type": "object", "required": ["weight", "kernel"], "additionalProperties": False,
                                  "properties": {"weight": {"type": "number"}, "kernel": {"$ref": "#/$defs/kernel"}}}}}

    def __init__(self, terms):
        terms = list(terms)
        if not terms:
            raise ValueError("terms must hold at least one (weight, kernel) pair")
        checked = []
        for index, term in enumerate(terms):
            if not (isinstance(term, tuple) and len(term) == 2 and isinstance(term[1], OperatorKernel)):
                raise TypeError(f"terms[{index}] must be a (weight, OperatorKernel) pair, got {validation.shown(term)}")
            checked.append((validation.non_negative(f"terms[{index}] weight", term[0]), term[1]))
        dims = {kernel.d for _, kernel in checked}
        if len(dims) != 1:
            raise ValueError(f"terms must share one output dimension d, got {sorted(dims)}")
        inputs = {kernel.p for _, kernel in checked} - {None}
        if len(inputs) > 1:
            raise ValueError(f"terms must share one input dimension p, got {sorted(inputs)}")
        self.terms = checked
        self.d = dims.pop()
        self.p = inputs.pop() if inputs else None

    def __call__(self, x, z):
        return sum(kernel(x, z) * arithmetic.lift(weight, x) for weight, kernel in self.terms)

    def to_dict(self) -> dict:
        return {"type": "sum", "terms": [{"weight": w, "kernel": k.to_dict()} for w, k in self.terms]}
