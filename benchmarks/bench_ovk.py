"""Benchmark (not a test): ovk_fast against its floor, a competent plain numpy version, operalib and ovk_ref.

    .venv/bin/python benchmarks/bench_ovk.py --engine     # ~1.5 min: floor, ovk_fast 1/2 threads, competent numpy
    .venv/bin/python benchmarks/bench_ovk.py              # + batch ridge and ovk_ref (~2-3 min)
    .venv/bin/python benchmarks/bench_ovk.py --engine --operalib-python /path/to/venv/bin/python
    .venv/bin/python benchmarks/bench_ovk.py --scaling    # ~5 min: t = 10^3..10^5, writes docs/ovk_fast_scaling.png
    .venv/bin/python benchmarks/bench_ovk.py --case onorma-1 --repeat 20   # one workload, for whole-process timers
    .venv/bin/python benchmarks/bench_ovk.py --per-value  # ~5 s: one value of a tile, step by step (ONORMA's bound)
    .venv/bin/python benchmarks/bench_ovk.py --breakdown  # ~10 s: where ONORMA t = 5000 spends its time, part by part

Data: ``ovk_ref.synthetic``, the paper's synthetic set (spec 3.4: x uniform on [0,1]^20, y^i = <w^i, phi(x)>;
d = 10, seed 0, the Table 3 set at t = 5000); the paper's Gaussian separable kernel ``exp(-||x - z||^2 / mu) J``
with mu = 1 (MONORMA: mu = 0.1, 1, 10, r = 1), lam = 0.01, eta = 1, squared loss.

Every comparison is measured side by side in one run: the runs are interleaved, round after round, and the
medians reported (wall seconds, and CPU seconds of all threads: the machine is shared, and the load average
printed beside each table says how much), with the ratios the targets are stated in:
* the **floor**: the Gaussian values any exact run must compute, as numpy and BLAS compute them and nothing else
  (ONORMA: k(x_t, x_i) for every round t against the points of the earlier blocks of 256 rounds, 11.9M values at
  t = 5000; one GEMM per tile of 256 x 512 on operands built once per run, 1/mu folded in, and exp in place;
  MONORMA: the same for its 3 kernels, the distances shared, each scaled by its 1/mu and exponentiated);
* **ovk_fast's own values** (``compiled values``; ONORMA, with numba): the same values by ovk_fast's compiled tile without the product
  with the coefficients (``compiled.gaussian_tile`` with d = 0: exponents and exp, eight rows at a time in cache).
  It computes them faster than numpy and BLAS, so it is a stricter reference than the floor: ONORMA's ratio to it
  says what a run costs beyond its values, however they are computed;
* **ovk_fast** on 1 thread and on 2 (its pool, ``ovk_fast.threads``);
* a **competent plain numpy** version, what a careful user writes in 20 lines: one kernel row per round by a
  single vector expression (``|x|^2`` computed once, the row as one GEMV and one exp), the shrink as a running
  scale (``competent_onorma``, ``competent_monorma``); checked to give ovk_fast's predictions;
* **operalib**'s ``ONORMA.fit`` (Brault et al., the operator-valued kernel library that implements this paper's
  ONORMA) where an interpreter with operalib is given (``--operalib-python``; ``benchmarks/operalib_onorma.py``
  says how to install it); checked to give ovk_fast's coefficients.
ONORMA's one-thread ratio to its floor is also measured in ``--processes`` fresh processes, one after the other,
and the target judged on their median: the floor itself moves by up to 15% from one process to the next here.
Targets: ONORMA t = 5000 <= 1.3x the floor on one thread, 2 threads >= 1.5x faster than 1 at t = 20000; MONORMA
m = 3 <= 1.6x its floor; ovk_fast >= 4x faster than the competent numpy version, >= 20x faster than operalib.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from contextlib import ExitStack, contextmanager
from pathlib import Path
from unittest import mock

import numpy as np

import ovk_fast
import ovk_ref
from ovk_fast.threads import map_in_order, single_blas_thread

threads_module = importlib.import_module("ovk_fast.threads")
onorma_module = importlib.import_module("ovk_fast.onorma")
stored_rows_module = importlib.import_module("ovk_fast.stored_rows")
compiled_module = importlib.import_module("ovk_fast.compiled")

P, D, LAM, ETA, MU = 20, 10, 0.01, 1.0, 1.0
MONORMA_MUS = (0.1, 1.0, 10.0)
R = 1.0
FIGURE = Path(__file__).resolve().parent.parent / "docs" / "ovk_fast_scaling.png"


# --- the competent plain numpy versions ---------------------------------------------------------------------------

def competent_onorma(X, Y, mu, B, lam, eta):
    """ONORMA (spec 5.1) as a careful numpy user writes it: the kernel row of round t against the earlier inputs by one
    vector expression (``|x|^2`` once, ``|x_t - x_i|^2 = |x_t|^2 + |x_i|^2 - 2 x_i.x_t`` as one GEMV, one exp), the
    coefficients ``alpha_i = scale * beta_i`` with the shrink as a running scale (folded back when it gets small)."""
    n, d = Y.shape
    norms = np.einsum("ij,ij->i", X, X)
    beta, predictions, scale = np.zeros((n, d)), np.zeros((n, d)), 1.0
    for t in range(n):
        row = np.exp((2 * (X[:t] @ X[t]) - norms[:t] - norms[t]) / mu)     # k(x_t, x_i), i < t
        predictions[t] = scale * (B @ (row @ beta[:t]))                     # f_{t-1}(x_t)
        eta_t = eta / math.sqrt(t + 1)
        scale *= 1 - eta_t * lam                                            # alpha_i *= 1 - eta_t lam, i < t
        beta[t] = -eta_t * (predictions[t] - Y[t]) / scale                  # alpha_t = -eta_t (f(x_t) - y_t)
        if scale < 1e-100:
            beta[:t + 1] *= scale
            scale = 1.0
    return predictions


def competent_monorma(X, Y, mus, B, lam, eta, r):
    """MONORMA (spec 6.1-6.3) likewise: the m kernel rows of a round from one shared distance row, the running scale,
    the gamma recursion and the delta update."""
    n, d = Y.shape
    m = len(mus)
    norms = np.einsum("ij,ij->i", X, X)
    beta, predictions, scale = np.zeros((n, d)), np.zeros((n, d)), 1.0
    weights, gamma = np.full(m, 1.0 / m), np.zeros(m)
    for t in range(n):
        distances = norms[:t] + norms[t] - 2 * (X[:t] @ X[t])
        v = scale * np.array([B @ (np.exp(-distances / mu) @ beta[:t]) for mu in mus])   # g^j_{t-1}(x_t)
        predictions[t] = weights @ v
        eta_t = eta / math.sqrt(t + 1)
        c = 1 - eta_t * lam
        new = -eta_t * (predictions[t] - Y[t])
        scale *= c
        beta[t] = new / scale
        gamma = c * c * gamma + new @ B @ new + 2 * c * (v @ new)            # k(x, x) = 1 for the Gaussian
        w = weights**2 * np.maximum(gamma, 0)
        if np.any(w):
            weights = w ** (1 / (r + 1)) / np.sum(w ** (r / (r + 1))) ** (1 / r)
    return predictions


# --- the floor ---------------------------------------------------------------------------------------------------

def _floor_operands(X, factor):
    """Left and right operands of ``2 a.b - |a|^2 - |b|^2`` (times ``factor``) on points centred once per run."""
    A = X - np.mean(X, axis=0)
    norms = np.einsum("ij,ij->i", A, A)[:, None]
    ones = np.ones((len(X), 1))
    return np.hstack([2 * factor * A, -factor * norms, -factor * ones]), np.hstack([A, ones, norms])


#: the floor's blocks of rounds and tiles of stored points: fixed here (the values counted do not move with
#: ovk_fast's own BLOCK_ROUNDS); 256 x 512 tiles of values stay in a core's L2 cache
FLOOR_BLOCK, FLOOR_TILE = 256, 512


def _floor_tiles(n):
    return [(start, lo, min(start, lo + FLOOR_TILE)) for start in range(FLOOR_BLOCK, n, FLOOR_BLOCK)
            for lo in range(0, start, FLOOR_TILE)]


def floor_values(X, mus):
    """The floor of a run with the Gaussian bandwidths ``mus`` (module docstring), as a function of the thread count:
    returns ``run(threads)``; the tiles go to ``map_in_order`` like ovk_fast's."""
    n, block = len(X), FLOOR_BLOCK
    count = sum(min(block, n - start) * (hi - lo) for start, lo, hi in _floor_tiles(n))

    def run(threads):
        left, right = _floor_operands(X, 1.0 / mus[0] if len(mus) == 1 else 1.0)

        def tile(start_lo_hi):
            start, lo, hi = start_lo_hi
            workspace = stored_rows_module.Workspace.of_this_thread()
            exponents = np.matmul(left[start:start + block], right[lo:hi].T,
                                  out=workspace.array("floor", (min(block, n - start), hi - lo)))
            if len(mus) == 1:
                np.exp(exponents, out=exponents)
                return
            values = workspace.array("floor values", exponents.shape)
            for mu in mus:
                np.exp(np.multiply(exponents, 1.0 / mu, out=values), out=values)

        with ovk_fast_threads(threads), single_blas_thread():
            map_in_order(tile, _floor_tiles(n))

    run.values = count * len(mus)
    return run


