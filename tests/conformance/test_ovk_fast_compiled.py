"""ovk_fast's compiled kernels (the ``fast`` extra, numba): the exp of ``ovk_fast.compiled`` against libm, the
fused product of a tile against numpy's, and planted faults in each that the checks catch. That the engine's
records match the reference with and without them is ``test_ovk_fast_properties`` (it draws ``compiled``)."""
import contextlib
import importlib
import inspect
import math
from types import SimpleNamespace
from unittest import mock

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from shared.streams import linear_related_tasks
from test_ovk_fast_properties import ONE_DOWNDATE_PER_ROUND, assert_same_record, plant_fault, term_scales

import ovk_fast
import ovk_ref
from ovk_conform import run
from ovk_conform.manifest import load_cases
from ovk_conform.vectors import ALGORITHMS
from ovk_fast import tolerances as fast_tolerances
from ovk_ref import tolerances

compiled_module = importlib.import_module("ovk_fast.compiled")
stored_rows_module = importlib.import_module("ovk_fast.stored_rows")
monorma_module = importlib.import_module("ovk_fast.monorma")
onorma_module = importlib.import_module("ovk_fast.onorma")
kernel_rows_module = importlib.import_module("ovk_fast.kernel_rows")

pytestmark = pytest.mark.skipif(not compiled_module.AVAILABLE, reason="numba is not installed: no compiled kernels")

#: where exp is 0 (below), finite and normal, subnormal, and inf (above), and its reduction's edges
EDGES = [-800.0, -746.0, -745.2, -745.1, -740.0, -720.0, -708.5, -708.3, -1e-300, 0.0, 5e-324, 0.5 * math.log(2),
         -0.5 * math.log(2), 1.0, 700.0, 709.78, 709.79, 710.0, 800.0]


