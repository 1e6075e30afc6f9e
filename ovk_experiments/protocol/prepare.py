"""From a data set to the training stream and test set that every learner sees.

Every transformation is fitted on the training half only (the test half never leaks into it):
missing inputs -> the training column median; inputs scaled as ``input_scaling`` says; regression
targets standardised as ``target_scaling`` says (classification targets stay one-hot).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ovk_experiments.data import Dataset
from ovk_experiments.protocol.split import half_split

#: ``unit-box``: each input column mapped affinely onto [0, 1] (the paper's input box, spec 1);
#: ``unit-ball``: the same, then divided by sqrt(p) so that ``||x|| <= 1`` (the scaled variant of spec E30(a));
#: ``none``: inputs as loaded
INPUT_SCALINGS = ("unit-box", "unit-ball", "none")
#: ``standardize``: each regression output centred and divided by its standard deviation; ``none``: as loaded
TARGET_SCALINGS = ("standardize", "none")


@dataclass(frozen=True)
class Prepared:
    dataset: Dataset
    input_scaling: str
    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray

    @property
    def task(self) -> str:
        return self.dataset.task


def _scale_inputs(X_train, X_test, how):
    medians = np.nanmedian(X_train, axis=0)
    X_train = np.where(np.isnan(X_train), medians, X_train)
    X_test = np.where(np.isnan(X_test), medians, X_test)
    if how == "none":
        return X_train, X_test
    low, high = X_train.min(axis=0), X_train.max(axis=0)
    width = np.where(high > low, high - low, 1.0)
    X_train, X_test = (X_train - low) / width, (X_test - low) / width
    if how == "unit-ball":
        X_train, X_test = X_train / np.sqrt(X_train.shape[1]), X_test / np.sqrt(X_train.shape[1])
    return X_train, X_test


def _scale_targets(Y_train, Y_test, how):
    if how == "none":
        return Y_train, Y_test
    mean, std = Y_train.mean(axis=0), Y_train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return (Y_train - mean) / std, (Y_test - mean) / std


def prepare(dataset: Dataset, *, seed: int, max_examples: int | None, input_scaling: str,
            target_scaling: str) -> Prepared:
    """The seeded half split of ``max_examples`` random rows (all when None), scaled."""
    if input_scaling not in INPUT_SCALINGS:
        raise ValueError(f"input_scaling must be one of {INPUT_SCALINGS}, got {input_scaling!r}")
    if target_scaling not in TARGET_SCALINGS:
        raise ValueError(f"target_scaling must be one of {TARGET_SCALINGS}, got {target_scaling!r}")
    n = len(dataset.X)
    train, test = half_split(n, seed, None if max_examples is None else min(max_examples, n))
    X_train, X_test = _scale_inputs(dataset.X[train], dataset.X[test], input_scaling)
    Y_train, Y_test = dataset.Y[train], dataset.Y[test]
    if dataset.task == "regression":
        Y_train, Y_test = _scale_targets(Y_train, Y_test, target_scaling)
    return Prepared(dataset, input_scaling, X_train, Y_train, X_test, Y_test)