def compiled_gaussian_values(X, mu):
    """The floor's values of a single Gaussian (``floor_values``, one thread) by ovk_fast's compiled tile with no
    coefficients (d = 0): its exponents and exp, no product."""
    n, block = len(X), FLOOR_BLOCK
    left, right = _floor_operands(X, 1.0 / mu)
    operand = np.empty(compiled_module.transposed_size(left.shape[1], FLOOR_TILE))
    no_coefficients, CT = np.empty((n, 0)), np.empty((0, FLOOR_TILE))

    def run():
        for start, lo, hi in _floor_tiles(n):
            rows = left[start:start + block]
            compiled_module.gaussian_tile(rows, right[lo:hi], no_coefficients[lo:hi], 1.0, operand, CT,
                                          np.empty((len(rows), 0)))
    return run


# --- timing --------------------------------------------------------------------------------------------------------

@contextmanager
def ovk_fast_threads(count):
    """ovk_fast's pool limited to ``count`` threads (``OVK_FAST_THREADS``) for the duration."""
    saved, threads_module.THREADS = threads_module.THREADS, count
    try:
        yield
    finally:
        threads_module.THREADS = saved


def on_threads(function, count):
    def run():
        with ovk_fast_threads(count):
            return function()
    return run


def median_times(functions: dict, repeat: int) -> dict:
    """Median (wall, CPU) seconds of each function over ``repeat`` rounds, the functions interleaved in each round
    so that they share the machine's load alike (one untimed warm-up round first)."""
    for function in functions.values():
        function()
    times = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            times[name].append((time.perf_counter() - start, time.process_time() - start_cpu))
    return {name: tuple(np.median(np.array(values), axis=0)) for name, values in times.items()}


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def data(n, d=D):
    return ovk_ref.synthetic(n, p=P, d=d, seed=0)


