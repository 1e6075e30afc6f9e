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

A job that touches what the rounds change and then restore, or memory they use only for a while (a workspace),
gives the same results under both extremes: the **interleaved** schedules (``_Interleaving``) run each job on
another thread at a chosen line of the run's own thread between its start and the next block's, drawn or at every
delay up to a block's length, across hand-overs to ovk_ref's learner. A run that ends by an exception (its
DivergenceError, an interruption) leaves none of its jobs running.
"""
import contextlib
import dataclasses
import importlib
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared.streams import linear_related_tasks
from test_ovk_fast_properties import (
    ROUND_LOOPS,
    _engine,
    assert_same_record,
    compiled_module,
    plant_fault,
    positive_definite_kernels,
    term_scales,
)

import ovk_fast
import ovk_ref
from ovk_fast.divergence_watch import DivergenceWatch
from ovk_ref.divergence import DivergenceWarning
from proofs_check import strategies

onorma_module = importlib.import_module("ovk_fast.onorma")
threads_module = importlib.import_module("ovk_fast.threads")
look_ahead_module = importlib.import_module("ovk_fast.look_ahead")
monorma_module = importlib.import_module("ovk_fast.monorma")
literal_range = importlib.import_module("ovk_fast.literal_range")


@pytest.fixture(autouse=True)
def onorma_looks_ahead_on_one_thread():
    """ONORMA starts its jobs early on one thread too (``onorma.LOOK_AHEAD_THREADS``): the lazy and eager schedules
    run them there."""
    with mock.patch.object(onorma_module, "LOOK_AHEAD_THREADS", 1):
        yield


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


class _Interleaving:
    """``threads.map_in_background`` whose jobs each run on another thread (with its own workspace, as a pool
    thread's) once the run's own thread has run ``delay()`` more lines of ovk_fast's code (or of a planted copy's)
    since the job was started, the run's thread waiting meanwhile; the jobs left when the next block asks for them
    run then, on the run's thread, from the last one back (as ``result()`` takes them)."""

    def __init__(self, delay):
        self.delay, self.line, self.due, self.worker = delay, 0, [], None

    def _trace(self, frame, event, arg):
        return self._line if frame.f_globals.get("__name__", "").startswith(("ovk_fast", "planted_")) else None

    def _line(self, frame, event, arg):
        if event == "line":
            self.line += 1
            for job in [job for job in self.due if job[0] <= self.line]:
                self.due.remove(job)
                job[1].run_elsewhere(job[2])
        return self._line

    def run(self, run, look_ahead=None):
        """``run()`` with its look-ahead's jobs interleaved; ``look_ahead`` as ``_schedules``'."""
        look_ahead = vars(look_ahead_module) if look_ahead is None else look_ahead
        with ThreadPoolExecutor(1, thread_name_prefix="interleaved") as self.worker, \
                mock.patch.dict(look_ahead, {"map_in_background": lambda function, items: _Delayed(self, function, items)}):
            previous = sys.gettrace()       # a coverage tool's, say: its lines are not counted meanwhile
            sys.settrace(self._trace)
            try:
                return run()
            finally:
                sys.settrace(previous)


class _Delayed:
    """The jobs of one ``map_in_background`` under an ``_Interleaving``."""

    def __init__(self, interleaving, function, items):
        self._interleaving, self._function, self._items, self._results = interleaving, function, [], []
        self.extend(items)

    def extend(self, items) -> None:
        for item in items:
            self._interleaving.due.append((self._interleaving.line + self._interleaving.delay(), self, len(self._items)))
            self._items.append(item)
            self._results.append(None)

    def run_elsewhere(self, i) -> None:
        run = threads_module._under_errstate(self._function)     # the run's error handling, as the pool's threads
        self._results[i] = self._interleaving.worker.submit(run, self._items[i]).result()

    def cancel(self) -> None:
        self._interleaving.due = [job for job in self._interleaving.due if job[1] is not self]

    def result(self) -> list:
        left = {job[2] for job in self._interleaving.due if job[1] is self}
        self.cancel()
        for i in sorted(left, reverse=True):
            self._results[i] = self._function(self._items[i])
        return self._results


