"""ONORMA's look-ahead (``ovk_fast.onorma._Run._look_ahead``): while a block's rounds run, another thread computes
what the next block needs and those rounds do not change (its rows against the points stored before the block,
its rows against the block's own points once the rounds give their coefficients, and its own Gaussian values).

A pool thread may run those jobs at any moment between their start and the next block's start. The two extreme
schedules are deterministic and legal: **eager** (each job runs the moment it is started, the earliest a pool thread
could) and **lazy** (every job runs when the next block asks for it: one thread, ``THREADS`` = 1). A job that
reads or writes what the block's rounds are still using gives other results under one of them; so the records
must be the same bits under both and on real threads, and each planted fault of the look-ahead is caught, by the
reference under one of the schedules.
"""
import dataclasses
import importlib
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ovk_fast_properties import _engine, assert_same_record, plant_fault, positive_definite_kernels, term_scales

import ovk_fast
import ovk_ref
from ovk_ref.synthetic import linear_related_tasks
from proofs_check import strategies

onorma_module = importlib.import_module("ovk_fast.onorma")
threads_module = importlib.import_module("ovk_fast.threads")


class _Eager:
    """``threads.map_in_background`` with every job run on the calling thread the moment it is started."""

    def __init__(self, function, items):
        self._function, self._results = function, []
        self.extend(items)

    def extend(self, items) -> None:
        self._results += [self._function(item) for item in items]

    def result(self) -> list:
        return self._results


def _schedules(run, engine=None):
    """``run()`` lazily (one thread), eagerly and on four threads: {schedule: record}. ``engine``: the namespace of
    ``ovk_fast.onorma`` the run takes (a planted copy's), ``ovk_fast.onorma``'s own by default."""
    engine = vars(onorma_module) if engine is None else engine
    records = {}
    with mock.patch.object(threads_module, "THREADS", 1):
        records["lazy"] = run()
        with mock.patch.dict(engine, {"map_in_background": _Eager}):
            records["eager"] = run()
    with mock.patch.object(threads_module, "THREADS", 4):
        records["threads"] = run()
    return records


@given(data=st.data())
def test_results_do_not_depend_on_when_the_look_aheads_jobs_run(data):
    """The same bits whichever the schedule of the look-ahead's jobs (module docstring), on Gaussian and other
    separable kernels, with blocks of a few rounds, scale folds every few rounds and tiles of a few points."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernel = data.draw(st.one_of(positive_definite_kernels(d), strategies.kernels(d, p)), label="kernel")
    X, Y = data.draw(strategies.streams(p, d, max_n=14), label="stream")
    settings = data.draw(st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from([0.9, onorma_module.RESCALE_BELOW]),
                                   st.sampled_from([1, 3, 512])), label="engine")
    with _engine(settings):
        records = _schedules(lambda: ovk_fast.onorma(X, Y, kernel, lam=0.1, eta=0.5))
    for schedule in ("eager", "threads"):
        for field in dataclasses.fields(records["lazy"]):
            np.testing.assert_array_equal(getattr(records[schedule], field.name), getattr(records["lazy"], field.name),
                                          err_msg=f"{field.name}, {schedule} schedule")


#: planted faults of the look-ahead: (what is planted in ``ovk_fast.onorma``, the schedules that must catch it)
LOOK_AHEAD_FAULTS = {
    "the next block's tiles not folded": (
        ("None if left is None else (left, self.ring.right[:start]), scale)",
         "None if left is None else (left, self.ring.right[:start]), 1.0)"), {"lazy", "eager"}),
    "no rows against the previous block": (
        ("        if self.ahead is None:\n            return\n        (following_start",
         "        if True:\n            return\n        (following_start"), {"lazy", "eager"}),
    "the own values with another factor": (
        ("float(factors[0]))   # not in place", "1.5 * float(factors[0]))   # not in place"), {"lazy", "eager"}),
    "one buffer for the own values of a block and the next": (
        ("        self.own_buffers.reverse()\n", ""), {"eager"}),
    "the fold before the next block's tiles are taken": (
        ("        ahead, own = self._take_ahead(start, stop)\n        self.ring.beta *= self.scale",
         "        self.ring.beta *= self.scale\n        ahead, own = self._take_ahead(start, stop)"), {"lazy"}),
}


@pytest.mark.parametrize("fault", list(LOOK_AHEAD_FAULTS))
def test_each_planted_fault_of_the_look_ahead_is_caught(fault):
    """On a Gaussian run of 40 rounds in blocks of 8 (tiles of 3 points) the clean engine matches the reference under
    both schedules, and each planted fault does not under the schedules that expose it (module docstring)."""
    planting, exposing = LOOK_AHEAD_FAULTS[fault]
    X, Y = linear_related_tasks(40, p=3, d=2, seed=5)
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    run = dict(lam=0.1, eta=0.5)
    reference = ovk_ref.onorma(X, Y, kernel, **run)
    scales = term_scales(X, Y, [kernel], reference, run["eta"])
    planted = plant_fault(onorma_module, *planting)
    with _engine((8, onorma_module.RESCALE_BELOW, 3)), mock.patch.dict(planted, {"BLOCK_ROUNDS": 8}):
        clean = _schedules(lambda: ovk_fast.onorma(X, Y, kernel, **run))
        faulty = _schedules(lambda: planted["onorma"](X, Y, kernel, **run), planted)
    for schedule in ("lazy", "eager"):
        assert_same_record(clean[schedule], reference, scales)
        if schedule in exposing:
            with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients"):
                assert_same_record(faulty[schedule], reference, scales)