def libm_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def ulps_from_libm(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """|values - libm's exp(x)| in units in the last place of libm's value (0 where both are the same inf)."""
    expected = np.array([libm_exp(v) for v in x])
    same = values == expected
    with np.errstate(invalid="ignore", over="ignore"):      # inf - inf, and a finite value / the spacing of 5e-324
        return np.where(same, 0.0, np.abs(values - expected) / np.spacing(expected))


def exp_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``exp(x)`` of a 1-d array into ``out``, by ``_exp_row`` compiled."""
    compiled_module._compiled()["exp_row"](x, 1.0, out)
    return out


def plain_exp_row(source: str):
    """``_exp_row`` from ``source`` run as plain Python (not compiled)."""
    namespace = {}
    exec(source, namespace)
    return namespace["_exp_row"]


@given(x=hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(-760.0, 720.0)))
def test_the_compiled_exp_is_libms_to_two_ulps(x):
    assert np.max(ulps_from_libm(exp_into(x, np.empty_like(x)), x)) <= fast_tolerances.COMPILED_EXP_ULPS


def test_the_compiled_exp_at_its_edges_and_on_nan():
    x = np.array(EDGES + [math.nan, -math.inf, math.inf])
    values = exp_into(x, np.empty_like(x))
    assert np.max(ulps_from_libm(values[:-3], x[:-3])) <= fast_tolerances.COMPILED_EXP_ULPS
    assert math.isnan(values[-3]) and values[-2] == 0.0 and values[-1] == math.inf


@pytest.mark.parametrize("fault, planted", [
    ("the polynomial two degrees short", (
        "p = _CUBIC_TAIL[0]\n    p = p * s + _CUBIC_TAIL[1]\n    p = p * s + _CUBIC_TAIL[2]",
        "p = _CUBIC_TAIL[2]")),
    ("ln 2 in one part", (" - k * _LN2_LOW", "")),
    ("2^k in one factor: subnormals round twice, or wrap", (
        "p * _float_from_bits((half + 1023) << 52) * _float_from_bits((whole - half + 1023) << 52)",
        "p * _float_from_bits((whole + 1023) << 52)")),
])
def test_a_planted_fault_in_the_exp_is_caught(fault, planted):
    """The check above on its edges and a grid catches each planted fault (run as plain Python, as is the faultless
    source, which passes)."""
    source = inspect.getsource(compiled_module)
    assert source.count(planted[0]) == 1
    x = np.concatenate([EDGES, np.linspace(-745.0, 709.0, 4001)])
    for exp_row, expect_caught in ((plain_exp_row(source), False), (plain_exp_row(source.replace(*planted)), True)):
        values = np.empty_like(x)
        with np.errstate(all="ignore"):
            exp_row(x, 1.0, values)
        assert (np.max(ulps_from_libm(values, x)) > fast_tolerances.COMPILED_EXP_ULPS) == expect_caught, fault


def test_the_exp_polynomial_is_within_its_fit_of_e_s():
    """The reduced-range polynomial of the compiled exp, with its float64 coefficients evaluated exactly (40 digits),
    is within ovk_fast.tolerances.CUBIC_TAIL_FIT of e^s on 2001 points of |s| <= ln2 / 2; with its last coefficient 1/6 one part in 1e12
    off (planted), it is not."""
    with mpmath.workdps(40):
        half = mpmath.log(2) / 2

        def worst(coefficients):
            error = 0
            for s in mpmath.linspace(-half, half, 2001):
                q = mpmath.mpf(0)
                for c in coefficients:
                    q = q * s + mpmath.mpf(c)
                error = max(error, abs(1 + s + s**2 / 2 + s**3 * q - mpmath.exp(s)) / mpmath.exp(s))
            return error
        assert worst(compiled_module._CUBIC_TAIL) <= fast_tolerances.CUBIC_TAIL_FIT
        assert worst(compiled_module._CUBIC_TAIL[:-1] + (compiled_module._CUBIC_TAIL[-1] * (1 + 1e-12),)) > fast_tolerances.CUBIC_TAIL_FIT


def _upper_triangle_agrees(exp_upper) -> bool:
    """``exp_upper(E, factor, out)`` (``_exp_upper``'s arguments) on every size up to 9 is numpy's exp of ``factor E``
    on the strict upper triangle, and leaves the rest of ``out`` as it was."""
    agree = []
    for n in range(10):
        E = -np.random.default_rng(n).uniform(0.0, 30.0, (n, n))
        out = np.full((n, n), np.nan)
        exp_upper(E, 0.7, out)
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        agree.append(np.all(np.abs(out[upper] - np.exp(0.7 * E[upper])) <= tolerances.IDENTITY_RTOL * np.exp(0.7 * E[upper]))
                     and np.all(np.isnan(out[~upper])))
    return all(agree)


@pytest.mark.parametrize("fault, planting", [
    ("the diagonal exponentiated too, one entry short of each row", ("_exp_row(E[i, i + 1:], factor, out[i, i + 1:])",
                                                                      "_exp_row(E[i, i:-1], factor, out[i, i + 1:])")),
    ("the first row skipped", ("for i in range(E.shape[0]):", "for i in range(1, E.shape[0]):")),
])
def test_the_upper_triangle_exp_and_planted_faults(fault, planting):
    """``exp_upper`` (a block's own Gaussian values, transposed, as ONORMA's compiled rounds read them) is numpy's exp
    on the strict upper triangle and writes nothing else; each planted fault, run as plain Python, is caught."""
    assert _upper_triangle_agrees(lambda E, factor, out: compiled_module.exp_upper(E, out, factor))
    with np.errstate(all="ignore"):
        assert not _upper_triangle_agrees(plant_fault(compiled_module, *planting)["_exp_upper"]), fault


@pytest.mark.parametrize("window", [1, 3, 20])
def test_truncated_onorma_rounds_keep_the_terms_of_their_window_and_a_planted_fault_is_caught(window):
    """The compiled rounds add a round's term to the later rounds of its block that keep it (``firsts``: a window of 1
    keeps none, of 3 two, of 20 most of a block of 32 rounds, on the in-loop exponents); planted, a term also given to
    the first round that drops it (run as plain Python), caught."""
    X, Y, kernel = _gaussian_run(120)
    run = dict(lam=0.05, eta=0.5, truncation=window)
    reference = ovk_ref.onorma(X, Y, kernel, **run)
    scales = term_scales(X, Y, [kernel], reference, 0.5)
    with mock.patch.object(onorma_module, "BLOCK_ROUNDS", 32):
        assert_same_record(ovk_fast.onorma(X, Y, kernel, **run), reference, scales)
        planted = plant_fault(compiled_module, "while reach < n and firsts[reach] <= b:", "while reach < n and firsts[reach] <= b + 1:")
        planted["_exp_row"] = compiled_module._compiled()["exp_row"]
        with mock.patch.object(compiled_module, "onorma_squared_rounds", planted["_onorma_squared_rounds"]), \
                np.errstate(all="ignore"):
            faulty = ovk_fast.onorma(X, Y, kernel, **run)
    with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients"):
        assert_same_record(faulty, reference, scales)


def _gaussian_run(n):
    X, Y = linear_related_tasks(n, p=2, d=3, seed=8)
    return X, Y, ovk_ref.gaussian_separable(0.7, 3)


def test_onorma_takes_the_compiled_kernels_and_a_planted_fault_in_each_is_caught():
    """Where numba is installed, ONORMA's tiles take the compiled tile (``gaussian_tile``: exponents, exp, product) and
    its squared-loss rounds the compiled loop (so the property checks certify them); each with a planted fault fails
    the comparison with the reference: a tile that drops the fourth row of each group of ``ROWS``, a tile whose
    coefficients miss the fold ``scale`` (compiled as planted), and rounds that forget the shrink of the earlier
    terms (``previous``)."""
    X, Y, kernel = _gaussian_run(300)
    reference = ovk_ref.onorma(X, Y, kernel, lam=0.05, eta=0.5)
    scales = term_scales(X, Y, [kernel], reference, 0.5)
    calls = {"tiles": 0, "rounds": 0}
    tile, rounds = compiled_module.gaussian_tile, compiled_module.onorma_squared_rounds

    def counted(name, function):
        return lambda *a: calls.__setitem__(name, calls[name] + 1) or function(*a)

    with mock.patch.object(compiled_module, "gaussian_tile", counted("tiles", tile)), \
            mock.patch.object(compiled_module, "onorma_squared_rounds", counted("rounds", rounds)):
        assert_same_record(ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5), reference, scales)
    assert calls["tiles"] and calls["rounds"]

    def drops_a_row(*arguments):
        out = tile(*arguments)
        out[..., 3::compiled_module.ROWS, :] = 0.0
        return out

    unfolded = plant_fault(compiled_module, "CT[e, j] = C[j, e] * scale", "CT[e, j] = C[j, e]")
    rounds = plant_fault(compiled_module, "previous[b] * (old[b, e] + sums[e, b])",
                         "(old[b, e] + sums[e, b])")["_onorma_squared_rounds"]
    for patch in (mock.patch.object(compiled_module, "gaussian_tile", drops_a_row),
                  mock.patch.object(compiled_module, "gaussian_tile", _planted_tile(unfolded)),
                  mock.patch.object(compiled_module, "onorma_squared_rounds", rounds)):
        with patch, mock.patch.object(onorma_module, "BLOCK_ROUNDS", 32):      # blocks fold: the scale is not 1
            planted = ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5)
        with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients"):
            assert_same_record(planted, reference, scales)


def _planted_tile(namespace, planted_step="_gaussian_tile"):
    """``compiled.gaussian_tile`` from a planted module's namespace, compiled as the module compiles it (so that a
    read past an array is what it is in the engine, not an IndexError, and the engine's tests run at its speed):
    its ``planted_step`` (``_gaussian_tile``, ``_exponent_rows`` or ``_dot_rows``) from the namespace, the other
    steps the module's own."""
    import numba
    strict = numba.njit(fastmath={"contract"}, error_model="numpy")
    own = compiled_module._compiled()
    steps = {"_exponent_rows": own["exponent_rows"], "_exp_row": own["exp_row"], "_dot_rows": own["dot_rows"],
             "row_stride": numba.njit(compiled_module.row_stride)}
    if planted_step == "_exponent_rows":
        steps["_exponent_rows"] = strict(namespace["_exponent_rows"])
    if planted_step == "_dot_rows":
        steps["_dot_rows"] = numba.njit(fastmath={"contract", "reassoc"}, error_model="numpy")(namespace["_dot_rows"])
    tile = compiled_module.jit_calling(namespace["_gaussian_tile"], steps, strict)

    def gaussian_tile(left, right, C, scale, operand, CT, out, factors=(1.0,), mask=None):
        tile(left, right, C, scale, np.asarray(factors, dtype=float), compiled_module._NONE if mask is None else mask,
             operand, CT, out if out.ndim == 3 else out[None])
        return out
    return gaussian_tile


@given(data=st.data())
def test_a_tile_of_gaussians_is_exp_of_the_gemm_then_the_product(data):
    """``gaussian_tile(left, right, C, scale, factors, mask)`` is ``(exp(f left @ right.T) * mask) @ (C * scale)`` for
    each factor f, to IDENTITY_RTOL of the same with ``|C|``, for any count of rows (groups of four and of ``ROWS``,
    and remainders), of terms (one group of ``TERMS``, several, and a last one padded), of stored points and of
    factors, with and without a mask, on scratch memory full of NaN."""
    n, K, w, d = (data.draw(st.integers(0, 19), label="rows"), data.draw(st.integers(1, 14), label="terms"),
                  data.draw(st.integers(0, 40), label="stored points"), data.draw(st.integers(1, 4), label="d"))
    left = data.draw(hnp.arrays(np.float64, (n, K), elements=st.floats(-2.0, 2.0)), label="left")
    right = data.draw(hnp.arrays(np.float64, (w, K), elements=st.floats(-2.0, 2.0)), label="right")
    C = data.draw(hnp.arrays(np.float64, (w, d), elements=st.floats(-1e3, 1e3)), label="C")
    scale = data.draw(st.floats(0.01, 10.0), label="scale")
    factors = data.draw(st.lists(st.just(1.0) | st.floats(0.01, 10.0), min_size=1, max_size=3), label="factors")
    mask = data.draw(st.none() | hnp.arrays(bool, (n, w)), label="mask")
    assert _tile_agrees(compiled_module.gaussian_tile, left, right, C, scale, factors, mask)


def _tile_agrees(gaussian_tile, left, right, C, scale, factors=(1.0,), mask=None) -> bool:
    """``gaussian_tile`` against ``(exp(f left @ right.T) * mask) @ (C * scale)`` for each factor f, its scratch
    memory full of NaN and ``left`` C-contiguous with NaN past its end (what it reads before it writes it, or past
    what it is given, would show); the exponents' round-off (at most 2 K eps sum_k |left_k right_k|, relative on the
    value, times f) within IDENTITY_RTOL here, where that sum is at most 4 K and f at most 10."""
    (n, K), w, d = left.shape, len(right), C.shape[1]
    memory = np.full(n * K + 2 * compiled_module.TERMS, np.nan)
    given = memory[:n * K].reshape((n, K))
    given[...] = left
    out = np.full((len(factors), n, d), np.nan)
    gaussian_tile(given, right, C, scale, np.full(compiled_module.transposed_size(K, w), np.nan),
                  np.full((d, w), np.nan), out, factors, mask)
    agree = []
    for f, products in zip(factors, out):
        values = np.exp(f * (left @ right.T)) * (1 if mask is None else mask)
        agree.append(np.all(np.abs(products - values @ (C * scale)) <= tolerances.IDENTITY_RTOL * (values @ np.abs(C * scale))
                            + tolerances.UNDERFLOW_ATOL))
    return bool(all(agree))


def _every_small_tile(gaussian_tile) -> bool:
    """``_tile_agrees`` on every count of rows up to ``2 ROWS + 1`` and of terms up to ``2 TERMS + 1``, 9 stored
    points and d = 3; and on every count of rows with d = 1 to 3 (an odd last column), two factors and a mask that
    keeps every other term (a single row: a truncated block of one round)."""
    agree = []
    for n in range(1, 2 * compiled_module.ROWS + 2):
        for K in range(1, 2 * compiled_module.TERMS + 2):
            rng = np.random.default_rng([n, K])
            agree.append(_tile_agrees(gaussian_tile, rng.uniform(-1, 1, (n, K)), rng.uniform(-1, 1, (9, K)),
                                      rng.standard_normal((9, 3)), 0.7))
        for d in (1, 2, 3):
            rng = np.random.default_rng([n, d])
            mask = (np.add.outer(np.arange(n), np.arange(7)) % 2).astype(bool)
            agree.append(_tile_agrees(gaussian_tile, rng.uniform(-1, 1, (n, 4)), rng.uniform(-1, 1, (7, 4)),
                                      rng.standard_normal((7, d)), 0.7, (1.0, 0.6), mask))
    return all(agree)


@pytest.mark.parametrize("fault, planting, planted_step", [
    ("the padding rows of the transposed operand not zeroed", ("    RT[K:] = 0.0\n", ""), "_gaussian_tile"),
    ("the terms after the first group skipped", ("for k in range(0, RT.shape[0], TERMS):", "for k in range(0, TERMS, TERMS):"),
     "_exponent_rows"),
    ("the sixth term of each group after the first dropped from the first row",
     ("e0[j] += a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3 + a04 * b4 + a05 * b5",
      "e0[j] += a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3 + a04 * b4"), "_exponent_rows"),
    ("the first group's sums added to what the memory held", ("e3[j] = a30 * b0", "e3[j] += a30 * b0"), "_exponent_rows"),
    ("the fourth row of a group read as the third", ("min(r + 3, n - 1)", "min(r + 2, n - 1)"), "_exponent_rows"),
    ("the last group's terms past K read from past left's row", ("min(k + 5, K - 1)       #", "k + 5       #"),
     "_exponent_rows"),
    ("the second group of four rows exponentiated into the first's", ("i = g + a", "i = a"), "_gaussian_tile"),
    ("a transposed operand one stored point short", ("        for j in range(w):\n            RT[k, j] = right[j, k]",
                                                    "        for j in range(w - 1):\n            RT[k, j] = right[j, k]"),
     "_gaussian_tile"),
    ("every factor taken as the first", ("_exp_row(exponents[a, :w], factors[f], values[f, i])",
                                         "_exp_row(exponents[a, :w], factors[0], values[f, i])"), "_gaussian_tile"),
    ("every factor's products into the first's", ("_dot_rows(values[f], CT, out[f], r, rows)",
                                                  "_dot_rows(values[f], CT, out[0], r, rows)"), "_gaussian_tile"),
    ("the mask dropped for a single row", ("mask.shape[0] > 0", "mask.shape[0] > 1"), "_gaussian_tile"),
    ("the mask of a group's first row for all its rows", ("mask[r + i, j]", "mask[r, j]"), "_gaussian_tile"),
    ("the remainder group one row short", ("rows = min(ROWS, n - r)", "rows = min(ROWS, n - r - 1) if n - r < ROWS else ROWS"),
     "_gaussian_tile"),
    ("the last column of an odd d dropped", ("for e in range(0, d, 2):", "for e in range(0, d - 1, 2):"), "_dot_rows"),
    ("row 3 of a group summed from row 2", ("t3 + v3 * c", "t3 + v2 * c"), "_dot_rows"),
])
def test_a_tile_of_gaussians_on_every_small_shape_and_planted_faults(fault, planting, planted_step):
    """The compiled tile agrees on every shape of ``_every_small_tile`` (pinned: the property above draws a single
    masked row, or two groups of terms, in a few examples in a hundred); each planted fault, compiled as the module
    compiles it (``_planted_tile``), does not."""
    assert _every_small_tile(compiled_module.gaussian_tile)
    with np.errstate(all="ignore"):
        assert not _every_small_tile(_planted_tile(plant_fault(compiled_module, *planting), planted_step)), fault


def _mixed_kernels_take_the_tile() -> bool:
    """Two Gaussians and a linear kernel: their stored rows (``apply_rows``, the block's own ``Expansion``: no stream
    operands) equal each kernel's own rows, and MONORMA with two bandwidths (the stream's operands) equals the
    reference; both with the two Gaussians in one compiled tile (``gaussian_tile`` called with two factors)."""
    d = 2
    kernels = [ovk_ref.as_kernel({"type": "gaussian_separable", "mu": 0.5, "B": [[1.0, 0.2], [0.2, 1.0]]}),
               ovk_ref.as_kernel({"type": "gaussian_separable", "mu": 2.0, "B": [[1.0, 0.0], [0.0, 1.0]]}),
               ovk_ref.as_kernel({"type": "linear_separable", "B": [[0.5, 0.0], [0.0, 0.5]]})]
    rng = np.random.default_rng(0)
    X, Z, C = rng.random((6, 3)), rng.random((40, 3)), rng.standard_normal((40, d))
    tile, factor_counts = compiled_module.gaussian_tile, []

    def counted(*arguments, factors=(1.0,), mask=None):
        factor_counts.append(len(factors))
        return tile(*arguments, factors=factors, mask=mask)

    with mock.patch.object(compiled_module, "gaussian_tile", counted):
        tiled = stored_rows_module.apply_rows(kernels, X, Z, C)
        rows_agree = 2 in factor_counts
        for kernel, rows in zip(kernels, tiled):
            own = kernel_rows_module.KernelRows(kernel, X, Z)
            terms = np.max(np.abs(own.dense())) * np.sum(np.abs(C))
            rows_agree = rows_agree and np.max(np.abs(rows - own.apply(C))) <= tolerances.IDENTITY_RTOL * terms
        factor_counts.clear()
        Xs, Ys = linear_related_tasks(300, p=3, d=d, seed=4)
        fast = ovk_fast.monorma(Xs, Ys, kernels[:2], lam=0.05, eta=0.5, r=1.0)
    reference = ovk_ref.monorma(Xs, Ys, kernels[:2], lam=0.05, eta=0.5, r=1.0)
    try:
        assert_same_record(fast, reference, term_scales(Xs, Ys, kernels[:2], reference, 0.5))
    except AssertionError:
        return False
    return bool(rows_agree and 2 in factor_counts)


@pytest.mark.parametrize("fault, planting, method", [
    ("several bandwidths sent to numpy's GEMM and exp", ("if compiled.AVAILABLE and operands is not None:",
                                                         "if compiled.AVAILABLE and operands is not None and self.folded:"),
     "_tile"),
    ("a block's own expansion never used", ("        return None if right is None else (self.expansion.left, right)",
                                            "        return None"), "_operands"),
    ("two Gaussians' slots swapped beside another scalar", ("products[gaussians] =",
                                                            "products[sorted(gaussians, reverse=len(self.scalars) > "
                                                            "len(gaussians))] ="), "_compiled_gaussians"),
])
def test_several_gaussians_take_the_compiled_tile_and_planted_faults_in_the_routing(fault, planting, method):
    """``_mixed_kernels_take_the_tile`` holds; each planted fault in how ``stored_rows`` routes a tile's Gaussians to
    it (found by an adversary: the records still agree within tolerance when the compiled tile is skipped, so only
    the count of factors shows it; the swapped slots only conform's cases showed) fails it."""
    assert _mixed_kernels_take_the_tile()
    planted = plant_fault(stored_rows_module, *planting)
    with mock.patch.object(stored_rows_module.SeparableTiles, method, planted["SeparableTiles"].__dict__[method]):
        assert not _mixed_kernels_take_the_tile(), fault


def test_a_masked_out_infinite_value_stays_nan_as_numpys_product_gives():
    """The tile applies its mask as numpy multiplies (``exp(800) * 0`` is NaN, not 0: the numpy path's values), so
    both paths give the same non-finite records; planted as a choice (``0.0`` where masked out), caught."""
    left, right, C = np.array([[800.0], [1.0]]), np.array([[1.0], [1.0]]), np.ones((2, 1))
    mask = np.array([[False, True], [True, True]])

    def masked_out_row(gaussian_tile):
        out = np.empty((2, 1))
        gaussian_tile(left, right, C, 1.0, np.empty(compiled_module.transposed_size(1, 2)), np.empty((1, 2)), out,
                      mask=mask)
        return out

    with np.errstate(all="ignore"):
        expected = (np.exp(left @ right.T) * mask) @ C
        assert np.isnan(expected[0, 0]) and np.isnan(masked_out_row(compiled_module.gaussian_tile)[0, 0])
        planted = _planted_tile(plant_fault(compiled_module, "values[f, i, j] * mask[r + i, j]",
                                            "values[f, i, j] if mask[r + i, j] else 0.0"))
        assert not np.isnan(masked_out_row(planted)[0, 0])


def test_truncated_onorma_takes_the_masked_product_and_a_dropped_mask_is_caught():
    """With a window, the tiles' fused products take the mask of the terms each round keeps (spec 5.2); the same
    products with the mask planted away (every stored term kept) fail the comparison with the reference."""
    X, Y, kernel = _gaussian_run(300)
    window = 40
    reference = ovk_ref.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=window)
    scales = term_scales(X, Y, [kernel], reference, 0.5)
    tile, masks = compiled_module.gaussian_tile, []

    def recorded(*arguments, factors=(1.0,), mask=None):
        masks.append(mask is not None)
        return tile(*arguments, factors, mask)

    with mock.patch.object(compiled_module, "gaussian_tile", recorded):
        assert_same_record(ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=window), reference, scales)
    assert masks and all(masks)
    unmasked = lambda *arguments, factors=(1.0,), mask=None: tile(*arguments, factors)    # noqa: E731
    with mock.patch.object(compiled_module, "gaussian_tile", unmasked):
        planted = ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=window)
    with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients"):
        assert_same_record(planted, reference, scales)


