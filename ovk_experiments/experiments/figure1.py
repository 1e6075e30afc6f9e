"""Figure 1: error against the number of examples for ONORMA, MONORMA and batch, on every data set.

The paper's setting runs first; when an online learner diverges there (spec E30(a)), the divergence is
kept in the results and the same experiment is rerun as a separate, labelled scaled variant (inputs in
the unit ball), which is not the paper's setting.
"""
from __future__ import annotations

from dataclasses import dataclass

from ovk_experiments.data import Dataset
from ovk_experiments.experiments import kernels
from ovk_experiments.experiments.runs import BatchRun, OnlineRun, run_batch, run_monorma, run_onorma
from ovk_experiments.protocol.prepare import prepare

SCALED_VARIANT = "unit-ball"


def variant_label(input_scaling: str, settings) -> str:
    """``paper setting`` for the default unit-box inputs, the chosen scaling otherwise, or the scaled variant."""
    if input_scaling != settings.input_scaling:
        return f"scaled variant (inputs: {input_scaling}, x / sqrt(p)); not the paper's setting"
    if input_scaling == "unit-box":
        return "paper setting (inputs: unit-box)"
    return f"inputs: {input_scaling} (--input-scaling); not the paper's setting"


@dataclass
class Figure1Result:
    dataset: Dataset
    input_scaling: str
    variant: str
    n_train: int
    n_test: int
    onorma: OnlineRun
    monorma: OnlineRun
    batch: BatchRun

    @property
    def diverged(self) -> bool:
        return self.onorma.diverged_at is not None or self.monorma.diverged_at is not None


def run_variant(engine, dataset: Dataset, settings, input_scaling: str, step) -> Figure1Result:
    prepared = prepare(dataset, seed=settings.seed, max_examples=settings.max_examples, input_scaling=input_scaling,
                       target_scaling=settings.target_scaling)
    d = dataset.Y.shape[1]
    label = variant_label(input_scaling, settings)
    step(f"{dataset.name}: ONORMA")
    onorma = run_onorma(engine, prepared, kernels.onorma_kernel(dataset.name, d), kernels.kernel_label(dataset.name),
                        settings)
    step(f"{dataset.name}: MONORMA")
    monorma = run_monorma(engine, prepared, *kernels.monorma_kernels(dataset.name, d), settings)
    step(f"{dataset.name}: batch + {settings.folds}-fold CV")
    batch = run_batch(engine, prepared, kernels.onorma_kernel(dataset.name, d), kernels.kernel_label(dataset.name),
                      settings, settings.batch_checkpoints)
    return Figure1Result(dataset, input_scaling, label, len(prepared.X_train), len(prepared.X_test), onorma, monorma,
                         batch)


def run(engine, dataset: Dataset, settings, step) -> list[Figure1Result]:
    """The paper-setting result, followed by the scaled variant when the paper setting diverged."""
    results = [run_variant(engine, dataset, settings, settings.input_scaling, step)]
    if results[0].diverged and settings.input_scaling != SCALED_VARIANT:
        results.append(run_variant(engine, dataset, settings, SCALED_VARIANT, step))
    return results