def kernels():
    return ovk_ref.gaussian_separable(MU, D), [ovk_ref.gaussian_separable(mu, D) for mu in MONORMA_MUS]


def section(title):
    print(f"\n== {title}", flush=True)


def workloads(n):
    """The timed functions of one algorithm pair at t = ``n``: {name: function}, and a check that the plain versions
    compute what ovk_fast computes."""
    kernel, kernel_list = kernels()
    B = ovk_ref.paper_J(D)
    X, Y = data(n)
    def onorma():
        return ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA)

    def monorma():
        return ovk_fast.monorma(X, Y, kernel_list, lam=LAM, eta=ETA, r=R)
    floor, mfloor = floor_values(X, [MU]), floor_values(X, list(MONORMA_MUS))
    compiled_values = {"compiled values": compiled_gaussian_values(X, MU)} if compiled_module.AVAILABLE else {}
    return {
        "ONORMA": {"floor 1": lambda: floor(1), "floor 2": lambda: floor(2), "ovk_fast 1": on_threads(onorma, 1),
                   "ovk_fast 2": on_threads(onorma, 2), "numpy": lambda: competent_onorma(X, Y, MU, B, LAM, ETA),
                   **compiled_values},
        "MONORMA m=3": {"floor 1": lambda: mfloor(1), "floor 2": lambda: mfloor(2), "ovk_fast 1": on_threads(monorma, 1),
                        "ovk_fast 2": on_threads(monorma, 2),
                        "numpy": lambda: competent_monorma(X, Y, MONORMA_MUS, B, LAM, ETA, R)},
    }, {"ONORMA": floor.values, "MONORMA m=3": mfloor.values}