#: MONORMA's planted faults: every kernel's diagonal block the first kernel's B (``ovk_fast.monorma``'s call), and
#: delta kept when the last kernel's w is 0 (``compiled._squared_rounds``)
FIRST_OUTPUT_MATRIX = ("np.broadcast_to(own[2][:, None],", "np.broadcast_to(own[2][:1, None],")
LAST_WEIGHT_DECIDES = ("nonzero = nonzero or w[j] != 0.0", "nonzero = w[j] != 0.0")


def test_monorma_on_gaussian_exponents_with_distinct_outputs_and_a_zero_last_weight_and_planted_faults_are_caught():
    """MONORMA's compiled rounds on the Gaussian exponents (two bandwidths, factors ``kernel_rows.gaussian_factors``)
    with two output matrices, ``K_j(x, x) = B_j`` for each kernel; ``y_1`` orthogonal to the last kernel's
    ``B = 11^T / 2``, so that its ``gamma_1 = 0`` and ``delta = 0`` for ever (spec 6.3) while the first kernel's
    ``w_1`` is not 0: delta is updated, not kept (E22). The conformance cases' Gaussian MONORMA runs share one B,
    and their zero weight is on a kernel the compiled path does not take. Planted, each caught: every kernel's
    diagonal block the first kernel's B (``ovk_fast.monorma``'s call), and the update kept when the last ``w`` is 0."""
    X, Y = linear_related_tasks(20, p=2, d=2, seed=3)
    Y[0] = [1.0, -1.0]
    kernels = [{"type": "gaussian_separable", "mu": 0.5, "B": [[1.0, 0.0], [0.0, 1.0]]},
               {"type": "gaussian_separable", "mu": 2.0, "B": [[0.5, 0.5], [0.5, 0.5]]}]
    run = dict(lam=0.1, eta=0.3, r=1.0)
    reference = ovk_ref.monorma(X, Y, kernels, **run)
    assert reference.weights[0, 1] == 0.0 and reference.weights[0, 0] == 1.0     # updated: delta = (1, 0)
    scales = term_scales(X, Y, kernels, reference, run["eta"])
    factors, original = [], compiled_module.squared_rounds
    with mock.patch.object(compiled_module, "squared_rounds", lambda *a: factors.append(len(a[1])) or original(*a)):
        assert_same_record(ovk_fast.monorma(X, Y, kernels, **run), reference, scales)
    assert factors == [2]           # the rounds ran compiled, on the exponents of both kernels

    one_diagonal = plant_fault(monorma_module, *FIRST_OUTPUT_MATRIX)["monorma"]
    with mock.patch.object(compiled_module, "squared_rounds", plant_fault(compiled_module, *LAST_WEIGHT_DECIDES)["_squared_rounds"]):
        kept = ovk_fast.monorma(X, Y, kernels, **run)
    for faulty in (one_diagonal(X, Y, kernels, **run), kept):
        with pytest.raises(AssertionError, match="gamma|weights|predictions"):
            assert_same_record(faulty, reference, scales)


