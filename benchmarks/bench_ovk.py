"""Benchmark (not a test): ovk_fast against ovk_ref and a plain textbook numpy version (issue 4, item 5).

    .venv/bin/python benchmarks/bench_ovk.py            # about 2-3 minutes; ovk_ref at t = 2000 is ~1 minute
    .venv/bin/python benchmarks/bench_ovk.py --quick    # ovk_ref at t = 500, extrapolated to 2000 by t^2
    .venv/bin/python benchmarks/bench_ovk.py --engine   # ~30 s: ovk_fast vs textbook, phases, floor (issue 14)

Data: ``ovk_ref.synthetic``, the paper's synthetic set (spec 3.4: x uniform on [0,1]^20, y^i = <w^i, phi(x)>;
d = 10, seed 0, the Table 3 set at t = 5000); the paper's Gaussian
separable kernel ``exp(-||x - z||^2 / mu) J`` with mu = 1, lam = 0.01, eta = 1, squared loss. Times are the
best of ``--repeat`` runs (wall clock, and the CPU time of that run: the machine is shared, and the
load average printed first says how much); peak memory is measured in a separate run with tracemalloc.
Targets (issue 4): ONORMA t = 5000 <= 0.2 s; MONORMA m = 3 <= 0.6 s; batch ridge t = 5000, d = 10 <= 15 s;
ovk_fast >= 100x faster than ovk_ref at t = 2000. The paper reports 12 s, 50 s and 162 s on its hardware.
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import time
import tracemalloc
from contextlib import contextmanager

import numpy as np

import ovk_fast
import ovk_ref
from ovk_fast.threads import map_in_order, single_blas_thread

kernel_rows_module = importlib.import_module("ovk_fast.kernel_rows")
threads_module = importlib.import_module("ovk_fast.threads")

P, D, LAM, ETA, MU = 20, 10, 0.01, 1.0, 1.0
MONORMA_MUS = (0.1, 1.0, 10.0)


def textbook_onorma(X, Y, mu, B, lam, eta):
    """ONORMA as a first numpy vectorisation: one kernel row per round, explicit shrink of every coefficient."""
    n, d = Y.shape
    alphas, predictions = np.zeros((n, d)), np.zeros((n, d))
    for t in range(n):
        row = np.exp(-np.sum((X[:t] - X[t]) ** 2, axis=1) / mu)
        predictions[t] = B @ (row @ alphas[:t])
        eta_t = eta / math.sqrt(t + 1)
        alphas[:t] *= 1 - eta_t * lam
        alphas[t] = -eta_t * (predictions[t] - Y[t])
    return predictions


def textbook_monorma(X, Y, mus, B, lam, eta, r):
    """MONORMA likewise: m kernel rows per round, explicit shrink, gamma recursion and delta update."""
    n, d = Y.shape
    m = len(mus)
    alphas, predictions = np.zeros((n, d)), np.zeros((n, d))
    weights, gamma = np.full(m, 1.0 / m), np.zeros(m)
    for t in range(n):
        sq = np.sum((X[:t] - X[t]) ** 2, axis=1)
        v = np.array([B @ (np.exp(-sq / mu) @ alphas[:t]) for mu in mus])
        predictions[t] = weights @ v
        eta_t = eta / math.sqrt(t + 1)
        c_t = 1 - eta_t * lam
        alphas[:t] *= c_t
        new = alphas[t] = -eta_t * (predictions[t] - Y[t])
        gamma = c_t**2 * gamma + new @ B @ new + 2 * c_t * (v @ new)
        w = weights**2 * np.maximum(gamma, 0)
        if np.any(w):
            weights = w ** (1 / (r + 1)) / np.sum(w ** (r / (r + 1))) ** (1 / r)
    return predictions


def textbook_batch(X, Y, mu, B, lam):
    """The direct td x td solve of spec 7.1 (needs (td)^2 * 8 bytes: 20 GB at t = 5000, d = 10)."""
    t, d = Y.shape
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    G = np.kron(np.exp(-sq / mu), B)
    return np.linalg.solve(G + t * lam * np.eye(t * d), Y.reshape(-1)).reshape(t, d)


def best_time(function, repeat):
    """Best wall-clock seconds of ``repeat`` runs."""
    return min(best_times(function, repeat))


def best_times(function, repeat):
    """(wall, CPU) seconds of the run with the best wall time. On a shared machine the wall time includes waiting
    for a core; the CPU time of this process (all its threads) does not."""
    times = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        times.append((time.perf_counter() - start, time.process_time() - start_cpu))
    return min(times)


def peak_memory(function):
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def data(n, d=D):
    return ovk_ref.synthetic(n, p=P, d=d, seed=0)


def kernels():
    return ovk_ref.gaussian_separable(MU, D), [ovk_ref.gaussian_separable(mu, D) for mu in MONORMA_MUS]


def section(title):
    print(f"\n== {title}")


def targets(repeat, quick):
    kernel, kernel_list = kernels()
    B = ovk_ref.paper_J(D)
    X, Y = data(5000)
    runs = {
        "ONORMA t=5000": (lambda: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA),
                          lambda: textbook_onorma(X, Y, MU, B, LAM, ETA), 0.2),
        "MONORMA m=3 t=5000": (lambda: ovk_fast.monorma(X, Y, kernel_list, lam=LAM, eta=ETA, r=1.0),
                               lambda: textbook_monorma(X, Y, MONORMA_MUS, B, LAM, ETA, 1.0), 0.6),
        "batch ridge t=5000": (lambda: ovk_fast.batch_ridge(X, Y, kernel, lam=LAM), None, 15.0),
    }
    section("targets at t = 5000, p = 20, d = 10 (paper's synthetic set; paper: 12 s, 50 s, 162 s)")
    print(f"{'run':22s} {'ovk_fast wall s':>15s} {'cpu s':>7s} {'target s':>9s} {'met':>4s} {'textbook s':>11s} "
          f"{'peak MiB':>9s}")
    for name, (fast, textbook, target) in runs.items():
        seconds, cpu = best_times(fast, 1 if name.startswith("batch") else repeat)
        textbook_seconds = f"{best_time(textbook, 1):11.2f}" if textbook else f"{'(no fit)':>11s}"
        print(f"{name:22s} {seconds:15.3f} {cpu:7.3f} {target:9.1f} {'yes' if seconds <= target else 'NO':>4s} "
              f"{textbook_seconds} {peak_memory(fast):9.0f}")
    t_direct = 500
    Xd, Yd = data(t_direct)
    seconds = best_time(lambda: textbook_batch(Xd, Yd, MU, B, LAM), 1)
    fast_seconds = best_time(lambda: ovk_fast.batch_ridge(Xd, Yd, kernel, lam=LAM), repeat)
    print(f"batch ridge at t = {t_direct}: textbook direct td x td solve {seconds:.2f} s (peak "
          f"{peak_memory(lambda: textbook_batch(Xd, Yd, MU, B, LAM)):.0f} MiB), ovk_fast {fast_seconds:.3f} s. "
          f"At t = 5000 the direct solve needs {(5000 * D) ** 2 * 8 / 2**30:.0f} GiB for G alone (this machine: "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB) and ~{seconds * 1000 / 60:.0f} "
          f"min by t^3 scaling")

    section("speed-up over ovk_ref (literal, one d x d block per kernel evaluation)")
    t_ref = 500 if quick else 2000
    Xr, Yr = data(t_ref)
    reference = best_time(lambda: ovk_ref.onorma(Xr, Yr, kernel, lam=LAM, eta=ETA), 1)
    X2, Y2 = data(2000)
    fast = best_time(lambda: ovk_fast.onorma(X2, Y2, kernel, lam=LAM, eta=ETA), repeat)
    textbook = best_time(lambda: textbook_onorma(X2, Y2, MU, B, LAM, ETA), repeat)
    if quick:
        print(f"ovk_ref ONORMA t = {t_ref}: {reference:.2f} s measured; extrapolated to t = 2000 by "
              f"(2000/{t_ref})^2 = {(2000 / t_ref) ** 2:.0f} (its cost is t(t-1)/2 block evaluations): ", end="")
        reference *= (2000 / t_ref) ** 2
        print(f"{reference:.1f} s")
    else:
        print(f"ovk_ref ONORMA t = 2000: {reference:.2f} s (measured once)")
    print(f"ovk_fast ONORMA t = 2000: {fast:.4f} s -> {reference / fast:.0f}x faster than ovk_ref "
          f"(target >= 100x: {'met' if reference / fast >= 100 else 'NOT met'})")
    print(f"textbook numpy ONORMA t = 2000: {textbook:.4f} s -> ovk_fast is {textbook / fast:.1f}x faster")
    print(f"peak memory ovk_ref ONORMA t = 500: {peak_memory(lambda: ovk_ref.onorma(*data(500), kernel, lam=LAM, eta=ETA)):.1f} MiB"
          f" (object lists of d x d blocks); ovk_fast t = 500: "
          f"{peak_memory(lambda: ovk_fast.onorma(*data(500), kernel, lam=LAM, eta=ETA)):.1f} MiB")


def scaling(repeat):
    kernel, _ = kernels()
    section("scaling in t: untruncated cost ~ t^2, fixed window s = 100 ~ t*s (kernel blocks counted by the record)")
    print(f"{'t':>6s} {'untruncated s':>14s} {'blocks':>10s} {'ratio':>6s} {'window s':>9s} {'blocks':>9s} {'ratio':>6s} "
          f"{'peak MiB':>9s}")
    previous = None
    for t in (1000, 2000, 4000, 8000):
        X, Y = data(t)
        full = best_time(lambda: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA), repeat)
        window = best_time(lambda: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA, truncation=100), repeat)
        full_blocks = int(ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA).kernel_evaluations.sum())
        window_blocks = int(ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA, truncation=100).kernel_evaluations.sum())
        ratios = ("", "") if previous is None else (f"{full / previous[0]:6.2f}", f"{window / previous[1]:6.2f}")
        print(f"{t:6d} {full:14.3f} {full_blocks:10d} {ratios[0]:>6s} {window:9.3f} {window_blocks:9d} {ratios[1]:>6s} "
              f"{peak_memory(lambda: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA)):9.0f}")
        previous = (full, window)
    print("ratio = time / time at half the t: 4 for t^2, 2 for t*s. At small t the per-round Python work (linear"
          " in t) dominates, so the untruncated ratio approaches 4 only as t grows.")


def median_times(functions: dict, repeat: int) -> dict:
    """Median (wall, CPU) seconds of each function over ``repeat`` rounds, the functions interleaved in each round
    so that they share the machine's load alike."""
    times = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            times[name].append((time.perf_counter() - start, time.process_time() - start_cpu))
    return {name: tuple(np.median(np.array(values), axis=0)) for name, values in times.items()}


