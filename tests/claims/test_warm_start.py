"""ONORMA from f_0 != 0 (spec C10, C12): the claims compute it as the implementation's run from 0 on shifted targets plus
the shrunk f_0 (``common.warm_trajectory``); here that equals ovk_ref's learner started literally from f_0 (its
expansion preset), on drawn instances of both claims' strategies, and a wrong reduction is caught."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from shared.closeness import IDENTITY_OF_SCALE, assert_close

import ovk_ref
from proofs_check import constants, strategies
from proofs_check.claims import common


def literal_warm_run(instance, bound):
    """ovk_ref.ONORMA with ``f_0`` preset as its stored expansion (round indices 0: no truncation acts on them)."""
    kernel = common.kernel(instance)
    centres = np.asarray(instance["f0"]["X"], dtype=float)
    direction = np.asarray(instance["f0"]["A"], dtype=float)
    start = direction * (instance["f0"]["fraction"] * bound / np.sqrt(float(ovk_ref.rkhs_norm2(kernel, centres, direction))))
    learner = ovk_ref.ONORMA(kernel, lam=instance["lam"], eta=instance["eta"], loss=instance["loss"])
    learner.state = dataclasses.replace(learner.state, centres=tuple(centres), alphas=tuple(start),
                                        indices=(0,) * len(centres))
    X, Y = common.arrays(instance)
    predictions, norms = [], []
    for x, y in zip(X, Y):
        learner.learn_one(x, y)
        predictions.append(learner.last_prediction)
        norms.append(np.sqrt(float(ovk_ref.rkhs_norm2(kernel, np.array(learner.centres), np.array(learner.alphas)))))
    return np.array(predictions), np.array(norms)


def bound_of(instance):
    if instance["loss"] == "squared":
        return float(common.constant(constants.C_y / constants.kappa, instance))
    return float(common.U(instance))


def _compare(instance):
    bound = bound_of(instance)
    warm = common.warm_trajectory(ovk_ref, instance, bound)
    kernel = common.kernel(instance)
    predictions, norms = literal_warm_run(instance, bound)
    reduced = np.array([float(warm.norm(kernel, t)) for t in range(1, len(norms) + 1)])
    scale = max(bound, float(np.max(np.abs(predictions))), 1.0)
    assert_close(warm.predictions(), predictions, IDENTITY_OF_SCALE, scale=1e3 * scale, what="predictions")
    assert_close(reduced, norms, IDENTITY_OF_SCALE, scale=1e3 * scale, what="norms")


@pytest.mark.parametrize("regime", ["hyp2", "hyp3"])
def test_the_reduction_is_onorma_started_from_f0(regime):
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
    @given(strategies.warm_onorma_instances(regime, min_n=2, max_n=6) | strategies.tight_warm_onorma_instances(regime, max_n=4))
    def same(instance):
        _compare(instance)
    same()


def test_a_reduction_without_the_shift_is_caught(monkeypatch):
    """The planted fault of the reduction: targets left unshifted (f_0's share of the prediction forgotten)."""
    instance = {"kernel": {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}, "p": 1, "d": 1, "X": [[0.0], [0.5]],
                "Y": [[0.3], [-0.2]], "lam": 2.0, "eta": 0.3, "loss": "squared", "kappa2": 1.0, "C": None, "C_y": 1.0,
                "truncation": None, "f0": {"X": [[1.0]], "A": [[1.0]], "fraction": 1.0}}
    _compare(instance)
    monkeypatch.setattr(ovk_ref, "evaluate", lambda kernel, centres, start, X: np.zeros((len(X), start.shape[1])))
    with pytest.raises(AssertionError):
        _compare(instance)