def check_same_predictions(n=600):
    """The competent versions compute ovk_fast's predictions (else the comparison would be of different work)."""
    kernel, kernel_list = kernels()
    B = ovk_ref.paper_J(D)
    X, Y = data(n)
    pairs = [(competent_onorma(X, Y, MU, B, LAM, ETA), ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA).predictions),
             (competent_monorma(X, Y, MONORMA_MUS, B, LAM, ETA, R),
              ovk_fast.monorma(X, Y, kernel_list, lam=LAM, eta=ETA, r=R).predictions)]
    for plain, fast in pairs:
        error = np.max(np.abs(plain - fast)) / np.max(np.abs(fast))
        assert error < 1e-9, f"the competent numpy version differs from ovk_fast by {error:.2g} (relative)"


def engine(repeat):
    """ONORMA and MONORMA at t = 5000: the floor, ovk_fast on 1 and 2 threads and the competent numpy version."""
    check_same_predictions()
    runs, values = workloads(5000)
    section(f"t = 5000, p = 20, d = 10: medians of {repeat} interleaved runs, wall ms (CPU ms of all threads); {load()}")
    names = ["floor 1", "floor 2", "ovk_fast 1", "ovk_fast 2", "numpy"]
    print(f"{'run':12s} " + " ".join(f"{name:>17s}" for name in names))
    results = {}
    for algorithm, functions in runs.items():
        times = median_times(functions, repeat)
        results[algorithm] = times
        print(f"{algorithm:12s} " + " ".join(f"{1e3 * times[name][0]:8.1f} ({1e3 * times[name][1]:6.1f})"
                                             for name in names))
    print(f"floor: {values['ONORMA'] / 1e6:.1f}M Gaussian values (ONORMA), {values['MONORMA m=3'] / 1e6:.1f}M "
          f"(MONORMA, 3 kernels on shared distances); {load()}")
    section("ratios (wall; CPU in parentheses where the load makes wall time doubtful)")
    targets = {"ONORMA": 1.3, "MONORMA m=3": 1.6}
    for algorithm, times in results.items():
        wall = {name: times[name][0] for name in names}
        cpu = {name: times[name][1] for name in names}
        fastest = min(wall["ovk_fast 1"], wall["ovk_fast 2"])
        print(f"{algorithm}: ovk_fast 1 thread / floor 1 thread = {wall['ovk_fast 1'] / wall['floor 1']:.2f} "
              f"({cpu['ovk_fast 1'] / cpu['floor 1']:.2f}); target <= {targets[algorithm]}: "
              f"{'met' if wall['ovk_fast 1'] / wall['floor 1'] <= targets[algorithm] else 'NOT met'}")
        print(f"{'':{len(algorithm)}s}  ovk_fast 2 threads / floor 2 threads = {wall['ovk_fast 2'] / wall['floor 2']:.2f}; "
              f"1 thread / 2 threads: ovk_fast {wall['ovk_fast 1'] / wall['ovk_fast 2']:.2f}, floor "
              f"{wall['floor 1'] / wall['floor 2']:.2f}")
        if "compiled values" in times:
            values_wall = times["compiled values"][0]
            print(f"{'':{len(algorithm)}s}  ovk_fast 1 thread / ovk_fast's own values (compiled, no product, "
                  f"{1e3 * values_wall:.1f} ms) = {wall['ovk_fast 1'] / values_wall:.2f}; the floor / them = "
                  f"{wall['floor 1'] / values_wall:.2f}")
        print(f"{'':{len(algorithm)}s}  competent numpy / ovk_fast = {wall['numpy'] / fastest:.1f} (1 thread: "
              f"{wall['numpy'] / wall['ovk_fast 1']:.1f}); target >= 4: {'met' if wall['numpy'] / fastest >= 4 else 'NOT met'}")
    return results


def one_thread_ratio(repeat):
    """In this process: ONORMA t = 5000 on one thread and its floor, ``repeat`` interleaved runs; prints their median
    wall seconds as JSON (for ``process_spread``)."""
    runs, _ = workloads(5000)
    times = median_times({name: runs["ONORMA"][name] for name in ("floor 1", "ovk_fast 1")}, repeat)
    print(json.dumps({"floor": times["floor 1"][0], "ovk_fast": times["ovk_fast 1"][0]}))