@given(data=st.data())
def test_results_do_not_depend_on_when_the_look_aheads_jobs_run(data):
    """The same bits whichever the schedule of the look-ahead's jobs (module docstring), for ONORMA and MONORMA, on
    Gaussian and other separable kernels, with blocks of a few rounds, scale folds every few rounds and tiles of a
    few points, with the compiled kernels and without them."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(st.one_of(positive_definite_kernels(d), strategies.kernels(d, p)), min_size=1,
                                 max_size=3), label="kernels")
    X, Y = data.draw(strategies.streams(p, d, max_n=14), label="stream")
    settings = data.draw(st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from([0.9, onorma_module.RESCALE_BELOW]),
                                   st.sampled_from([1, 3, 512])), label="engine")
    compiled = data.draw(st.sampled_from(ROUND_LOOPS), label="compiled kernels")
    for run in (lambda: ovk_fast.onorma(X, Y, kernels[0], lam=0.1, eta=0.5),
                lambda: ovk_fast.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.0)):
        with _engine(settings), mock.patch.object(compiled_module, "AVAILABLE", compiled):
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
        "onorma", ("reshape(n, n), float(factors[0]))", "reshape(n, n), 1.5 * float(factors[0]))"),
        {"lazy", "eager"}),
    "one buffer for ONORMA's own values of a block and the next": (
        "onorma", ("        self.own_buffers.reverse()\n", ""), {"eager"}),
    "ONORMA's fold before the next block's jobs are taken": (
        "onorma", ("        applied, jobs = self.ahead.take((start, stop))          # before the fold: its jobs read the "
                   "stored beta\n        self.ring.beta[:self.ring.filled()] *= self.scale",
                   "        self.ring.beta[:self.ring.filled()] *= self.scale\n"
                   "        applied, jobs = self.ahead.take((start, stop))"),
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
            with mock.patch.dict(planted, {"BLOCK_ROUNDS": 8, "LOOK_AHEAD_THREADS": 1}):
                faulty = _schedules(lambda: planted[algorithm](X, Y, kernel, **arguments))
    for schedule in ("lazy", "eager"):
        assert_same_record(clean[schedule], reference, scales)
        if schedule in exposing:
            with pytest.raises(AssertionError, match="predictions|new_coefficients|rkhs_norm2|coefficients|gamma|weights"):
                assert_same_record(faulty[schedule], reference, scales)


class _Stop(Exception):
    pass


@pytest.mark.parametrize("algorithm", ["onorma", "monorma"])
@pytest.mark.parametrize("planted", [False, True], ids=["engine", "planted: nothing dropped on the way out"])
def test_a_run_that_raises_leaves_no_job_running(algorithm, planted):
    """A run stopped by an exception between two blocks (raised by the divergence watch after the third block of 8,
    as a Ctrl-C or a DivergenceError would be) starts no more of the next block's jobs and waits for the one
    running. Each map's first job holds the pool's thread until the map is taken or cancelled, so the others are
    still waiting when the exception leaves the run; planted: a ``LookAhead`` that drops nothing on the way out
    leaves them waiting, caught."""
    X, Y = linear_related_tasks(40, p=3, d=2, seed=5)
    kernels = [ovk_ref.gaussian_separable(1.0, 2), ovk_ref.gaussian_separable(0.3, 2)]
    arguments = {"lam": 0.1, "eta": 0.5, **({"r": 1.0} if algorithm == "monorma" else {})}
    maps, blocks, shared_map = [], [], threads_module._SharedMap

    def recorded(function, items):
        released, held = threading.Event(), []

        def held_first(job):
            if not held and threading.current_thread() is not threading.main_thread():
                held.append(released.wait(timeout=60))
            return function(job)
        maps.append(threads_module.map_in_background(held_first, items))
        maps[-1].released = released
        return maps[-1]

    def releasing(method):
        def run(shared):
            shared.released.set()
            return method(shared)
        return run

    def watch(self, start, *rest):
        blocks.append(start)
        if len(blocks) == 3:
            raise _Stop

    exit_drops = mock.patch.object(look_ahead_module.LookAhead, "__exit__", lambda self, *exception: None) if planted \
        else contextlib.nullcontext()
    with _engine((8, onorma_module.RESCALE_BELOW, 1)), mock.patch.object(threads_module, "THREADS", 2), \
            mock.patch.object(look_ahead_module, "map_in_background", recorded), exit_drops, \
            mock.patch.object(shared_map, "cancel", releasing(shared_map.cancel)), \
            mock.patch.object(shared_map, "result", releasing(shared_map.result)), \
            mock.patch.object(DivergenceWatch, "rounds", watch), pytest.raises(_Stop):
        getattr(ovk_fast, algorithm)(X, Y, kernels[0] if algorithm == "onorma" else kernels, **arguments)
    waiting = [m for m in maps if m._front < m._back or (m._future is not None and not m._future.done())]
    assert bool(waiting) == planted, f"{len(waiting)} of {len(maps)} maps still have jobs to run"
    for m in waiting:
        m.released.set()
        m.cancel()


@given(data=st.data())
def test_results_do_not_depend_on_where_in_a_block_the_jobs_run(data):
    """Each job run at a drawn line of the run's thread (``_Interleaving``): the same bits as the lazy schedule, for
    ONORMA and MONORMA, with and without the compiled kernels, on streams far from the origin or drifting (blocks
    without the stream's expansion operands), targets up to float64's limits (runs that diverge) and hand-overs to
    ovk_ref's learner at drawn rounds (the look-ahead dropped, the next block's rows computed again)."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(st.one_of(positive_definite_kernels(d), strategies.kernels(d, p)), min_size=1,
                                 max_size=3), label="kernels")
    loss = data.draw(st.sampled_from(["squared", {"type": "huber", "delta": 0.5}]), label="loss")
    X, Y = data.draw(strategies.streams(p, d, max_n=20), label="stream")
    X = X * data.draw(st.sampled_from([1.0, 1e6]), label="input scale") + data.draw(st.sampled_from([0.0, 1e8]),
                                                                                   label="offset")
    X = X + np.arange(len(X))[:, None] * data.draw(st.sampled_from([0.0, 100.0]), label="drift")
    Y = Y * data.draw(st.sampled_from([1.0, 1e300]), label="target scale")
    lam, eta = data.draw(strategies.step_parameters(), label="lam, eta")
    settings = data.draw(st.tuples(st.sampled_from([1, 3, 8]), st.sampled_from([0.9, onorma_module.RESCALE_BELOW]),
                                   st.sampled_from([1, 3, 512])), label="engine")
    compiled = data.draw(st.sampled_from([False, True] if compiled_module.AVAILABLE else [False]), label="compiled")
    forced = data.draw(st.sets(st.integers(0, len(X) - 1), max_size=3), label="handed over")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    longest = data.draw(st.sampled_from([10, 100, 1000]), label="longest delay")
    algorithm = data.draw(st.sampled_from(["onorma", "monorma"]), label="algorithm")
    arguments = {"lam": lam, "eta": eta, "loss": loss, **({"r": 1.0} if algorithm == "monorma" else {})}

    def unsafe(self, rounds, *arguments, original=literal_range.LiteralBound.unsafe):
        if np.ndim(rounds):
            return original(self, rounds, *arguments) | np.isin(rounds, list(forced))
        return bool(forced) or original(self, rounds, *arguments)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DivergenceWarning)
            return getattr(ovk_fast, algorithm)(X, Y, kernels[0] if algorithm == "onorma" else kernels, **arguments)

    with _engine(settings), mock.patch.object(compiled_module, "AVAILABLE", compiled), \
            mock.patch.object(literal_range.LiteralBound, "unsafe", unsafe), mock.patch.object(threads_module, "THREADS", 1):
        lazy = run()
        interleaved = _Interleaving(lambda: int(rng.integers(0, longest))).run(run)
    for field in dataclasses.fields(lazy):
        np.testing.assert_array_equal(getattr(interleaved, field.name), getattr(lazy, field.name), err_msg=field.name)