@contextmanager
def ovk_fast_threads(count):
    """ovk_fast's pool limited to ``count`` threads (``OVK_FAST_THREADS``) for the duration."""
    saved, threads_module.THREADS = threads_module.THREADS, count
    try:
        yield
    finally:
        threads_module.THREADS = saved


def one_thread(function):
    def run():
        with ovk_fast_threads(1):
            function()
    return run


def engine(repeat):
    """Issue 14, item 5: ovk_fast against the textbook version side by side, where ONORMA's time goes, and the
    floor: the 12.5M Gaussian values k(x_t, x_i), i < t <= 5000, that any exact run must compute."""
    kernel, kernel_list = kernels()
    B = ovk_ref.paper_J(D)
    X, Y = data(5000)
    onorma = lambda: ovk_fast.onorma(X, Y, kernel, lam=LAM, eta=ETA)
    monorma = lambda: ovk_fast.monorma(X, Y, kernel_list, lam=LAM, eta=ETA, r=1.0)
    runs = {"ONORMA t=5000": (onorma, lambda: textbook_onorma(X, Y, MU, B, LAM, ETA), 0.08),
            "MONORMA m=3 t=5000": (monorma, lambda: textbook_monorma(X, Y, MONORMA_MUS, B, LAM, ETA, 1.0), 0.2)}
    section(f"ovk_fast against the textbook version (issue 14: ONORMA <= 0.08 s, MONORMA <= 0.2 s on 2 cores); "
            f"medians of {repeat} interleaved runs, wall s (CPU s of all threads)")
    print(f"load average {os.getloadavg()[0]:.2f}; ovk_fast threads: {threads_module.THREADS}")
    print(f"{'run':20s} {'ovk_fast':>16s} {'1 thread':>16s} {'textbook':>16s} {'textbook/fast':>14s} {'target':>7s} "
          f"{'met':>4s}")
    for name, (fast, textbook, target) in runs.items():
        times = median_times({"fast": fast, "one": one_thread(fast), "textbook": textbook}, repeat)
        wall = times["fast"][0]
        cells = " ".join(f"{times[key][0]:7.3f} ({times[key][1]:6.3f})" for key in ("fast", "one", "textbook"))
        met = "yes" if wall <= target else "NO"
        print(f"{name:20s} {cells} {times['textbook'][0] / wall:14.1f} {target:7.2f} {met:>4s}")
    print(f"load average {os.getloadavg()[0]:.2f}. Wall time on a shared machine includes waiting for a core; "
          f"CPU time counts the work of all threads.")
    breakdown(X, kernel, onorma, repeat)


