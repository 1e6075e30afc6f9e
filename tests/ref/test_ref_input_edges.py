"""Input edges: complex and non-numeric inputs refused, B's PSD test relative to B's scale,
kernel dicts checked for depth and cycles, malformed kernel and loss dicts named by field."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ovk_fast
import ovk_ref
from ovk_ref.kernels import portable

X = np.array([[0.1, 0.2], [0.3, 0.4]])
Y = np.array([[1.0, 0.0], [0.0, 1.0]])
KERNEL = ovk_ref.gaussian_separable(1.0, 2)


def strings(values):
    return np.array([[str(v) for v in row] for row in values], dtype=object)


@pytest.mark.parametrize("name, X_bad, Y_bad", [
    ("complex X", X + 1e-3j, Y),
    ("complex Y", X, Y.astype(complex)),
    ("object array of numeric strings", strings(X), Y),
    ("unicode strings", strings(X).astype(str), Y),
    ("bytes", strings(X).astype(bytes), Y),
    ("a None entry", np.array([[0.1, None], [0.3, 0.4]], dtype=object), Y),
    ("a complex entry in an object array", np.array([[0.1, 1j], [0.3, 0.4]], dtype=object), Y),
    ("datetimes", np.array([["2020-01-01", "2020-01-02"]] * 2, dtype="datetime64[D]"), Y),
])
@pytest.mark.parametrize("engine", [ovk_ref, ovk_fast], ids=["ovk_ref", "ovk_fast"])
def test_non_real_inputs_are_a_type_error_naming_the_array(engine, name, X_bad, Y_bad):
    which = "X" if X_bad is not X else "Y"
    for call in (lambda: engine.onorma(X_bad, Y_bad, KERNEL, lam=0.1, eta=0.5),
                 lambda: engine.batch_ridge(X_bad, Y_bad, KERNEL, lam=0.1)):
        with pytest.raises(TypeError, match=rf"^{which} must be an array of real numbers"):
            call()


def test_real_object_arrays_and_ints_are_still_accepted():
    """Backward compatible: ints, bools and object arrays of real numbers are numbers."""
    reference = ovk_ref.onorma(X, Y, KERNEL, lam=0.1, eta=0.5)
    as_objects = ovk_ref.onorma(X.astype(object), Y.astype(int).astype(object), KERNEL, lam=0.1, eta=0.5)
    np.testing.assert_array_equal(as_objects.predictions, reference.predictions)


def test_ragged_and_overflowing_inputs_are_value_errors():
    with pytest.raises(ValueError, match="^X must be a rectangular array"):
        ovk_ref.onorma([[0.1, 0.2], [0.3]], Y, KERNEL, lam=0.1, eta=0.5)
    with pytest.raises(ValueError, match="^X must be finite"):
        ovk_ref.onorma(np.array([[10**400, 0], [0, 0]], dtype=object), Y, KERNEL, lam=0.1, eta=0.5)


@pytest.mark.parametrize("B", [-1e-11 * np.eye(1), -1e-11 * np.eye(3), -1e-300 * np.eye(2), -1e300 * np.eye(2),
                               np.array([[1e-11, 0.0], [0.0, -1e-12]])],
                         ids=["-1e-11 I (1x1)", "-1e-11 I (3x3)", "-1e-300 I", "-1e300 I", "tiny indefinite"])
def test_a_b_that_is_not_psd_is_refused_at_every_scale(B):
    with pytest.raises(ValueError, match="positive semi-definite"):
        ovk_ref.Separable(ovk_ref.Gaussian(1.0), B)


@given(size=st.integers(1, 6), exponent=st.integers(-300, 300), seed=st.integers(0, 2**32 - 1))
def test_every_negative_definite_b_is_refused(size, exponent, seed):
    R = np.random.default_rng(seed).standard_normal((size, size))
    B = -(R @ R.T + np.eye(size)) * 10.0**exponent
    B = (B + B.T) / 2
    with pytest.raises(ValueError, match="positive semi-definite"):
        ovk_ref.Separable(ovk_ref.Gaussian(1.0), B)


@given(size=st.integers(1, 6), exponent=st.integers(-300, 300), seed=st.integers(0, 2**32 - 1))
def test_psd_b_is_accepted_at_every_scale(size, exponent, seed):
    """The relative test does not refuse a PSD B, rank-deficient ones (zero eigenvalues) included."""
    R = np.random.default_rng(seed).standard_normal((size, max(size - 1, 1)))
    B = R @ R.T * 10.0**exponent
    B = (B + B.T) / 2
    kernel = ovk_ref.Separable(ovk_ref.Gaussian(1.0), B)
    assert kernel.d == size


def test_a_negative_norm_can_no_longer_be_built():
    """The issue: B = -1e-11 I was accepted and gave a negative rkhs_norm2."""
    with pytest.raises(ValueError, match="positive semi-definite"):
        ovk_ref.onorma(X, Y, {"type": "gaussian_separable", "mu": 1.0, "B": (-1e-11 * np.eye(2)).tolist()},
                       lam=0.1, eta=0.5)


def nested_sum(depth):
    spec = KERNEL.to_dict()
    for _ in range(depth):
        spec = {"type": "sum", "terms": [{"weight": 1.0, "kernel": spec}]}
    return spec


def test_kernel_dicts_nested_too_deep_are_a_value_error():
    assert ovk_ref.kernel_from_dict(nested_sum(portable.MAX_DEPTH - 1)).d == 2
    for depth in (portable.MAX_DEPTH, 400, 5000):
        with pytest.raises(ValueError, match="MAX_DEPTH"):
            ovk_ref.kernel_from_dict(nested_sum(depth))


def test_cyclic_kernel_dicts_are_a_value_error():
    cyclic = {"type": "sum", "terms": []}
    cyclic["terms"].append({"weight": 1.0, "kernel": cyclic})
    with pytest.raises(ValueError, match="contains itself"):
        ovk_ref.kernel_from_dict(cyclic)
    shared = KERNEL.to_dict()   # the same dict twice, side by side, is not a cycle
    assert ovk_ref.kernel_from_dict({"type": "sum", "terms": [{"weight": 1.0, "kernel": shared}] * 2}).d == 2


MALFORMED_KERNELS = [  # (dict, error type, text the message must contain)
    ({"type": ["gaussian_separable"]}, ValueError, "'type'"),
    ({"type": None}, ValueError, "'type'"),
    ({"mu": 1.0}, ValueError, "'type'"),
    ({"type": "gaussian_separable", "mu": "1", "B": [[1.0]]}, TypeError, "mu"),
    ({"type": "gaussian_separable", "mu": 1.0, "B": [[1.0, 2.0], [3.0]]}, ValueError, "B"),
    ({"type": "gaussian_separable", "mu": 1.0, "B": [[1j]]}, TypeError, "B"),
    ({"type": "gaussian_separable", "mu": 1.0, "B": "eye"}, TypeError, "B"),
    ({"type": "gaussian_separable", "mu": 1.0}, ValueError, "'B'"),
    ({"type": "linear_quadratic", "mu": 0.5, "d": 2.0}, TypeError, "d"),
    ({"type": "linear_quadratic", "mu": 0.5, "d": 2, 7: "x"}, ValueError, "unknown field"),
    ({"type": "feature", "M": [[["a"]]]}, TypeError, "M"),
    ({"type": "sum", "terms": {"weight": 1.0}}, ValueError, "terms"),
    ({"type": "sum", "terms": [{"weight": 1.0}]}, ValueError, "terms[0]"),
    ({"type": "sum", "terms": [{"weight": "1", "kernel": KERNEL.to_dict()}]}, TypeError, "terms[0] weight"),
    ({"type": "sum", "terms": [{"weight": 1.0, "kernel": {"type": "gaussian_separable", "mu": -1.0, "B": [[1.0]]}}]},
     ValueError, "kernel.terms[0].kernel: mu"),
    ({"type": "sum", "terms": [{"weight": 1.0, "kernel": [1, 2]}]}, TypeError, "kernel.terms[0].kernel must be"),
]


@pytest.mark.parametrize("spec, error, named", MALFORMED_KERNELS, ids=[str(i) for i in range(len(MALFORMED_KERNELS))])
def test_malformed_kernel_dicts_name_the_field(spec, error, named):
    with pytest.raises(error) as raised:
        ovk_ref.kernel_from_dict(spec)
    assert named in str(raised.value)


MALFORMED_LOSSES = [
    ({"type": ["squared"]}, ValueError, "'type'"),
    ({"type": {"a": 1}}, ValueError, "'type'"),
    ({}, ValueError, "'type'"),
    ({"type": "huber", "delta": "1"}, TypeError, "delta"),
    ({"type": "huber", "delta": -1.0}, ValueError, "delta"),
    ({"type": "huber", 3: 1.0}, ValueError, "loss dict"),
    ({"type": "squared", "delta": 1.0}, ValueError, "loss dict"),
    (["squared"], TypeError, "loss"),
    (None, TypeError, "loss"),
]


@pytest.mark.parametrize("loss, error, named", MALFORMED_LOSSES, ids=[str(i) for i in range(len(MALFORMED_LOSSES))])
def test_malformed_loss_dicts_name_the_field(loss, error, named):
    with pytest.raises(error) as raised:
        ovk_ref.onorma(X, Y, KERNEL, lam=0.1, eta=0.5, loss=loss)
    assert named in str(raised.value)


def deeply_nested(depth=100_000):
    value = 1.0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("call", [
    lambda deep: ovk_ref.kernel_from_dict({"type": deep}),
    lambda deep: ovk_ref.kernel_from_dict({"type": "linear_quadratic", "mu": deep, "d": 1}),
    lambda deep: ovk_ref.kernel_from_dict({"type": "sum", "terms": [{"weight": 1.0, "kernel": KERNEL.to_dict(),
                                                                     "extra": deep}]}),
    lambda deep: ovk_ref.as_loss({"type": deep}),
    lambda deep: ovk_ref.as_loss({"type": "huber", "delta": deep}),
    lambda deep: ovk_ref.onorma(X, Y, KERNEL, lam=deep, eta=0.5),
    lambda deep: ovk_ref.onorma([[deep, 0.0]] * 2, Y, KERNEL, lam=0.1, eta=0.5),
], ids=["kernel type", "kernel field", "sum term", "loss type", "loss field", "lam", "X"])
def test_values_nested_very_deep_are_refused_without_recursion_error(call):
    """Error messages show a bounded repr of the offending value (a full repr would recurse 100000 deep)."""
    with pytest.raises((ValueError, TypeError)) as raised:
        call(deeply_nested())
    assert len(str(raised.value)) < 400
