"""Figure 2: error against the kernel parameter mu for ONORMA and batch, MONORMA as a reference line.

Gaussian mu from 1e-3 to 1e2 (log scale), or the non-separable mu from 0 to 1 on the synthetic set;
misclassification rate for Dermatology. Run on the same variants as Figure 1 (the scaled variant too
when the paper setting diverged), on at most ``sweep_max_examples`` rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ovk_experiments.data import Dataset
from ovk_experiments.experiments import kernels
from ovk_experiments.experiments.figure1 import variant_label
from ovk_experiments.experiments.runs import BatchRun, OnlineRun, run_batch, run_monorma, run_onorma
from ovk_experiments.protocol.prepare import prepare


@dataclass
class Figure2Result:
    dataset: Dataset
    input_scaling: str
    variant: str
    n_train: int
    parameter: str
    values: np.ndarray
    onorma: list[OnlineRun]
    batch: list[BatchRun]
    monorma: OnlineRun


def run(engine, dataset: Dataset, settings, input_scaling: str, step) -> Figure2Result:
    prepared = prepare(dataset, seed=settings.seed, max_examples=settings.sweep_max_examples,
                       input_scaling=input_scaling, target_scaling=settings.target_scaling)
    d = dataset.Y.shape[1]
    parameter, values, family = kernels.sweep(dataset.name, d, settings.sweep_points)
    onorma, batch = [], []
    for value, kernel in zip(values, family):
        step(f"{dataset.name}: {parameter} = {value:.3g}")
        name = f"{parameter} = {value:.3g}"
        onorma.append(run_onorma(engine, prepared, kernel, name, settings))
        batch.append(run_batch(engine, prepared, kernel, name, settings, checkpoints=0))
    step(f"{dataset.name}: MONORMA reference")
    monorma = run_monorma(engine, prepared, *kernels.monorma_kernels(dataset.name, d), settings)
    return Figure2Result(dataset, input_scaling, variant_label(input_scaling, settings), len(prepared.X_train),
                         parameter, values, onorma, batch, monorma)