#: planted faults that the interleaved schedules catch: (what is planted in ``ovk_fast.onorma``, whether the eager and
#: lazy schedules both miss it)
INTERLEAVED_FAULTS = {
    # the own values computed ahead with their exponents in the run's workspace, where the block's own exponents go
    # when it has no values computed ahead (the first block, the one after a hand-over): a race
    "ONORMA's own exponents in the run's workspace": (
        ('Workspace.of_this_thread().array("own exponents", (n, n))', 'self.workspace.array("own", (n, n))'), True),
    # the next block's jobs kept over a hand-over to ovk_ref's learner, which rewrites the stored coefficients
    "ONORMA's look-ahead kept over a hand-over": (
        ("            self.ahead.drop()                 # its jobs read the ring\n", ""), False),
}


@pytest.mark.parametrize("fault", [None, *INTERLEAVED_FAULTS])
def test_every_delay_within_a_block_gives_the_same_bits_and_planted_faults_are_caught(fault):
    """24 rounds in blocks of 8 (tiles of 3 points), round 13 handed over to ovk_ref's learner; every job run d lines
    of the run's thread after its start, for every d up to a block's length in lines: the same bits as the lazy
    schedule for both engines, and each planted fault (``INTERLEAVED_FAULTS``) differs at some delay; the race
    matches the reference under the eager and lazy schedules."""
    X, Y = linear_related_tasks(24, p=3, d=2, seed=5)
    kernels = [ovk_ref.gaussian_separable(1.0, 2), ovk_ref.gaussian_separable(0.3, 2)]
    engines = {"onorma": lambda: ovk_fast.onorma(X, Y, kernels[0], lam=0.1, eta=0.5),
               "monorma": lambda: ovk_fast.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.0)}
    planted = {}
    if fault is not None:
        planted = plant_fault(onorma_module, *INTERLEAVED_FAULTS[fault][0])
        engines = {"onorma": lambda: planted["onorma"](X, Y, kernels[0], lam=0.1, eta=0.5)}

    def unsafe(self, rounds, *arguments):
        return np.isin(rounds, [13]) if np.ndim(rounds) else True

    with _engine((8, onorma_module.RESCALE_BELOW, 3)), mock.patch.object(threads_module, "THREADS", 1), \
            mock.patch.dict(planted, {"BLOCK_ROUNDS": 8, "LOOK_AHEAD_THREADS": 1}), mock.patch.object(literal_range.LiteralBound, "unsafe", unsafe):
        for algorithm, run in engines.items():
            lazy = run()
            counted = _Interleaving(lambda: 10 ** 9)
            counted.run(run)
            differing = [delay for delay in range(counted.line // 3 + 1)
                         if not np.array_equal(_Interleaving(lambda delay=delay: delay).run(run).predictions,
                                               lazy.predictions)]
            if fault is None:
                assert differing == [], algorithm
                continue
            assert differing, f"no delay caught the planted fault: {fault}"
            if INTERLEAVED_FAULTS[fault][1]:
                reference = ovk_ref.onorma(X, Y, kernels[0], lam=0.1, eta=0.5)
                scales = term_scales(X, Y, kernels[:1], reference, 0.5)
                for schedule, record in _schedules(run).items():
                    if schedule != "threads":       # a real race there: caught or not, by chance
                        assert_same_record(record, reference, scales)
