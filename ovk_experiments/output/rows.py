"""Every number of a run as flat rows, the content of ``results.csv`` (figures and report show the same numbers)."""
from __future__ import annotations

import csv
import math

import numpy as np

from ovk_ref import atomic_file

COLUMNS = ("experiment", "dataset", "dataset_label", "stand_in", "variant", "learner", "kernel", "n_train",
           "parameter", "parameter_value", "metric", "value")


def curve_points(n: int) -> np.ndarray:
    """The rounds t at which Figure 1's online curves are recorded and drawn: about 50, log-spaced, and t = n."""
    return np.unique(np.round(np.geomspace(1, n, min(n, 50))).astype(int))


def _row(experiment, result, learner, kernel, metric, value, parameter="", parameter_value=""):
    return dict(experiment=experiment, dataset=result.dataset.name, dataset_label=result.dataset.label,
                stand_in=result.dataset.stand_in, variant=result.variant, learner=learner, kernel=kernel,
                n_train=result.n_train, parameter=parameter, parameter_value=parameter_value, metric=metric,
                value=float("nan") if value is None else float(value))


def _online(experiment, result, run, parameter="", parameter_value=""):
    rows = [_row(experiment, result, run.learner, run.kernel, metric, value, parameter, parameter_value)
            for metric, value in (("online_error", run.online_error), ("test_error_final_model", run.test_error),
                                  ("diverged_at_round", run.diverged_at))]
    if run.weights is not None:
        rows += [_row(experiment, result, run.learner, run.kernel, "kernel_weight", weight, "kernel index", j)
                 for j, weight in enumerate(run.weights)]
    return rows


def figure1_rows(result) -> list[dict]:
    rows = []
    for run in (result.onorma, result.monorma):
        rows += [_row("figure1", result, run.learner, run.kernel, "online_error", run.curve[t - 1], "t", t)
                 for t in curve_points(len(run.curve))]
        rows += _online("figure1", result, run)
        rows.append(_row("table3", result, run.learner, run.kernel, "seconds", run.seconds))
    batch = result.batch
    rows += [_row("figure1", result, "batch", batch.kernel, "cv_error", error, "lam", lam)
             for lam, error in zip(batch.lams, batch.cv_errors)]
    rows += [_row("figure1", result, "batch", batch.kernel, "train_error_prefix", error, "t", t)
             for t, error in batch.prefix_errors]
    rows += [_row("figure1", result, "batch", batch.kernel, metric, value)
             for metric, value in (("lam_chosen", batch.lam), ("train_error", batch.train_error),
                                   ("test_error", batch.test_error))]
    rows += [_row("table3", result, "batch", batch.kernel, metric, value)
             for metric, value in (("fit_seconds", batch.fit_seconds), ("cv_seconds", batch.cv_seconds))]
    return rows


def figure2_rows(result) -> list[dict]:
    rows = []
    for value, onorma, batch in zip(result.values, result.onorma, result.batch):
        rows += _online("figure2", result, onorma, result.parameter, value)
        rows += [_row("figure2", result, "batch", batch.kernel, metric, number, result.parameter, value)
                 for metric, number in (("lam_chosen", batch.lam), ("train_error", batch.train_error),
                                        ("test_error", batch.test_error))]
    return rows + _online("figure2", result, result.monorma, "reference", "")


def table3_rows(figure1_results, times) -> list[dict]:
    """Table 3's times of the engine(s) other than the run's (the run's own are in ``figure1_rows``)."""
    by_name = {result.dataset.name: result for result in reversed(figure1_results)}   # the paper-setting variant
    rows = []
    for name, engine_times in times.items():
        result = by_name[name]
        for timed in engine_times[1:]:
            rows += [_row("table3", result, learner, kernel, f"{metric}_{timed.engine}", value)
                     for learner, kernel, metric, value in
                     (("ONORMA", result.onorma.kernel, "seconds", timed.onorma),
                      ("MONORMA", result.monorma.kernel, "seconds", timed.monorma),
                      ("batch", result.batch.kernel, "fit_seconds", timed.batch_fit))]
    return rows


def write_csv(path, rows) -> None:
    with atomic_file.replacing(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({key: (repr(value) if isinstance(value, float) and math.isfinite(value) else value)
                             for key, value in row.items()})