def _lone_row_unmasked():
    tile = _planted_tile(plant_fault(compiled_module, "mask.shape[0] > 0", "mask.shape[0] > 1"))
    return mock.patch.object(compiled_module, "gaussian_tile", tile), ovk_fast


def _last_weight_decides():
    rounds = plant_fault(compiled_module, *LAST_WEIGHT_DECIDES)["_squared_rounds"]
    return mock.patch.object(compiled_module, "squared_rounds", rounds), ovk_fast


def _one_downdate_per_round():
    recursion = plant_fault(compiled_module, *ONE_DOWNDATE_PER_ROUND)["norm_recursion"]
    return mock.patch.object(compiled_module, "norm_recursion_compiled", recursion), ovk_fast


def _first_output_matrix():
    return contextlib.nullcontext(), SimpleNamespace(monorma=plant_fault(monorma_module, *FIRST_OUTPUT_MATRIX)["monorma"])


@pytest.mark.parametrize("planting, failing", [
    (_lone_row_unmasked, ["window-16-t257"]),
    (_last_weight_decides, ["zero-last-weight"]),            # the only case where one w_j is 0 and another is not
    (_first_output_matrix, ["distinct-outputs-m2", "zero-last-weight"]),      # both have distinct B
    (_one_downdate_per_round, ["listed-collapse-t40"]),     # the only schedule that drops several terms in a round
], ids=["mask dropped for a single row", "only the last w decides the update", "the first kernel's B for every gamma",
        "one norm downdate per round"])
