"""Table 3: running times of batch, ONORMA and MONORMA on the paper's three columns, with both engines.

The run's engine is timed by Figure 1's runs; the other engine (``ovk_ref`` when the run used ``ovk_fast``, and
the reverse) is timed here on the same prepared training stream, kernels and ``lam``. The literal batch solve of
``ovk_ref`` holds a dense ``(t d)^2`` matrix, so it runs only up to ``LITERAL_BATCH_MAX_UNKNOWNS`` unknowns.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from ovk_experiments.experiments import kernels
from ovk_experiments.experiments.runs import clock, timed_monorma, timed_onorma
from ovk_experiments.protocol.prepare import prepare

#: data set -> the paper's Table 3 column it fills (CPU through its stand-in)
COLUMNS = {"synthetic-5000": "Synthetic", "dermatology": "Dermatology", "cpu-standin": "CPU"}
#: t d above which ovk_ref's literal batch solve is not run: its dense (t d)^2 float64 matrix is 128 MiB at 4000
#: and its Gram matrix costs t^2 Python-level block evaluations (t = 2500, d = 10 would need 4.7 GiB)
LITERAL_BATCH_MAX_UNKNOWNS = 4000
ENGINE_NAMES = ("ovk_fast", "ovk_ref")


@dataclass
class EngineTimes:
    engine: str
    onorma: float
    monorma: float
    #: one batch solve with the lam chosen by the CV; None when not run (``batch_note`` says why)
    batch_fit: float | None
    batch_note: str = ""


def other_engine(name: str) -> str | None:
    """The engine Table 3 times besides the run's: ovk_ref for ovk_fast and the reverse (None if it does not import)."""
    other = ENGINE_NAMES[1 - ENGINE_NAMES.index(name)]
    try:
        importlib.import_module(other)
    except ImportError:
        return None
    return other


def from_result(engine_name: str, result) -> EngineTimes:
    """The run's own engine: Figure 1's times."""
    return EngineTimes(engine_name, result.onorma.seconds, result.monorma.seconds, result.batch.fit_seconds)


def time_engine(engine_name: str, result, settings) -> EngineTimes:
    """One ONORMA pass, one MONORMA pass and one batch solve of ``engine_name`` on ``result``'s stream."""
    engine = importlib.import_module(engine_name)
    dataset = result.dataset
    prepared = prepare(dataset, seed=settings.seed, max_examples=settings.max_examples,
                       input_scaling=result.input_scaling, target_scaling=settings.target_scaling)
    d = dataset.Y.shape[1]
    kernel = kernels.onorma_kernel(dataset.name, d)
    _, onorma = timed_onorma(engine, prepared, kernel, settings)
    _, monorma = timed_monorma(engine, prepared, kernels.monorma_kernels(dataset.name, d)[0], settings)
    unknowns = prepared.X_train.shape[0] * d
    if engine_name == "ovk_ref" and unknowns > LITERAL_BATCH_MAX_UNKNOWNS:
        return EngineTimes(engine_name, onorma, monorma, None,
                           f"not run: the literal solve holds a ({unknowns})^2 matrix, {unknowns ** 2 * 8 / 2 ** 30:.1f} GiB")
    start = clock()
    with np.errstate(all="ignore"):
        engine.batch_ridge(prepared.X_train, prepared.Y_train, kernel, lam=result.batch.lam)
    return EngineTimes(engine_name, onorma, monorma, clock() - start)