def process_spread(processes, repeat):
    """ONORMA's one-thread ratio to its floor measured in ``processes`` fresh processes one after the other
    (``one_thread_ratio``): on this machine the floor itself moves by up to 15% from one process to the next (where
    its arrays land in memory), more than within one, so one process's ratio is one draw of it."""
    ratios = []
    for _ in range(processes):
        done = subprocess.run([sys.executable, __file__, "--one-thread-ratio", "--repeat", str(repeat)],
                              capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        ratios.append(result["ovk_fast"] / result["floor"])
    section(f"ONORMA t = 5000, one thread / its floor, in {processes} fresh processes (medians of {repeat} interleaved "
            f"runs each); {load()}")
    print(f"median {np.median(ratios):.2f}, min {min(ratios):.2f}, max {max(ratios):.2f} (target <= 1.3 on the median: "
          f"{'met' if np.median(ratios) <= 1.3 else 'NOT met'}): " + " ".join(f"{r:.2f}" for r in sorted(ratios)))


def thread_scaling(repeat):
    """ONORMA at t = 20000 on 1 and 2 threads (the target: 2 threads >= 1.5x faster than 1), beside its floor."""
    runs, _ = workloads(20000)
    functions = {name: runs["ONORMA"][name] for name in ("floor 1", "floor 2", "ovk_fast 1", "ovk_fast 2")}
    times = median_times(functions, repeat)
    section(f"ONORMA t = 20000 on 1 and 2 threads, medians of {repeat} interleaved runs; {load()}")
    for name, (wall, cpu) in times.items():
        print(f"{name:12s} {wall:7.3f} s wall {cpu:7.3f} s CPU")
    speedup = times["ovk_fast 1"][0] / times["ovk_fast 2"][0]
    print(f"2 threads are {speedup:.2f}x faster than 1 (target >= 1.5: {'met' if speedup >= 1.5 else 'NOT met'}); the "
          f"floor's own: {times['floor 1'][0] / times['floor 2'][0]:.2f}x; ovk_fast 1 thread / floor 1 thread = "
          f"{times['ovk_fast 1'][0] / times['floor 1'][0]:.2f}; {load()}")


def operalib(python, sizes, repeat):
    """operalib's ONORMA.fit (in the interpreter ``python``) against ovk_fast at the same t, coefficients checked."""
    kernel, _ = kernels()
    section(f"operalib's ONORMA.fit ({python}) against ovk_fast (2 threads); {load()}")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            X, Y = data(n)
            np.savez(Path(folder) / "data.npz", X=X, Y=Y, B=ovk_ref.paper_J(D), mu=MU, lam=LAM, eta=ETA)
            script = Path(__file__).resolve().parent / "operalib_onorma.py"
            seconds, fast = [], []
            for _ in range(repeat):       # interleaved: one operalib fit, one ovk_fast run
                done = subprocess.run([python, str(script), str(Path(folder) / "data.npz"), str(Path(folder) / "c.npy")],
                                      capture_output=True, text=True, check=True)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                seconds.append(result["seconds"])
                start = time.perf_counter()
                record = ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA)
                fast.append(time.perf_counter() - start)
            error = np.max(np.abs(np.load(Path(folder) / "c.npy") - record.coefficients)) / np.max(np.abs(record.coefficients))
            ratio = np.median(seconds) / np.median(fast)
            print(f"t = {n:5d}: operalib {result['operalib']} (numpy {result['numpy']}) fit {np.median(seconds):8.3f} s, "
                  f"ovk_fast {np.median(fast):7.4f} s -> {ratio:6.0f}x (target >= 20: {'met' if ratio >= 20 else 'NOT met'}); "
                  f"coefficients agree to {error:.1e} (relative); medians of {repeat}", flush=True)


#: ONORMA's compiled steps, each replaced by a step that does no work (``breakdown``): what a run calls, and what its
#: stand-in returns (zeros where the run reads the result: no step sees a NaN or a huge number, so no block is handed
#: to ovk_ref's learner; a block's own values stay those of the last real run, in the same buffer)
NO_WORK = {
    "stored rows": {"gaussian_tile": lambda *a, **k: _zeros(a[6]), "gaussian_rows": lambda *a: _zeros(a[-1])},
    "own values": {"exp_upper": lambda E, out, factor=1.0: out, "_upper_exponents": lambda right, left, out: out},
    "rounds": {"onorma_squared_rounds": lambda *a: _zeros(a[-1])},
}


def _zeros(array):
    array.fill(0.0)
    return array


def _without(parts):
    """A context manager replacing the compiled steps of ``parts`` (of ``NO_WORK``) by their stand-ins."""
    stack = ExitStack()
    for part in parts:
        for name, stand_in in NO_WORK[part].items():
            module = onorma_module if name.startswith("_upper") else compiled_module
            stack.enter_context(mock.patch.object(module, name, stand_in))
    return stack