def test_the_corner_cases_regime_rejects_the_compiled_faults_every_earlier_stored_case_passed(planting, failing):
    """Three faults of the compiled paths that passed every stored case of vectors version 3, and one (the norm
    recursion taking one downdate per round) that passed every case of version 4 (and the fresh ones of
    ``conform --level standard --seed 0``): each fails its case of the ``corner-cases`` regime through the oracle's
    Python API; ovk_fast passes the regime with the compiled paths and without them (the numpy loops)."""
    cases = load_cases(ALGORITHMS, ("corner-cases",), basic=False)
    for available in (True, False):
        with mock.patch.object(compiled_module, "AVAILABLE", available):
            report = run(ovk_fast, cases=cases, reruns=0)
        assert report.passed and len(report.outcomes) == 4, report.text(verbose=True)
    patch, implementation = planting()
    with patch, np.errstate(all="ignore"):
        report = run(implementation, cases=cases, reruns=0)
    assert [outcome.case for outcome in report.outcomes if outcome.status == "fail"] == failing


def _largest_magnitude_agrees(largest_magnitude) -> bool:
    """``largest_magnitude`` is ``max |x|`` on signed values, infinities and empty arrays, and NaN wherever one entry is
    NaN, first, last or between larger values."""
    cases = [np.array([]), np.array([-3.0, 2.0, 1.0]), np.array([0.5, -np.inf, 2.0]), np.array([-0.0]),
             np.array([1.0, np.nan, 0.5]), np.array([np.nan, 7.0]), np.array([7.0, -8.0, np.nan]),
             np.random.default_rng(0).standard_normal(1000)]
    agree = []
    for values in cases:
        expected = np.nan if np.isnan(values).any() else (np.max(np.abs(values)) if values.size else 0.0)
        agree.append(np.array_equal(largest_magnitude(values), expected, equal_nan=True))
    return all(agree)


