"""Claims on operator-valued kernels and their RKHS (spec 2-3; C1-C3, E5)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

import ovk_ref
from ovk_ref.arithmetic import Arithmetic, sqrt
from proofs_check import closed_forms, constants, faults, strategies, tolerances
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import kernel, resolved, top_eigenvalue


def _points(instance):
    return (np.asarray(instance["X"], dtype=float).reshape(-1, instance["p"]),
            np.asarray(instance["A"], dtype=float), np.asarray(instance["x"], dtype=float), np.asarray(instance["y"], dtype=float))


def _identity(error: float, magnitude: float, informative: bool = True, **quantities) -> Outcome:
    """``error`` of a two-way float64 computation against IDENTITY_RTOL (margin relative to the allowed error)."""
    allowed = tolerances.IDENTITY_RTOL * magnitude + tolerances.IDENTITY_ATOL
    return Outcome(margin=allowed - error, scale=allowed, quantities={"error": error, **quantities}, informative=informative,
                   observed=error, bound=allowed)


@claim("def1.hermitian", statement="K(x_i, x_j) = K(x_j, x_i)^T, i.e. the block Gram matrix is symmetric",
       reference="Def. 1(iii); spec 2.2, C1", hypotheses="any kernel of spec 3, any finite point set",
       expected="holds", instances=strategies.kernel_point_sets(min_k=2),
       informative="two points or more, with a non-zero block K(x_i, x_j), i != j")
def hermitian(instance, impl=None, precision=None):
    K = kernel(instance)
    G = K.gram(_points(instance)[0])
    d = K.d
    off_diagonal = G - np.kron(np.eye(len(G) // d), np.ones((d, d))) * G
    return _identity(float(np.max(np.abs(G - G.T))), float(np.max(np.abs(G))), informative=resolved(off_diagonal),
                     gram_size=G.shape[0])


@claim("def1.psd", statement="the block Gram matrix is PSD: sum_{k,l} <K(x_k,x_l) y_l, y_k> >= 0",
       reference="Def. 1(iv) corrected (E5); spec 2.2, C1", hypotheses="any kernel of spec 3 (mu in [0,1]), any points",
       expected="holds", instances=strategies.kernel_point_sets(min_k=2),
       informative="two points or more and a non-zero Gram matrix; margin lambda_min / lambda_max (0: singular)")
def psd(instance, impl=None, precision=None):
    G = kernel(instance).gram(_points(instance)[0])
    eigenvalues = np.linalg.eigvalsh((G + G.T) / 2)
    smallest, largest = float(eigenvalues.min()), float(eigenvalues.max())
    allowed = tolerances.PSD_EIGENVALUE * max(1.0, float(np.max(np.abs(G))))
    return Outcome(margin=smallest + allowed, scale=max(largest, allowed), quantities={"smallest_eigenvalue": smallest},
                   informative=resolved(largest), observed=-smallest, bound=allowed)


@claim("def1.reproducing", statement="<f(x), y> = <f, K(., x) y>_H for f = sum_i K(., x_i) a_i",
       reference="Def. 1(ii); spec 2.2, C1", hypotheses="any kernel of spec 3", expected="holds",
       instances=strategies.kernel_point_sets(), informative="<f(x), y> != 0", faults=("evaluate_kernel_transposed",))
def reproducing(instance, impl=None, precision=None):
    K = kernel(instance)
    X, A, x, y = _points(instance)
    direct = float(ovk_ref.evaluate(K, X, A, x[None, :])[0] @ y)
    # <f, K(., x) y>_H from the Gram matrix of the augmented set {x_1..x_k, x} (spec 2.3)
    G = K.gram(np.vstack([X, x]))
    left = np.concatenate([A.ravel(), np.zeros(K.d)])
    right = np.concatenate([np.zeros(A.size), y])
    via_gram = float(left @ G @ right)
    return _identity(abs(direct - via_gram), float(np.abs(left) @ np.abs(G) @ np.abs(right)), informative=resolved(direct),
                     direct=direct, via_gram=via_gram)


@claim("def1.iv_printed", statement="the printed Def. 1(iv): sum_{k,l} <K(.,x_k) y_k, K(.,x'_l) y'_l> >= 0 for all families",
       reference="Def. 1(iv) as printed; spec E5", hypotheses="any nonzero kernel; x' = x, y' = -y",
       expected="false", instances=strategies.kernel_point_sets(), informative="sum_i K(., x_i) a_i != 0",
       known_counterexamples=[{"kernel": {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}, "p": 1, "d": 1, "kappa2": 1.0, "X": [[0.0]], "A": [[1.0]],
                              "x": [0.0], "y": [0.0]}],
       notes="with x' = x and y' = -y the printed sum is -||sum_k K(., x_k) y_k||^2 < 0")
def printed_positivity(instance, impl=None, precision=None):
    K = kernel(instance)
    X, A, _, _ = _points(instance)
    a = A.ravel()
    value = -float(a @ K.gram(X) @ a)   # sum_{k,l} <K(., x_k) a_k, K(., x_l)(-a_l)>_H
    return Outcome(margin=value, scale=max(float(np.abs(a) @ np.abs(K.gram(X)) @ np.abs(a)), 1e-300),
                   quantities={"printed_sum": value}, informative=resolved(value, order=2), observed=-value, bound=0.0)


@claim("rkhs.feature_norm", statement="||sum_i K(., x_i) a_i||_H^2 = vec(A)^T G vec(A) = ||sum_i A(x_i)^T a_i||^2 (feature kernel)",
       reference="spec 2.3, 3.3, C2", hypotheses="feature kernel A(x) A(z)^T", expected="holds",
       instances=strategies.kernel_point_sets(feature_only=True, min_k=2),
       informative="two points or more and ||f||_H > 0", faults=("rkhs_norm_column_major",))
def feature_norm(instance, impl=None, precision=None):
    K = kernel(instance)
    X, A, _, _ = _points(instance)
    gram_norm2 = float(ovk_ref.rkhs_norm2(K, X, A))
    w = sum(K.features(x).T @ a for x, a in zip(X, A))
    magnitude = float(np.abs(A.ravel()) @ np.abs(K.gram(X)) @ np.abs(A.ravel()))
    return _identity(abs(gram_norm2 - float(w @ w)), magnitude, informative=resolved(w @ w, order=2), gram_norm2=gram_norm2,
                     feature_norm2=float(w @ w))


@claim("rkhs.evaluation_bound", statement="||f(x)|| <= sqrt(||K(x,x)||_op) ||f||_H",
       reference="spec 2.3, C2 (Cauchy-Schwarz)", hypotheses="any kernel of spec 3", expected="holds",
       instances=strategies.kernel_point_sets(), informative="a bound sqrt(||K(x,x)||) ||f||_H > 0; margin relative to it")
def evaluation_bound(instance, impl=None, precision=None):
    K = kernel(instance)
    num = Arithmetic(precision)
    X, A, x, _ = (num.array(values) for values in _points(instance))
    with num.context():
        f_x = ovk_ref.evaluate(K, X, A, x[None, :])[0]
        value = sqrt(np.dot(f_x, f_x))
        norm2 = ovk_ref.rkhs_norm2(K, X, A)
        bound = sqrt(max(top_eigenvalue(K(x, x)), 0 * norm2)) * sqrt(max(norm2, 0 * norm2))
        # Cauchy-Schwarz needs K PSD; a drawn float B is PSD only up to PSD_EIGENVALUE (ovk_ref.validation)
        return Outcome(margin=float(bound - value), scale=max(float(bound), 1e-300), tie=tolerances.PSD_EIGENVALUE,
                       quantities={"value_norm": float(value), "bound": float(bound)}, informative=resolved(float(bound)),
                       observed=float(value), bound=float(bound))


@claim("kernel.kappa2", statement="kappa^2 of proofs_check.constants bounds ||K(x,x)||_op on the box [0,1]^p",
       reference="Hyp. 1; spec 3.1-3.3, C3", hypotheses="any kernel of spec 3 (scaled), x in [0,1]^p", expected="holds",
       instances=strategies.kernel_point_sets(), informative="K(x, x) != 0; margin relative to kappa^2")
def kappa2_bound(instance, impl=None, precision=None):
    K = kernel(instance)
    num = Arithmetic(precision)
    x = num.array(instance["x"])
    with num.context():
        observed = top_eigenvalue(K(x, x))
    kappa2 = constants.kappa2(K, instance["p"])
    with mpmath.workdps(constants.DIGITS):
        margin = kappa2 - mpmath.mpf(observed)
    return Outcome(margin=float(margin), scale=float(kappa2), quantities={"kappa2": float(kappa2), "observed": float(observed)},
                   informative=resolved(float(observed)), observed=float(observed), bound=float(kappa2))


@st.composite
def _paper_kernels(draw):
    d, p = draw(strategies.dimensions), draw(st.integers(1, 20))
    if draw(st.booleans()):
        K = ovk_ref.gaussian_separable(draw(strategies.log_uniform(1e-3, 1e2)), d)
    else:
        K = ovk_ref.LinearQuadratic(draw(st.floats(0.0, 1.0)), d)
    return {"kernel": K.to_dict(), "p": p, "d": d}


@claim("kernel.kappa2_attained", statement="kappa^2_Gauss = (d+9)/10 and kappa^2_nonsep = p(mu d + (1-mu) p), attained at x = 1",
       reference="spec 3.1-3.2, C3", hypotheses="the paper's two experiment kernels, p <= 20", expected="holds",
       instances=_paper_kernels(), informative="every instance (kappa^2 > 0)")
def kappa2_attained(instance, impl=None, precision=None):
    K = kernel(instance)
    ones = np.ones(instance["p"])
    observed = float(np.linalg.eigvalsh(K(ones, ones)).max())
    kappa2 = float(constants.paper_kappa2(K, instance["p"]))
    return _identity(abs(kappa2 - observed), kappa2, kappa2=kappa2, at_ones=observed)


@claim("kernel.J_spectrum", statement="spec(J) = {0.9 (d-1 times), 0.9 + 0.1 d}: J is positive definite for every d",
       reference="spec 3.1, C3", hypotheses="d >= 1", expected="holds", instances=st.integers(2, 40).map(lambda d: {"d": d}),
       informative="d >= 2 (two distinct eigenvalues)", space=39)
def j_spectrum(instance, impl=None, precision=None):
    d = instance["d"]
    expected = sorted([0.9] * (d - 1) + [float(constants.evaluate(constants.J_NORM, d=d))])
    observed = np.linalg.eigvalsh(ovk_ref.paper_J(d))
    return _identity(float(np.max(np.abs(observed - expected))), float(max(expected)), smallest=float(observed.min()))


@st.composite
def _outside_mu(draw):
    d, p = draw(st.integers(2, 5)), draw(strategies.dimensions)
    mu = draw(st.one_of(st.floats(1.0, 100.0, exclude_min=True), st.floats(-100.0, 0.0, exclude_max=True)))
    x = draw(strategies.unit_interval_arrays(p))
    if mu < 0:  # the negative eigenvalue mu s d + (1-mu) s^2 < 0 needs s = ||x||^2 < -mu d / (1 - mu)
        x = x * min(1.0, 0.5 * np.sqrt(-mu * d / (1 - mu) / max(float(x @ x), 1e-300)))
    return {"mu": mu, "d": d, "p": p, "x": x.tolist()}


@claim("kernel.nonsep_outside_unit_interval", statement="mu <x,x'> 11^T + (1-mu) <x,x'>^2 I has a negative eigenvalue at (x, x) for mu outside [0, 1]",
       reference="spec 3.2, C3", hypotheses="d >= 2; x != 0 (mu > 1) or ||x||^2 < -mu d/(1-mu) (mu < 0)", expected="holds",
       instances=_outside_mu().filter(lambda i: any(i["x"])), informative="every instance (x != 0 by construction)")
def nonsep_outside(instance, impl=None, precision=None):
    mu, d, x = instance["mu"], instance["d"], np.asarray(instance["x"], dtype=float)
    with mpmath.workdps(constants.DIGITS):   # the block K(x, x) written out (LinearQuadratic refuses mu outside [0, 1])
        mu, s = mpmath.mpf(mu), mpmath.fsum(mpmath.mpf(v) ** 2 for v in x)
        block = mpmath.matrix([[mu * s + (1 - mu) * s**2 * (i == j) for j in range(d)] for i in range(d)])
        smallest = min(mpmath.eigsy(block, eigvals_only=True))
        scale = abs(mu) * s * d + abs(1 - mu) * s**2
        return Outcome(margin=float(-smallest / scale), scale=1.0, quantities={"smallest_eigenvalue": float(smallest)},
                       observed=float(smallest / scale), bound=0.0)


#: the parameters ``_every_family`` draws from other ranges than their families': bandwidths whose values resolve
#: (neither 0 nor 1 at distinct points of the box)
_RESOLVED = {"mu": strategies.log_uniform(0.05, 20.0), "offset": strategies.floats(0.0, 1.0)}


def _pair_indices(candidates: int):
    """Two of the ``candidates`` kernels a sum of ``_every_family`` draws from, by index (as ``sampled_from`` draws them):
    strategies built inside a draw are validated anew and left as cyclic garbage (``strategies.reused``)."""
    return strategies.lists_of(strategies.integers(0, candidates - 1), 2)


@st.composite
def _every_family(draw):
    """One kernel of every family of spec 3 with one ``d`` and ``p`` (separable with each scalar kernel of
    ``ovk_ref.kernels.scalar``, the non-separable kernel, a feature kernel, a weighted sum of two), the paper's Gaussian
    with ``J``, and two distinct points of the box."""
    d, p = draw(strategies.integers(1, 3)), draw(strategies.integers(1, 3))
    scalars = [family(**{name: draw(strategy) for name, strategy in strategies.scalar_parameters(family, _RESOLVED).items()})
               for family in strategies.scalar_families()]
    separable = [ovk_ref.Separable(scalar, draw(strategies.psd_matrices(d))) for scalar in scalars]
    others = [ovk_ref.LinearQuadratic(draw(strategies.floats(0.0, 1.0)), d), draw(strategies.feature_kernels(d, p))]
    candidates = separable + others[:1]
    pair = [candidates[index] for index in draw(_pair_indices(len(candidates)))]   # not a strategy of these kernels
    sums = [ovk_ref.WeightedSum([(draw(strategies.positive_weights()), kernel) for kernel in pair])]
    x, z = (draw(strategies.not_all_zero(strategies.unit_interval_arrays(p))) for _ in range(2))
    assume(np.any(x != z))
    return {"d": d, "p": p, "kernels": [kernel.to_dict() for kernel in separable + others + sums],
            "paper_mu": draw(strategies.log_uniform(0.05, 20.0)), "x": x.tolist(), "z": z.tolist()}


def _block_outcomes(instance):
    """``(name, ovk_ref's K(x, z) and K(z, x), the closed forms, the size of their terms)`` for every kernel."""
    x, z = (np.asarray(instance[key], dtype=float) for key in ("x", "z"))
    paper = ovk_ref.gaussian_separable(instance["paper_mu"], instance["d"])
    for spec in instance["kernels"] + [{"type": "paper_gaussian", "mu": instance["paper_mu"]}]:
        kernel = paper if spec["type"] == "paper_gaussian" else ovk_ref.as_kernel(spec)
        for a, b in ((x, z), (z, x)):
            if spec["type"] == "paper_gaussian":
                exact = closed_forms.paper_gaussian(spec["mu"], instance["d"], a, b)
                size = exact
            else:
                exact, size = closed_forms.kernel_block(spec, a, b), closed_forms.kernel_block(spec, a, b, absolute=True)
            yield spec["type"], np.asarray(kernel(a, b), dtype=float), exact, size


@claim("kernel.values", statement="K(x, z) of every kernel family (sums and the paper's Gaussian with J included) equals "
       "the formula of spec 3 at distinct points, both orders",
       reference="spec 3.1-3.3 (kernel definitions)", hypotheses="every kernel family of spec 3; x != z in [0,1]^p",
       expected="holds", instances=_every_family(),
       informative="some K(x, z) not 0 (every family is checked in every instance); the closed form is sympy at 50 "
                   "digits from the portable dict, not ovk_ref's kernel code", faults=faults.of_layer("kernel"))
def kernel_values(instance, impl=None, precision=None):
    worst, resolved_any = None, False
    for name, observed, exact, size in _block_outcomes(instance):
        expected = np.array([[closed_forms.numeric(v) for v in row] for row in exact.tolist()])
        magnitude = float(np.max([[closed_forms.numeric(v) for v in row] for row in size.tolist()]))
        error = float(np.max(np.abs(observed - expected))) if observed.shape == expected.shape else math.inf
        error = error if math.isfinite(error) else math.inf
        resolved_any = resolved_any or resolved(expected)
        outcome = _identity(error, magnitude, kernel=name, max_error=error)
        if worst is None or outcome.relative_margin < worst.relative_margin:
            worst = outcome
    worst.informative = resolved_any
    return worst