def breakdown(repeat):
    """Where ONORMA t = 5000 spends its time on one thread (CPU ms, minima of ``repeat`` interleaved runs, beside the
    floor): the run, then the run with its compiled steps replaced one after the other by steps that do no work
    (``NO_WORK``); the differences are what each step costs in the run: the stored rows (the tiles: exponent GEMM,
    exp and the product with the coefficients), the block's own values (their exponents' GEMM; on one thread their
    exp runs in the rounds), the rounds, and what is left (the Python of the tiles and blocks, the norms, the
    divergence and range checks, the records, setup)."""
    kernel, _ = kernels()
    X, Y = data(5000)
    floor = floor_values(X, [MU])
    steps = list(NO_WORK)

    def run_without(count):
        def run():
            with _without(steps[:count]), np.errstate(all="ignore"):
                ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA)
        return run

    functions = {"floor": lambda: floor(1), **{f"without {count}": run_without(count) for count in range(len(steps) + 1)}}
    best = dict.fromkeys(functions, math.inf)
    with single_blas_thread(), ovk_fast_threads(1):
        for function in functions.values():
            function()
        for _ in range(repeat):
            for name, function in functions.items():
                start = time.process_time()
                function()
                best[name] = min(best[name], 1e3 * (time.process_time() - start))
    section(f"where ONORMA t = 5000 spends its time (one thread, CPU ms, minima of {repeat} interleaved runs; {load()})")
    total, floor_ms = best["without 0"], best["floor"]
    print(f"ovk_fast {total:.1f} ms, the floor {floor_ms:.1f} ms: {total / floor_ms:.2f}x")
    for count, part in enumerate(steps):
        cost = best[f"without {count}"] - best[f"without {count + 1}"]
        print(f"  {part:12s} {cost:6.1f} ms  ({cost / floor_ms:.2f}x the floor)")
    rest = best[f"without {len(steps)}"]
    print(f"  {'the rest':12s} {rest:6.1f} ms  ({rest / floor_ms:.2f}x the floor: Python of the tiles and blocks, norms, "
          f"divergence and range checks, records, setup)")


def per_value(repeat):
    """What one value of a 256 x 512 tile costs, step by step (one thread, CPU ns, the minimum over ``repeat`` rounds
    of 20 calls each, the steps interleaved): the floor is the exponent GEMM and exp; ONORMA must also apply the
    values to the coefficients (d multiply-adds a value), which bounds ONORMA / floor from below before anything
    else a run does (the block's own rounds, the norms, the records)."""
    X, _ = data(5000)
    left, right = _floor_operands(X, 1.0 / MU)
    L, R = np.ascontiguousarray(left[4096:4096 + FLOOR_BLOCK]), np.ascontiguousarray(right[:FLOOR_TILE])
    C = np.random.default_rng(0).standard_normal((FLOOR_TILE, D))
    CT = np.ascontiguousarray(C.T)
    E, V, out = np.empty((len(L), len(R))), np.empty((len(L), len(R))), np.empty((len(L), D))
    steps = {"exponent GEMM": lambda: np.matmul(L, R.T, out=E), "exp": lambda: np.exp(E, out=V),
             "product GEMM": lambda: np.matmul(V, C, out=out)}
    if compiled_module.AVAILABLE:
        operand, none = np.empty(compiled_module.transposed_size(L.shape[1], len(R))), np.empty((len(R), 0))
        steps["the tile, compiled"] = lambda: compiled_module.gaussian_tile(L, R, C, 1.0, operand, CT, out)
        steps["its values, compiled"] = lambda: compiled_module.gaussian_tile(L, R, none, 1.0, operand, CT[:0],
                                                                              out[:, :0])
    best = dict.fromkeys(steps, math.inf)
    with single_blas_thread():
        for step in steps.values():
            step()
        for _ in range(repeat):
            for name, step in steps.items():
                start = time.process_time()
                for _ in range(20):
                    step()
                best[name] = min(best[name], (time.process_time() - start) / 20 / E.size * 1e9)
    section(f"one value of a {len(L)} x {len(R)} tile, step by step (CPU ns, minima of {repeat} x 20; {load()})")
    for name, ns in best.items():
        print(f"{name:28s} {ns:6.3f} ns")
    floor = best["exponent GEMM"] + best["exp"]
    tile = best.get("the tile, compiled", best["exponent GEMM"] + best["exp"] + best["product GEMM"])
    print(f"floor (GEMM + exp) {floor:.3f} ns; the tile as ONORMA needs it ({'compiled' if compiled_module.AVAILABLE else 'GEMM, exp, product GEMM'}) "
          f"{tile:.3f} ns: {tile / floor:.2f}x the floor from the tiles alone (the product's {D} multiply-adds a value)")
    if compiled_module.AVAILABLE:
        print(f"the tile compiled / its values compiled (no product) = {tile / best['its values, compiled']:.2f}")