@pytest.mark.parametrize("fault, planting", [
    ("a NaN after a larger value passed over", ("        elif size != size:\n            return size\n", "")),
    ("the sign kept", ("size = abs(value)", "size = value")),
])
def test_the_largest_magnitude_in_one_pass_and_planted_faults(fault, planting):
    """``literal_range.magnitude``'s compiled pass (the blocks' records, checked after every block) is numpy's
    ``max |x|`` with NaN kept; each planted fault, run as plain Python, is caught."""
    assert _largest_magnitude_agrees(compiled_module.largest_magnitude_compiled)
    assert not _largest_magnitude_agrees(plant_fault(compiled_module, *planting)["largest_magnitude"]), fault


def _expansion_operands_agree(expansion_operands) -> bool:
    """The one-pass operands (``_expansion_operands``'s arguments) are numpy's: ``left @ right.T = -fold |x - z|^2``
    for every pair to IDENTITY_RTOL of ``fold (|a|^2 + |b|^2)``, their columns as ``distances.Expansion`` writes them, and
    the norms ``|x - centre|^2``; on points far from the origin, one point, and p = 1."""
    agree = []
    for n, p, offset in [(1, 3, 0.0), (7, 1, 0.0), (30, 5, 1e6), (50, 20, -3.0)]:
        X = offset + np.random.default_rng([n, p]).standard_normal((n, p))
        fold = 0.3
        left, right, centre, norms = np.empty((n, p + 2)), np.empty((n, p + 2)), np.empty(p), np.empty(n)
        expansion_operands(X, fold, left, right, centre, norms)
        A = X - X.mean(axis=0)
        squared = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
        scale = fold * (np.sum(A * A, axis=1)[:, None] + np.sum(A * A, axis=1)[None, :]) + tolerances.UNDERFLOW_ATOL
        agree.append(np.all(np.abs(left @ right.T + fold * squared) <= tolerances.IDENTITY_RTOL * scale)
                     and np.allclose(centre, X.mean(axis=0), rtol=1e-14, atol=1e-14 * abs(offset))
                     and np.allclose(norms, np.sum(A * A, axis=1), rtol=1e-12, atol=0)
                     and np.array_equal(right[:, p], np.ones(n)) and np.array_equal(left[:, p + 1], np.full(n, -fold))
                     and np.array_equal(right[:, p + 1], norms) and np.array_equal(left[:, p], norms * -fold))
    return all(agree)


