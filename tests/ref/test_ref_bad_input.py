"""Bad input: a ValueError or TypeError whose message names the parameter, raised before
any work (checked with a kernel that counts its evaluations)."""
import re

import numpy as np
import pytest

import ovk_ref
from ovk_ref.kernels import OperatorKernel

X = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
GOOD = dict(lam=0.1, eta=0.5, r=2.0)


class CountingKernel(OperatorKernel):
    """The paper's Gaussian kernel (d = 2), counting its evaluations."""

    def __init__(self):
        self.inner = ovk_ref.gaussian_separable(1.0, 2)
        self.d, self.p, self.calls = 2, None, 0

    def __call__(self, x, z):
        self.calls += 1
        return self.inner(x, z)

    def to_dict(self):
        return self.inner.to_dict()


def run(algorithm, kernel, X=X, Y=Y, **overrides):
    options = {**GOOD, **overrides}
    if algorithm == "onorma":
        return ovk_ref.onorma(X, Y, kernel, lam=options["lam"], eta=options["eta"], loss=options.get("loss", "squared"),
                              truncation=options.get("truncation"))
    if algorithm == "monorma":
        return ovk_ref.monorma(X, Y, [kernel, kernel], lam=options["lam"], eta=options["eta"], r=options["r"],
                               loss=options.get("loss", "squared"))
    return ovk_ref.batch_ridge(X, Y, kernel, lam=options["lam"])


def assert_rejected(error_type, parameter, call):
    """``call()`` raises ``error_type`` naming ``parameter``."""
    with pytest.raises(error_type) as raised:
        call()
    assert re.search(rf"(?<![\w.]){re.escape(parameter)}(?!\w)", str(raised.value)), \
        f"message does not name {parameter!r}: {raised.value}"


NAN_X = X.copy()
NAN_X[1, 0] = np.nan
INF_Y = Y.copy()
INF_Y[2, 1] = np.inf

STREAM_CASES = [  # (algorithms, error type, parameter named, keyword arguments of run, id)
    ("onorma monorma batch", ValueError, "X", dict(X=NAN_X), "X with NaN"),
    ("onorma monorma batch", ValueError, "Y", dict(Y=INF_Y), "Y with inf"),
    ("onorma monorma batch", ValueError, "X", dict(X=X[:2]), "X and Y with different row counts"),
    ("onorma monorma batch", ValueError, "Y", dict(Y=np.ones((3, 3))), "Y width not the kernel's d"),
    ("onorma monorma batch", TypeError, "X", dict(X=[["a", "b"]] * 3), "X not numbers"),
    ("onorma monorma batch", ValueError, "lam", dict(lam=0.0), "lam = 0"),
    ("onorma monorma batch", ValueError, "lam", dict(lam=-1.0), "lam < 0"),
    ("onorma monorma batch", TypeError, "lam", dict(lam="0.1"), "lam not a number"),
    ("onorma monorma", ValueError, "eta", dict(eta=0.0), "eta = 0"),
    ("onorma monorma", ValueError, "eta", dict(eta=-0.5), "eta < 0"),
    ("onorma monorma", ValueError, "eta*lam", dict(lam=2.0, eta=0.5), "eta*lam = 1"),
    ("onorma monorma", ValueError, "eta*lam", dict(lam=1.0, eta=3.0), "eta*lam > 1"),
    ("monorma", ValueError, "r", dict(r=0.0), "r = 0"),
    ("monorma", ValueError, "r", dict(r=-1.0), "r < 0"),
    ("onorma", ValueError, "truncation", dict(truncation=0), "truncation = 0"),
    ("onorma", ValueError, "truncation", dict(truncation=-2), "truncation < 0"),
    ("onorma", TypeError, "truncation", dict(truncation=1.5), "truncation not an int"),
    ("onorma", ValueError, "truncation", dict(truncation=lambda t: 1 if t < 3 else 0), "schedule with s_3 = 0"),
    ("onorma monorma", ValueError, "loss", dict(loss="cubic"), "unknown loss name"),
    ("onorma monorma", ValueError, "loss", dict(loss={"type": "huber", "width": 1.0}), "loss dict with a wrong field"),
    ("onorma monorma", ValueError, "Y", dict(loss="hinge"), "hinge with targets that are not one-hot"),
]


