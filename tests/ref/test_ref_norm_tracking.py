"""Norms tracked by recursion against the explicit Gram norm ``vec(A)^T G vec(A)`` (spec 2.3, 6.2, 6.5).

MONORMA's gamma recursion (C15) and ONORMA's ``rkhs_norm2`` (the same recursion, plus the downdate of
spec 6.5 when truncation drops a term), after every round. Round-off scale: the largest size of the
Gram terms seen so far (a dropped term may have been much larger than what is left).
"""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from ref_checks import assert_rounds_close, gram_norm2, gram_norm2_scale
from shared.strategies import problems

import ovk_ref
from proofs_check import strategies


@st.composite
def monorma_problems(draw):
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    kernels = draw(st.lists(strategies.kernels(d, p), min_size=1, max_size=3))
    loss = draw(strategies.losses(d))
    X, Y = draw(strategies.streams(p, d, loss=loss))
    lam, eta = draw(strategies.step_parameters())
    r = draw(st.floats(0.1, 5.0))
    return dict(kernels=kernels, X=X, Y=Y, lam=lam, eta=eta, r=r, loss=loss)


@given(monorma_problems())
def test_c15_gamma_recursion_equals_the_gram_norm_of_every_component(problem):
    """``gamma^j_t = ||g^j_t||^2 = vec(A_t)^T G^j_t vec(A_t)`` for every kernel j and round t (C15, spec 6.4)."""
    learner = ovk_ref.MONORMA(problem["kernels"], lam=problem["lam"], eta=problem["eta"], r=problem["r"],
                              loss=problem["loss"])
    gammas, norms, scales = [], [], []
    for t, (x, y) in enumerate(zip(problem["X"], problem["Y"]), start=1):
        learner.learn_one(x, y)
        coefficients = learner.coefficients()
        gammas.append(learner.gamma.copy())
        norms.append([gram_norm2(kernel, problem["X"][:t], coefficients) for kernel in problem["kernels"]])
        scales.append(max(gram_norm2_scale(kernel, problem["X"][:t], coefficients) for kernel in problem["kernels"]))
    assert_rounds_close(gammas, norms, "gamma", np.maximum.accumulate(scales))
    record = ovk_ref.monorma(problem["X"], problem["Y"], problem["kernels"], lam=problem["lam"], eta=problem["eta"],
                             r=problem["r"], loss=problem["loss"])
    assert np.array_equal(record.gamma, np.array(gammas))


@st.composite
def onorma_problems(draw):
    problem = draw(problems())
    problem["truncation"] = draw(st.one_of(
        st.none(), st.integers(1, 6), st.builds(ovk_ref.theorem2_schedule, st.integers(1, 4), st.floats(0.01, 0.49))))
    return problem


@given(onorma_problems())
def test_onorma_rkhs_norm2_equals_the_gram_norm_with_and_without_truncation(problem):
    """``record.rkhs_norm2[t-1] = ||f_t||^2`` of the kept expansion, and ``ovk_ref.rkhs_norm2`` agrees (spec 5.1, 6.5)."""
    options = dict(lam=problem["lam"], eta=problem["eta"], loss=problem["loss"], truncation=problem["truncation"])
    learner = ovk_ref.ONORMA(problem["kernel"], **options)
    norms, function_norms, scales = [], [], []
    for t, (x, y) in enumerate(zip(problem["X"], problem["Y"]), start=1):
        learner.learn_one(x, y)
        coefficients = learner.coefficients()
        norms.append(gram_norm2(problem["kernel"], problem["X"][:t], coefficients))
        function_norms.append(ovk_ref.rkhs_norm2(problem["kernel"], problem["X"][:t], coefficients))
        scales.append(gram_norm2_scale(problem["kernel"], problem["X"][:t], coefficients))
    record = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"], **options)
    scales = np.maximum.accumulate(scales)
    assert_rounds_close(record.rkhs_norm2, norms, "rkhs_norm2 (recursion)", scales)
    assert_rounds_close(function_norms, norms, "ovk_ref.rkhs_norm2", scales)