def targets(repeat, quick):
    kernel, _ = kernels()
    X, Y = data(5000)
    section(f"batch ridge t = 5000, p = 20, d = 10 (paper: 162 s); {load()}")
    start, cpu_start = time.perf_counter(), time.process_time()
    ovk_fast.batch_ridge(X, Y, kernel, lam=LAM)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"ovk_fast batch ridge: {seconds:.2f} s wall ({cpu:.2f} s CPU), peak {peak_memory(lambda: ovk_fast.batch_ridge(X, Y, kernel, lam=LAM)):.0f} MiB")

    section("speed-up over ovk_ref (literal, one d x d block per kernel evaluation)")
    t_ref = 500 if quick else 2000
    Xr, Yr = data(t_ref)
    start = time.perf_counter()
    ovk_ref.onorma(Xr, Yr, kernel, lam=LAM, eta=ETA)
    reference = time.perf_counter() - start
    X2, Y2 = data(2000)
    fast = median_times({"fast": lambda: ovk_fast.onorma(X2, Y2, kernel, lam=LAM, eta=ETA)}, repeat)["fast"][0]
    if quick:
        reference *= (2000 / t_ref) ** 2
        print(f"ovk_ref ONORMA t = {t_ref} extrapolated to t = 2000 by (2000/{t_ref})^2 (its cost is t(t-1)/2 block "
              f"evaluations): {reference:.1f} s")
    else:
        print(f"ovk_ref ONORMA t = 2000: {reference:.2f} s (measured once)")
    print(f"ovk_fast ONORMA t = 2000: {fast:.4f} s -> {reference / fast:.0f}x faster than ovk_ref")


def peak_memory(function):
    """Peak MiB allocated while ``function`` runs (tracemalloc, which numpy reports its buffers to)."""
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


SCALING_SIZES = (1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
WINDOW = 1000


def scaling(sizes, plot):
    """Seconds and peak MiB of ONORMA (untruncated: t^2 kernel values; a window of 1000: t s) and MONORMA m = 3
    (untruncated, spec E23) for t = 10^3 .. 10^5, ovk_fast on its threads: wall seconds, and CPU seconds of all
    threads (the work: on a shared machine the wall time also counts the waits for a core); a log-log plot of the
    CPU seconds and the peak memory."""
    kernel, kernel_list = kernels()
    runs = {"ONORMA": lambda X, Y: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA),
            f"ONORMA window {WINDOW}": lambda X, Y: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA, truncation=WINDOW),
            "MONORMA m=3": lambda X, Y: ovk_fast.monorma(X, Y, kernel_list, lam=LAM, eta=ETA, r=R)}
    section(f"scaling in t, ovk_fast on {threads_module.THREADS} threads (median of 3 runs up to t = 10^4, then one): "
            f"wall s, CPU s of all threads, peak MiB; {load()}")
    print(f"{'t':>7s} " + " ".join(f"{name:>28s}" for name in runs))
    table = {name: [] for name in runs}
    for n in sizes:
        X, Y = data(n)
        cells = []
        for name, run in runs.items():
            def once(run=run, X=X, Y=Y):
                return run(X, Y)
            wall, cpu = median_times({name: once}, 3 if n <= 10_000 else 1)[name]
            mib = peak_memory(once)
            table[name].append((n, cpu, mib))
            cells.append(f"{wall:9.3f} {cpu:9.3f} {mib:8.0f}")
        print(f"{n:7d} " + " ".join(cells) + f"   ({load()})", flush=True)
    for name, rows in table.items():
        (n0, s0, _), (n1, s1, _) = rows[-2], rows[-1]
        print(f"{name}: CPU time x{s1 / s0:.1f} from t = {n0} to {n1} (t^2: x{(n1 / n0) ** 2:.0f}, t: x{n1 / n0:.0f})")
    if plot:
        _plot(table)