def breakdown(X, kernel, onorma, repeat):
    """ONORMA's time in phases: its kernel rows against the stored points (the same ``apply_rows`` calls, block by
    block), and in the same tiles the distances alone and distances + exp (the floor). Each tile is computed and
    dropped, as in the engine, so it stays in cache; exp and the products with the coefficients are differences."""
    n, block = len(X), importlib.import_module("ovk_fast.onorma").BLOCK_ROUNDS
    C = np.ones((n, D))
    starts = range(0, n, block)
    tiles = [(start, lo) for start in starts for lo in range(0, start, kernel_rows_module.TILE_COLUMNS)]
    count = sum(min(block, n - start) * start for start in starts)

    def tile_distances(start_lo):
        start, lo = start_lo
        hi = min(start, lo + kernel_rows_module.TILE_COLUMNS)
        return kernel_rows_module.squared_distances(X[start:start + block], X[lo:hi])

    def tile_values(start_lo):
        S = tile_distances(start_lo)
        np.exp(np.multiply(S, -1.0 / MU, out=S), out=S)

    def rows():
        for start in starts:
            kernel_rows_module.apply_rows([kernel], X[start:start + block], X[:start], C[:start])

    with single_blas_thread():
        times = median_times({
            "onorma": one_thread(onorma), "rows": one_thread(rows),
            "distances": lambda: [tile_distances(t).shape for t in tiles], "floor": lambda: [tile_values(t) for t in tiles],
            "floor threads": lambda: map_in_order(tile_values, tiles)}, repeat)
    ms = {name: 1e3 * wall for name, (wall, _) in times.items()}
    section(f"where ONORMA t = {n} spends its time (one thread, medians of {repeat}, ms; load average "
            f"{os.getloadavg()[0]:.2f})")
    print(f"total {ms['onorma']:.1f} = kernel rows against the stored points {ms['rows']:.1f} + the rest "
          f"{ms['onorma'] - ms['rows']:.1f} (the rows within each block, the round loop, the norm recursion, records)")
    print(f"kernel rows: {count / 1e6:.1f}M Gaussian values in {len(tiles)} tiles of <= {block} x "
          f"{kernel_rows_module.TILE_COLUMNS}: distance GEMMs {ms['distances']:.1f}, "
          f"exp {ms['floor'] - ms['distances']:.1f}, "
          f"products with the coefficients and tile bookkeeping {ms['rows'] - ms['floor']:.1f}")
    floor = min(ms["floor"], ms["floor threads"])
    print(f"floor (the {count / 1e6:.1f}M Gaussian values, distances + exp in the same tiles, nothing else): "
          f"{ms['floor']:.1f} ms on one thread, {ms['floor threads']:.1f} ms on {threads_module.THREADS}; "
          f"ONORMA one thread / floor = {ms['onorma'] / floor:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="ovk_ref at t = 500 only, extrapolated to t = 2000")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing of ovk_fast (best is reported)")
    parser.add_argument("--engine", action="store_true", help="only ovk_fast against the textbook version, its "
                        "time by phase and the floor (issue 14), medians of --repeat (at least 5) interleaved runs")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (other jobs share the cores); "
          f"numpy {np.__version__}")
    engine(max(args.repeat, 5))
    if args.engine:
        return
    targets(args.repeat, args.quick)
    scaling(args.repeat)


if __name__ == "__main__":
    main()
