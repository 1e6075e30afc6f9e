"""The online engines' look-ahead (``ovk_fast.look_ahead``; ONORMA's ``_Run._look_ahead``): while a block's rounds
run, another thread computes what the next block needs and those rounds do not change (its rows against the points
stored before the block, its rows against the block's own points once the rounds give their coefficients, and for
ONORMA its own Gaussian values).

A pool thread may run those jobs at any moment between their start and the next block's start. The two extreme
schedules are deterministic and legal: **eager** (each job runs the moment it is started, the earliest a pool thread
could) and **lazy** (every job runs when the next block asks for it: one thread, ``THREADS`` = 1). A job that
reads or writes what the block's rounds are still using gives other results under one of them; so the records
must be the same bits under both and on real threads, and each planted fault of the look-ahead is caught, by the
reference under one of the schedules.

A run that ends by an exception (its DivergenceError, an interruption) leaves none of its jobs running.
"""
import dataclasses
import importlib
import threading
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ovk_fast_properties import _engine, assert_same_record, plant_fault, positive_definite_kernels, term_scales

import ovk_fast
import ovk_ref
from ovk_ref.divergence import DivergenceError
from ovk_ref.synthetic import linear_related_tasks
from proofs_check import strategies

onorma_module = importlib.import_module("ovk_fast.onorma")
threads_module = importlib.import_module("ovk_fast.threads")
look_ahead_module = importlib.import_module("ovk_fast.look_ahead")
monorma_module = importlib.import_module("ovk_fast.monorma")
divergence_watch = importlib.import_module("ovk_fast.divergence_watch")


class _Eager:
    """``threads.map_in_background`` with every job run on the calling thread the moment it is started."""

    def __init__(self, function, items):
        self._function, self._results = function, []
        self.extend(items)

    def extend(self, items) -> None:
        self._results += [self._function(item) for item in items]

    def result(self) -> list:
        return self._results

    def cancel(self) -> None:
        """Nothing left to drop: every job ran when it was started."""


def _schedules(run, look_ahead=None):
    """``run()`` lazily (one thread), eagerly and on four threads: {schedule: record}. ``look_ahead``: the namespace
    of ``ovk_fast.look_ahead`` the run takes (a planted copy's), the module's own by default."""
    look_ahead = vars(look_ahead_module) if look_ahead is None else look_ahead
    records = {}
    with mock.patch.object(threads_module, "THREADS", 1):
        records["lazy"] = run()
        with mock.patch.dict(look_ahead, {"map_in_background": _Eager}):
            records["eager"] = run()
    with mock.patch.object(threads_module, "THREADS", 4):
        records["threads"] = run()
    return records