@pytest.mark.parametrize("algorithm, error_type, parameter, overrides", [
    pytest.param(algorithm, error_type, parameter, overrides, id=f"{algorithm}: {name}")
    for algorithms, error_type, parameter, overrides, name in STREAM_CASES for algorithm in algorithms.split()])
def test_bad_stream_or_parameter_is_rejected_before_any_work(algorithm, error_type, parameter, overrides):
    kernel = CountingKernel()
    assert_rejected(error_type, parameter, lambda: run(algorithm, kernel, **overrides))
    assert kernel.calls == 0, f"{kernel.calls} kernel evaluations before the error"


B_GOOD = [[1.0, 0.1], [0.1, 1.0]]

KERNEL_CASES = [
    pytest.param({"type": "linear_separable", "B": [[1.0, 0.5], [0.0, 1.0]]}, ValueError, "B", id="B not symmetric"),
    pytest.param({"type": "gaussian_separable", "mu": 1.0, "B": [[1.0, 0.0], [0.0, -0.1]]}, ValueError, "B", id="B not PSD"),
    pytest.param({"type": "gaussian_separable", "mu": 1.0, "B": [[1.0, 2.0], [2.0, 1.0]]}, ValueError, "B",
                 id="B symmetric with a negative eigenvalue"),
    pytest.param({"type": "linear_separable", "B": [[1.0, 0.0, 0.0]]}, ValueError, "B", id="B not square"),
    pytest.param({"type": "linear_quadratic", "mu": 1.5, "d": 2}, ValueError, "mu", id="mu > 1"),
    pytest.param({"type": "linear_quadratic", "mu": -0.5, "d": 2}, ValueError, "mu", id="mu < 0"),
    pytest.param({"type": "gaussian_separable", "mu": 0.0, "B": B_GOOD}, ValueError, "mu", id="gaussian mu = 0"),
    pytest.param({"type": "rbf", "mu": 1.0}, ValueError, "kernel", id="unknown kernel name"),
    pytest.param({"mu": 1.0, "B": B_GOOD}, ValueError, "kernel", id="kernel dict without type"),
    pytest.param({"type": "gaussian_separable", "B": B_GOOD}, ValueError, "kernel", id="kernel dict missing a field"),
    pytest.param({"type": "gaussian_separable", "mu": 1.0, "B": B_GOOD, "sigma": 2.0}, ValueError, "kernel",
                 id="kernel dict with an unknown field"),
    pytest.param({"type": "sum", "terms": [{"weight": 1.0}]}, ValueError, "terms", id="sum term without a kernel"),
    pytest.param({"type": "sum", "terms": [{"weight": -1.0, "kernel": {"type": "linear_separable", "B": B_GOOD}}]},
                 ValueError, "weight", id="negative weight"),
    pytest.param("gaussian", TypeError, "kernel", id="kernel given as a bare name"),
]


@pytest.mark.parametrize("spec, error_type, parameter", KERNEL_CASES)
@pytest.mark.parametrize("algorithm", ["onorma", "monorma", "batch"])
def test_bad_kernel_is_rejected(algorithm, spec, error_type, parameter):
    assert_rejected(error_type, parameter, lambda: run(algorithm, spec))
    assert_rejected(error_type, parameter, lambda: ovk_ref.kernel_from_dict(spec))


def test_bad_kernel_objects_are_rejected_at_construction():
    assert_rejected(ValueError, "B", lambda: ovk_ref.Separable(ovk_ref.Linear(), [[0.0, 1.0], [1.0, 0.0]]))
    assert_rejected(ValueError, "mu", lambda: ovk_ref.LinearQuadratic(1.01, 3))
    assert_rejected(ValueError, "mu", lambda: ovk_ref.Gaussian(-1.0))


def test_bad_one_example_input_is_rejected_before_the_state_changes():
    learner = ovk_ref.ONORMA(CountingKernel(), lam=0.1, eta=0.5)
    learner.learn_one(X[0], Y[0])
    before = learner.coefficients().copy()
    assert_rejected(ValueError, "x", lambda: learner.learn_one(np.array([np.nan, 0.0]), Y[1]))
    assert_rejected(ValueError, "y", lambda: learner.learn_one(X[1], np.array([1.0, 2.0, 3.0])))
    assert_rejected(ValueError, "x", lambda: learner.predict_one(np.array([0.0, np.inf])))
    assert learner.t == 1 and np.array_equal(learner.coefficients(), before)