@pytest.mark.parametrize("fault, planting", [
    ("the left operand without its factor 2", ("left[i, k] = a * twice", "left[i, k] = a * fold")),
    ("the mean one point short", ("        centre[k] /= n\n", "        centre[k] /= max(n - 1, 1)\n")),
    ("the norm of the first coordinate only", ("            total += a * a\n", "            total = a * a if k == 0 else total\n")),
])
def test_the_stream_operands_in_one_pass_and_planted_faults(fault, planting):
    """``distances.StreamOperands``' compiled pass (both operands of the stream at once) gives numpy's expansion;
    each planted fault, run as plain Python, is caught."""
    assert _expansion_operands_agree(compiled_module.expansion_operands)
    with np.errstate(all="ignore"):
        assert not _expansion_operands_agree(plant_fault(compiled_module, *planting)["_expansion_operands"]), fault


def test_the_stream_operands_are_those_of_numpys_expansion():
    """With numba, ``StreamOperands`` takes the one-pass operands; they equal numpy's ``Expansion`` and ``right`` to
    a few ulps, and decide the same accuracy and overflow (a stream beyond ~1e150 has no operands)."""
    distances = importlib.import_module("ovk_fast.distances")
    X = 5.0 + np.random.default_rng(1).standard_normal((40, 4))
    fast = distances.StreamOperands(X, 2.0, 2.0)
    with mock.patch.object(compiled_module, "AVAILABLE", False):
        plain = distances.StreamOperands(X, 2.0, 2.0)
    assert fast._expansion._own_right is not None and plain._expansion._own_right is None
    np.testing.assert_allclose(fast.right, plain.right, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(fast._expansion.left, plain._expansion.left, rtol=1e-13, atol=1e-13)
    assert fast.left(0, 40) is not None and plain.left(0, 40) is not None
    huge = distances.StreamOperands(1e160 * X, 2.0, 2.0)
    assert huge.right is None and huge.left(0, 40) is None


def _one_thread_runs_of_growing_width() -> list:
    """ONORMA on one thread (its stored rows by ``gaussian_rows``) at t = 600, p = 4 (K = 6 terms, one group) then
    p = 5 (K = 7: two groups, the second padded), in the same thread's fresh ``Workspace``: with default blocks and
    tiles the last block's tile is 512 stored points wide, so scratch sized for fewer terms is too small. Returns
    the records, or the exception a run raised."""
    threads_module = importlib.import_module("ovk_fast.threads")
    stored_rows_module.Workspace._local.__dict__.pop("workspace", None)
    records = []
    with mock.patch.object(threads_module, "THREADS", 1):
        for p in (4, 5):
            X, Y = linear_related_tasks(600, p=p, d=2, seed=p)
            try:
                records.append(ovk_fast.onorma(X, Y, ovk_ref.gaussian_separable(2.0, 2), lam=0.05, eta=0.5))
            except ValueError as error:
                return records + [error]
    return records


@pytest.mark.parametrize("fault, planting, method", [
    ("the tile's scratch looked up without its count of terms", ("key = (terms, d, TILE_COLUMNS)", "key = (d, TILE_COLUMNS)"),
     ("Workspace", "tile_buffers")),
    ("a block's scratch asked for one term fewer", ("tile_buffers(self.left.shape[1], C.shape[1])\n        tile, out",
                                                  "tile_buffers(self.left.shape[1] - 1, C.shape[1])\n        tile, out"),
     ("SeparableTiles", "_gaussian_rows")),
])
def test_one_thread_runs_of_growing_width_and_planted_faults_in_the_tiles_scratch(fault, planting, method):
    """ONORMA on one thread agrees with the reference at p = 4 then p = 5 on the same thread (the tile's scratch
    memory sized for the terms of each run); each planted fault in how ``stored_rows`` sizes that memory (found by
    an adversary: no other test reached more than one group of terms) fails a run."""
    for p, record in zip((4, 5), _one_thread_runs_of_growing_width()):
        X, Y = linear_related_tasks(600, p=p, d=2, seed=p)
        kernel = ovk_ref.gaussian_separable(2.0, 2)
        reference = ovk_ref.onorma(X, Y, kernel, lam=0.05, eta=0.5)
        assert_same_record(record, reference, term_scales(X, Y, [kernel], reference, 0.5))
    planted = plant_fault(stored_rows_module, *planting)
    owner, name = method
    with mock.patch.object(getattr(stored_rows_module, owner), name, getattr(planted[owner], name)):
        runs = _one_thread_runs_of_growing_width()
    assert isinstance(runs[-1], ValueError), fault


def _rows_are_the_tiles_summed(gaussian_rows) -> bool:
    """``gaussian_rows`` (``_gaussian_rows``' arguments) is, bit for bit, the tiles of ``gaussian_tile`` summed in their
    order as ``stored_rows`` sums them, for one tile, several, and a last one narrower (tiles every ``width`` points)."""
    agree = []
    for n_z, width in [(5, 8), (16, 8), (21, 8), (3, 1)]:
        rng = np.random.default_rng([n_z, width])
        left, right, C = 0.3 * rng.standard_normal((6, 4)), rng.standard_normal((n_z, 4)), rng.standard_normal((n_z, 3))
        tiles = []
        for lo in range(0, n_z, width):
            out = np.empty((6, 3))
            compiled_module.gaussian_tile(left, right[lo:lo + width], C[lo:lo + width], 0.7,
                                          np.empty(compiled_module.transposed_size(4, width)), np.empty((3, width)), out)
            tiles.append(out)
        expected = tiles[0].copy()
        for tile in tiles[1:]:
            expected += tile
        out = np.full((1, 6, 3), np.nan)
        bounds = np.array(list(range(0, n_z, width)) + [n_z])
        gaussian_rows(left, right, C, 0.7, bounds, np.empty(compiled_module.transposed_size(4, width)),
                      np.empty((3, width)), np.empty((1, 6, 3)), out)
        agree.append(np.array_equal(out[0], expected))
    return all(agree)


@pytest.mark.parametrize("fault, planting", [
    ("the first tile added twice", ("unmasked, operand, CT, out)\n            continue\n", "unmasked, operand, CT, out)\n")),
    ("the last tile dropped", ("for t in range(bounds.shape[0] - 1):", "for t in range(bounds.shape[0] - 2):")),
])
def test_a_blocks_tiles_in_one_call_and_planted_faults(fault, planting):
    """One thread's stored rows in one call (``compiled.gaussian_rows``, ``stored_rows.SeparableTiles.tiles``) are
    the per-tile products summed in the same order; each planted fault, run as plain Python over the compiled tile,
    is caught."""
    assert _rows_are_the_tiles_summed(compiled_module.gaussian_rows)
    planted = plant_fault(compiled_module, *planting)
    planted["_gaussian_tile"] = compiled_module._compiled()["gaussian_tile"]
    assert not _rows_are_the_tiles_summed(planted["_gaussian_rows"]), fault
