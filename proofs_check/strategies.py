"""All Hypothesis strategies of the project, in one module, valid by construction (spec 11 "Generators").

Small sizes (streams of at most a few dozen rounds, d <= 4, p <= 4) so that shrinking gives readable
counterexamples; magnitudes bounded so that float64 round-off stays far below the checked margins.
Compose them: ``kernels(d, p)``, ``streams(p, d, ...)``, ``step_parameters()``, ``losses()``.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ovk_ref

FLOATS = dict(allow_nan=False, allow_infinity=False, allow_subnormal=False)


def unit_interval_arrays(shape):
    """Arrays with entries in [0, 1] (the paper's input box)."""
    return hnp.arrays(float, shape, elements=st.floats(0.0, 1.0, **FLOATS))


def bounded_arrays(shape, bound=1.0):
    return hnp.arrays(float, shape, elements=st.floats(-bound, bound, **FLOATS))


dimensions = st.integers(1, 4)


@st.composite
def psd_matrices(draw, d: int):
    """Symmetric PSD ``R R^T / q`` with ``R`` of shape (d, q), entries in [-1, 1] (rank may be < d)."""
    q = draw(st.integers(1, d + 1))
    R = draw(bounded_arrays((d, q)))
    return R @ R.T / q


@st.composite
def separable_kernels(draw, d: int):
    """``k(x, z) B`` with a Gaussian, linear, polynomial or constant scalar kernel."""
    B = draw(st.one_of(st.just(ovk_ref.paper_J(d)), psd_matrices(d)))
    scalar = draw(st.one_of(
        st.builds(ovk_ref.Gaussian, mu=st.floats(1e-3, 1e2, **FLOATS)),
        st.just(ovk_ref.Linear()),
        st.builds(ovk_ref.Polynomial, degree=st.integers(1, 3), offset=st.floats(0.0, 1.0, **FLOATS)),
        st.builds(ovk_ref.Constant, c=st.floats(0.0, 2.0, **FLOATS)),
    ))
    return ovk_ref.Separable(scalar, B)


def linear_quadratic_kernels(d: int):
    """The paper's non-separable kernel, ``mu`` over its whole admissible range [0, 1] (spec 3.2)."""
    return st.builds(ovk_ref.LinearQuadratic, mu=st.floats(0.0, 1.0, **FLOATS), d=st.just(d))


@st.composite
def feature_kernels(draw, d: int, p: int):
    """``A(x) A(z)^T`` (spec 3.3): blocks not symmetric, so it catches transpositions."""
    q = draw(st.integers(1, 4))
    return ovk_ref.Feature(draw(bounded_arrays((p + 1, d, q))))


@st.composite
def weighted_sums(draw, d: int, p: int):
    terms = draw(st.lists(st.tuples(st.floats(0.0, 2.0, **FLOATS),
                                    st.one_of(separable_kernels(d), linear_quadratic_kernels(d))), min_size=1, max_size=3))
    return ovk_ref.WeightedSum(terms)


def kernels(d: int, p: int, *, feature: bool = True):
    """Any kernel of spec 3 with output dimension ``d`` on inputs of dimension ``p``."""
    options = [separable_kernels(d), linear_quadratic_kernels(d), weighted_sums(d, p)]
    if feature:
        options.append(feature_kernels(d, p))
    return st.one_of(*options)


@st.composite
def step_parameters(draw, max_lam: float = 10.0):
    """``(lam, eta)`` with ``lam > 0``, ``eta > 0`` and ``rho = eta lam`` over all of (0, 1)."""
    lam = draw(st.floats(1e-3, max_lam, **FLOATS))
    rho = draw(st.floats(1e-3, 0.999, **FLOATS))
    return lam, rho / lam


def regression_losses():
    return st.one_of(st.just("squared"), st.just("norm"),
                     st.builds(lambda delta: {"type": "huber", "delta": delta}, st.floats(0.05, 2.0, **FLOATS)),
                     st.builds(lambda eps: {"type": "epsilon_insensitive", "epsilon": eps}, st.floats(0.0, 1.0, **FLOATS)))


def losses(d: int):
    """Names/dicts of the losses of spec 4 usable with output dimension ``d`` (classification needs d >= 2)."""
    return regression_losses() if d < 2 else st.one_of(regression_losses(), st.sampled_from(["hinge", "softmax"]))


@st.composite
def streams(draw, p: int, d: int, *, loss="squared", min_n: int = 1, max_n: int = 12, y_bound: float = 1.0):
    """``(X, Y)``: X in ``[0, 1]^p``, rows of Y with ``||y|| <= y_bound`` (one-hot for hinge/softmax)."""
    n = draw(st.integers(min_n, max_n))
    X = draw(unit_interval_arrays((n, p)))
    if ovk_ref.as_loss(loss).one_hot_targets:
        classes = draw(hnp.arrays(int, n, elements=st.integers(0, d - 1)))
        return X, np.eye(d)[classes]
    Y = draw(bounded_arrays((n, d), bound=y_bound))
    norms = np.linalg.norm(Y, axis=1, keepdims=True)
    return X, np.where(norms > y_bound, Y * (y_bound / np.maximum(norms, 1e-300)), Y)


@st.composite
def problems(draw, *, feature: bool = True, max_n: int = 12):
    """A whole ONORMA instance: dict with kernel, X, Y, lam, eta, loss."""
    d, p = draw(dimensions), draw(dimensions)
    kernel = draw(kernels(d, p, feature=feature))
    loss = draw(losses(d))
    X, Y = draw(streams(p, d, loss=loss, max_n=max_n))
    lam, eta = draw(step_parameters())
    return {"kernel": kernel, "X": X, "Y": Y, "lam": lam, "eta": eta, "loss": loss}