def _plot(table):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (seconds_axis, memory_axis) = plt.subplots(1, 2, figsize=(10, 4))
    for name, rows in table.items():
        n, seconds, mib = (np.array(column) for column in zip(*rows))
        seconds_axis.loglog(n, seconds, "o-", label=name)
        memory_axis.loglog(n, mib, "o-", label=name)
    n = np.array([row[0] for row in table["ONORMA"]], dtype=float)
    middle = len(n) // 2          # the guide lines go through the middle points
    seconds_axis.loglog(n, table["ONORMA"][middle][1] * (n / n[middle]) ** 2, "k:", label="slope 2 (t^2)")
    seconds_axis.loglog(n, table[f"ONORMA window {WINDOW}"][middle][1] * n / n[middle], "k--", label="slope 1 (t)")
    seconds_axis.set(xlabel="t (rounds)", ylabel="CPU seconds (all threads)", title="ovk_fast time")
    memory_axis.set(xlabel="t (rounds)", ylabel="peak MiB (tracemalloc)", title="ovk_fast peak memory")
    for axis in (seconds_axis, memory_axis):
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(f"synthetic p = 20, d = 10, Gaussian mu = 1 (MONORMA mu = 0.1, 1, 10); {threads_module.THREADS} threads")
    figure.tight_layout()
    figure.savefig(FIGURE, dpi=110)
    print(f"wrote {FIGURE}")


CASES = {   # one workload each, for whole-process timers (the first run, data and imports included)
    "onorma-1": lambda w: w["ONORMA"]["ovk_fast 1"], "onorma-2": lambda w: w["ONORMA"]["ovk_fast 2"],
    "onorma-floor": lambda w: w["ONORMA"]["floor 1"], "onorma-numpy": lambda w: w["ONORMA"]["numpy"],
    "monorma-1": lambda w: w["MONORMA m=3"]["ovk_fast 1"], "monorma-floor": lambda w: w["MONORMA m=3"]["floor 1"],
    "monorma-numpy": lambda w: w["MONORMA m=3"]["numpy"], "none": None,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="ovk_ref at t = 500 only, extrapolated to t = 2000")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved runs per comparison (medians)")
    parser.add_argument("--engine", action="store_true", help="only the engine comparisons (floor, threads, numpy)")
    parser.add_argument("--operalib-python", help="an interpreter with operalib installed (benchmarks/operalib_onorma.py)")
    parser.add_argument("--operalib-sizes", default="1000,2000,5000", help="t values for operalib (its fit is O(t^2) Python)")
    parser.add_argument("--scaling", action="store_true", help="only the scaling table (t = 10^3..10^5) and its plot")
    parser.add_argument("--no-plot", action="store_true", help="with --scaling: do not write docs/ovk_fast_scaling.png")
    parser.add_argument("--per-value", action="store_true", help="only what one value of a tile costs, step by step")
    parser.add_argument("--breakdown", action="store_true", help="only where ONORMA t = 5000 spends its time, part by part")
    parser.add_argument("--case", choices=sorted(CASES), help="run one workload --repeat times at t = 5000 and exit")
    parser.add_argument("--processes", type=int, default=9,
                        help="fresh processes for ONORMA's one-thread ratio (process_spread; 0: none)")
    parser.add_argument("--one-thread-ratio", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_thread_ratio:
        one_thread_ratio(args.repeat)
        return
    if args.case:
        if CASES[args.case] is not None:
            function = CASES[args.case](workloads(5000)[0])
            for _ in range(args.repeat):
                function()
        return
    print(f"machine: {os.cpu_count()} cores, {load()} (other jobs share the cores); numpy {np.__version__}; "
          f"ovk_fast threads {threads_module.THREADS}; compiled kernels (numba): {compiled_module.AVAILABLE}")
    if args.scaling:
        scaling(SCALING_SIZES, plot=not args.no_plot)
        return
    if args.per_value:
        per_value(args.repeat * 4)
        return
    if args.breakdown:
        breakdown(args.repeat * 3)
        return
        return
    engine(max(args.repeat, 5))
    if args.processes:
        process_spread(args.processes, max(args.repeat, 5))
    thread_scaling(3)
    breakdown(max(args.repeat, 5))
    per_value(max(args.repeat, 5) * 4)
    if args.operalib_python:
        operalib(args.operalib_python, [int(n) for n in args.operalib_sizes.split(",")], 3)
    else:
        section("operalib: not measured here (give --operalib-python; benchmarks/operalib_onorma.py says how to "
                "install it: pip install operalib fails with a modern setuptools)")
    if not args.engine:
        targets(3, args.quick)


if __name__ == "__main__":
    main()
