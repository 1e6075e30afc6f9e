"""A second, independent decision procedure for the steps sympy proves (``proofs_check.proofs.symbolic``): where a
step's relation is a polynomial (or rational) inequality or identity over the real symbols of its domain, z3's
nonlinear real arithmetic (nlsat, a complete procedure for the first-order theory of the reals) decides it from the
relation alone, without sympy's obligations: ``proved`` when the negation is unsatisfiable on the domain,
``refuted`` (with a model) when it is satisfiable, ``unknown`` on a timeout. A proof sympy proves that z3 refutes, or
a planted wrong variant z3 proves, is a disagreement (tests/proofs/test_second_opinion.py fails on it).

The domain is the proof's: each symbol in its range (``(low, high)``, inclusive as ``symbolic.refute`` reads it), a
positive symbol ``> 0``. Relations with radicals, logarithms, exponentials, sums or integer symbols are not
polynomial over the reals and are left to sympy (``polynomial`` says which). z3-solver is optional (the ``proofs``
extra): ``available()`` says whether it is installed.
"""
from __future__ import annotations

import functools

import sympy as sp

#: z3's time limit per decision (milliseconds)
TIMEOUT_MS = 20000


def available() -> bool:
    try:
        import z3  # noqa: F401
    except ImportError:
        return False
    return True


def polynomial(proof) -> bool:
    """Is the relation of ``proof`` a rational function of real, non-integer symbols of its domain (nothing else)?"""
    relation, _, domain, _ = proof.parts()
    relation = sp.sympify(relation)
    symbols = relation.free_symbols
    if not symbols or not symbols <= set(domain) or any(symbol.is_integer for symbol in symbols):
        return False
    bounds = [bound for symbol in symbols for bound in domain[symbol][:2] if bound is not None]
    return _rational(relation) and all(sp.sympify(bound) ** 2 == sp.Rational(sp.sympify(bound) ** 2) for bound in bounds)


def _bound(solver, bound):
    """A domain's end as a z3 number: a rational, or the positive root of a rational (``b^2 = q``, ``b >= 0``)."""
    import z3
    bound = sp.sympify(bound)
    if bound.is_Rational:
        return z3.RealVal(f"{bound.p}/{bound.q}")
    square, root = sp.Rational(bound**2), z3.FreshReal("bound")
    solver.add(root >= 0, root * root == z3.RealVal(f"{square.p}/{square.q}"))
    return root


def _rational(expr) -> bool:
    if expr.is_Symbol or expr.is_Rational:
        return True
    if expr.is_Add or expr.is_Mul:
        return all(_rational(arg) for arg in expr.args)
    if expr.is_Pow:
        return expr.exp.is_Integer and _rational(expr.base)
    return False


def _to_z3(expr, variables):
    import z3
    if expr.is_Symbol:
        return variables[expr]
    if expr.is_Rational:
        return z3.RealVal(f"{expr.p}/{expr.q}")
    if expr.is_Add:
        return functools.reduce(lambda left, right: left + right, (_to_z3(arg, variables) for arg in expr.args))
    if expr.is_Mul:
        return functools.reduce(lambda left, right: left * right, (_to_z3(arg, variables) for arg in expr.args))
    base, exponent = _to_z3(expr.base, variables), int(expr.exp)
    power = functools.reduce(lambda left, right: left * right, [base] * abs(exponent)) if exponent else z3.RealVal(1)
    return power if exponent >= 0 else 1 / power


@functools.cache
def decide(proof) -> tuple:
    """``("proved" | "refuted" | "unknown", model or None)`` for a ``polynomial`` proof, by z3 alone."""
    import z3
    relation, kind, domain, _ = proof.parts()
    variables = {symbol: z3.Real(str(symbol)) for symbol in sp.sympify(relation).free_symbols}   # before terms cancel
    relation = sp.together(sp.sympify(relation))
    solver = z3.Solver()
    solver.set("timeout", TIMEOUT_MS)
    for symbol, variable in variables.items():
        low, high, _ = domain[symbol]
        if symbol.is_positive:
            solver.add(variable > 0)
        if low is not None:
            solver.add(variable >= _bound(solver, low))
        if high is not None:
            solver.add(variable <= _bound(solver, high))
    numerator, denominator = sp.fraction(relation)
    value, denominator = _to_z3(sp.expand(numerator), variables), _to_z3(sp.expand(denominator), variables)
    solver.add(denominator != 0)
    # the relation is value/denominator: its sign is that of value * denominator (denominator != 0)
    product = value * denominator
    solver.add({"zero": value != 0, "nonnegative": product < 0, "positive": product <= 0}[kind])
    answer = solver.check()
    if answer == z3.unsat:
        return "proved", None
    if answer == z3.sat:
        model = solver.model()
        return "refuted", {str(symbol): str(model.eval(variable, model_completion=True)) for symbol, variable in variables.items()}
    return "unknown", None
