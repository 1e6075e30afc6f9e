"""PNG figures (matplotlib, Agg backend): Figure 1 (error vs number of examples) and Figure 2 (error vs mu)."""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402

from ovk_experiments.output.rows import curve_points  # noqa: E402

COLOURS = {"ONORMA": "tab:blue", "MONORMA": "tab:orange", "batch": "tab:green"}


def _grid(count: int):
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 4.0 * rows), squeeze=False)
    for axis in axes.flat[count:]:
        axis.set_visible(False)
    return figure, axes.flat


def _title(result) -> str:
    return f"{result.dataset.label}\n{result.variant}"


def _ylabel(result) -> str:
    return "misclassification rate" if result.dataset.task == "classification" else "mean squared error"


def _online_curve(axis, run):
    """The curve up to its first divergent round; a diverged run ends in an 'x' and says where."""
    points = curve_points(len(run.curve))
    if run.diverged_at is not None:
        points = points[points < run.diverged_at]
    label = run.learner if run.diverged_at is None else f"{run.learner}: DIVERGED at round {run.diverged_at}"
    axis.plot(points, run.curve[points - 1], color=COLOURS[run.learner], label=label)
    if run.diverged_at is not None and len(points):
        axis.plot(points[-1], run.curve[points[-1] - 1], "x", color=COLOURS[run.learner], markersize=10)


def figure1(results, path) -> None:
    figure, axes = _grid(len(results))
    for axis, result in zip(axes, results):
        _online_curve(axis, result.onorma)
        _online_curve(axis, result.monorma)
        sizes, errors = zip(*result.batch.prefix_errors)
        axis.plot(sizes, errors, "s--", color=COLOURS["batch"], label=f"batch (training error, lam = {result.batch.lam:g})")
        axis.axhline(result.batch.test_error, color=COLOURS["batch"], linestyle=":", label="batch (test error)")
        axis.set_xscale("log")
        if result.dataset.task == "regression":
            axis.set_yscale("log")
        axis.set_xlabel("number of examples t")
        axis.set_ylabel(_ylabel(result))
        axis.set_title(_title(result), fontsize=9)
        axis.legend(fontsize=7)
    figure.suptitle("Figure 1: online (progressive) error of ONORMA and MONORMA, training error of batch", fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def figure2(results, path) -> None:
    figure, axes = _grid(len(results))
    for axis, result in zip(axes, results):
        values = np.asarray(result.values)
        online = np.array([run.online_error if run.diverged_at is None else np.nan for run in result.onorma])
        axis.plot(values, online, "o-", color=COLOURS["ONORMA"], label="ONORMA (online error)")
        diverged = [value for value, run in zip(values, result.onorma) if run.diverged_at is not None]
        if diverged:
            axis.plot(diverged, np.full(len(diverged), 0.95), "x", color="red", markersize=10,
                      transform=axis.get_xaxis_transform(), label="ONORMA diverged (not drawn)")
        axis.plot(values, [run.test_error for run in result.batch], "s--", color=COLOURS["batch"],
                  label="batch (test error, lam by CV)")
        axis.plot(values, [run.train_error for run in result.batch], "s:", color=COLOURS["batch"], alpha=0.6,
                  label="batch (training error)")
        monorma = result.monorma
        if monorma.diverged_at is None:
            axis.axhline(monorma.online_error, color=COLOURS["MONORMA"], label="MONORMA (online error)")
        else:
            axis.plot([], [], color=COLOURS["MONORMA"], label=f"MONORMA: DIVERGED at round {monorma.diverged_at}")
        if result.parameter.startswith("Gaussian"):
            axis.set_xscale("log")
        axis.set_xlabel(result.parameter)
        axis.set_ylabel(_ylabel(result))
        axis.set_title(_title(result), fontsize=9)
        axis.legend(fontsize=7)
    figure.suptitle("Figure 2: error against the kernel parameter mu", fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