@given(data=st.data())
def test_results_do_not_depend_on_when_the_look_aheads_jobs_run(data):
    """The same bits whichever the schedule of the look-ahead's jobs (module docstring), for ONORMA and MONORMA, on
    Gaussian and other separable kernels, with blocks of a few rounds, scale folds every few rounds and tiles of a
    few points."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(st.one_of(positive_definite_kernels(d), strategies.kernels(d, p)), min_size=1,
                                 max_size=3), label="kernels")
    X, Y = data.draw(strategies.streams(p, d, max_n=14), label="stream")
    settings = data.draw(st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from([0.9, onorma_module.RESCALE_BELOW]),
                                   st.sampled_from([1, 3, 512])), label="engine")
    for run in (lambda: ovk_fast.onorma(X, Y, kernels[0], lam=0.1, eta=0.5),
                lambda: ovk_fast.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.0)):
        with _engine(settings):
            records = _schedules(run)
        for schedule in ("eager", "threads"):
            for field in dataclasses.fields(records["lazy"]):
                np.testing.assert_array_equal(getattr(records[schedule], field.name),
                                              getattr(records["lazy"], field.name), err_msg=f"{field.name}, {schedule}")


#: planted faults of the look-ahead: (module, what is planted in it, the schedules that must catch it); those of
#: ``ovk_fast.look_ahead`` are tried on both engines
LOOK_AHEAD_FAULTS = {
    "the next block's tiles not folded": (
        "look_ahead", ("tiles = self._tiles(rows, 0, stored, scale)", "tiles = self._tiles(rows, 0, stored, 1.0)"),
        {"lazy", "eager"}),
    "no rows against the previous block": (
        "look_ahead", ("            jobs.extend(self._tiles(rows, lo, hi, tiles.scale).tiles(C))", "            pass"),
        {"lazy", "eager"}),
    "ONORMA's own values with another factor": (
        "onorma", ("float(factors[0]))   # not in place", "1.5 * float(factors[0]))   # not in place"),
        {"lazy", "eager"}),
    "one buffer for ONORMA's own values of a block and the next": (
        "onorma", ("        self.own_buffers.reverse()\n", ""), {"eager"}),
    "ONORMA's fold before the next block's jobs are taken": (
        "onorma", ("        applied, own = self.ahead.take((start, stop))           # before the fold: its jobs read the "
                   "stored beta\n        self.ring.beta *= self.scale",
                   "        self.ring.beta *= self.scale\n        applied, own = self.ahead.take((start, stop))"),
        {"lazy"}),
    "MONORMA's fold before the next block's jobs are taken": (
        "monorma", ("            old, _ = ahead.take((start, stop))          # before the fold: its jobs read the "
                    "stored beta\n            beta[:start] *= scale",
                    "            beta[:start] *= scale\n            old, _ = ahead.take((start, stop))"),
        {"lazy"}),
}
ENGINES = {"onorma": onorma_module, "monorma": monorma_module}


@pytest.mark.parametrize("fault, algorithm", [(fault, algorithm) for fault, (module, _, _) in LOOK_AHEAD_FAULTS.items()
                                              for algorithm in (ENGINES if module == "look_ahead" else [module])])
def test_each_planted_fault_of_the_look_ahead_is_caught(fault, algorithm):
    """On a Gaussian run of 40 rounds in blocks of 8 (tiles of 3 points; MONORMA with two bandwidths) the clean
    engine matches the reference under both schedules, and each planted fault does not under the schedules that
    expose it (module docstring)."""
    module, planting, exposing = LOOK_AHEAD_FAULTS[fault]
    X, Y = linear_related_tasks(40, p=3, d=2, seed=5)
    kernels = [ovk_ref.gaussian_separable(1.0, 2), ovk_ref.gaussian_separable(0.3, 2)]
    arguments = {"lam": 0.1, "eta": 0.5, **({"r": 1.0} if algorithm == "monorma" else {})}
    kernel = kernels[0] if algorithm == "onorma" else kernels
    reference = getattr(ovk_ref, algorithm)(X, Y, kernel, **arguments)
    scales = term_scales(X, Y, kernels[:1] if algorithm == "onorma" else kernels, reference, arguments["eta"])
    with _engine((8, onorma_module.RESCALE_BELOW, 3)):
        clean = _schedules(lambda: getattr(ovk_fast, algorithm)(X, Y, kernel, **arguments))
        if module == "look_ahead":
            planted = plant_fault(look_ahead_module, *planting)
            with mock.patch.object(ENGINES[algorithm], "LookAhead", planted["LookAhead"]):
                faulty = _schedules(lambda: getattr(ovk_fast, algorithm)(X, Y, kernel, **arguments), planted)
        else:
            planted = plant_fault(ENGINES[algorithm], *planting)
            with mock.patch.dict(planted, {"BLOCK_ROUNDS": 8}):
                faulty = _schedules(lambda: planted[algorithm](X, Y, kernel, **arguments))
    for schedule in ("lazy", "eager"):
        assert_same_record(clean[schedule], reference, scales)
        if schedule in exposing:
            with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients|gamma|weights"):
                assert_same_record(faulty[schedule], reference, scales)


def _gated_jobs(gate_open: threading.Event, started_after: list, returned: threading.Event):
    """``look_ahead.call`` for jobs that, on a pool thread, wait up to 0.2 s for ``gate_open``, noting in
    ``started_after`` each job started once ``returned`` is set."""
    def call(job):
        if returned.is_set():
            started_after.append(threading.current_thread().name)
        if threading.current_thread() is not threading.main_thread():
            gate_open.wait(timeout=0.2)
        return job()
    return call


@pytest.mark.parametrize("algorithm, ending, planted", [
    ("onorma", "DivergenceError", False), ("monorma", "DivergenceError", False),
    ("onorma", "KeyboardInterrupt", False), ("monorma", "KeyboardInterrupt", False),
    ("onorma", "DivergenceError", True), ("monorma", "KeyboardInterrupt", True)])
def test_a_run_that_raises_leaves_none_of_its_jobs_running(algorithm, ending, planted):
    """A run that ends by an exception, while the next block's jobs wait on the pool (each held up to 0.2 s): its
    DivergenceError (``on_divergence="raise"``, a divergence bound the targets cross at once) or an interruption
    after its second block. No job starts after the call has returned; the planted fault (the engine's run without
    its look-ahead's drop at the end) is caught: the pool goes on with the dead run's jobs."""
    X, Y = linear_related_tasks(40, p=3, d=2, seed=5)
    kernels = [ovk_ref.gaussian_separable(1.0, 2), ovk_ref.gaussian_separable(0.3, 2)]
    module = ENGINES[algorithm]
    engine = getattr(module, algorithm)
    if planted:
        engine = plant_fault(module, *{"onorma": ('divide="ignore"), run.ahead:', 'divide="ignore"):'),
                                       "monorma": ('divide="ignore"), ahead:', 'divide="ignore"):')}[algorithm])[algorithm]
    arguments = {"lam": 0.1, "eta": 0.5, **({"r": 1.0} if algorithm == "monorma" else {})}
    if ending == "DivergenceError":
        arguments.update(on_divergence="raise", divergence_bound=1.0)
        Y = 10 * Y
    calls, gate_open, started_after, returned = [], threading.Event(), [], threading.Event()

    def interrupted(self, *arguments, original=divergence_watch.DivergenceWatch.rounds):
        calls.append(1)
        if ending == "KeyboardInterrupt" and len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, *arguments)

    with _engine((8, onorma_module.RESCALE_BELOW, 1)), mock.patch.object(threads_module, "THREADS", 2), \
            mock.patch.dict(engine.__globals__, {"BLOCK_ROUNDS": 8}), \
            mock.patch.object(divergence_watch.DivergenceWatch, "rounds", interrupted), \
            mock.patch.object(look_ahead_module, "call", _gated_jobs(gate_open, started_after, returned)):
        with pytest.raises(DivergenceError if ending == "DivergenceError" else KeyboardInterrupt):
            engine(X, Y, kernels[0] if algorithm == "onorma" else kernels, **arguments)
        returned.set()
        gate_open.set()
        threads_module._the_pool().submit(lambda: None).result()       # each pool thread free again, in turn
        threads_module._the_pool().submit(lambda: None).result()
        threading.Event().wait(0.3)
    assert bool(started_after) == planted, started_after
