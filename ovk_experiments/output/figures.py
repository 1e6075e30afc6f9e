"""PNG figures (matplotlib, Agg backend): Figure 1 (error vs number of examples) and Figure 2 (error vs mu).

Every entry of a legend is drawn: a diverged online run is drawn in full on its own (right, log) axis with a
marker at the round it diverged, or, in Figure 2, marked at the top of the panel; the test errors behind the
report's verdicts ("approaches batch": best online test error against ``APPROACH_RATIO`` x batch test error) are
plotted; a ``--quick`` run says so in the title.
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402

from ovk_experiments.output.paper_claims import APPROACH_RATIO  # noqa: E402
from ovk_experiments.output.rows import curve_points  # noqa: E402
from ovk_ref import atomic_file  # noqa: E402

COLOURS = {"ONORMA": "tab:blue", "MONORMA": "tab:orange", "batch": "tab:green", "diverged": "tab:red"}
#: ONORMA and MONORMA differ in line style and marker too, so that a curve lying on the other stays visible
STYLES = {"ONORMA": dict(linestyle="-", marker="o", markersize=3),
          "MONORMA": dict(linestyle="--", marker="^", markersize=4, markerfacecolor="none")}
QUICK_TITLE = "QUICK RUN (--quick: tiny prefixes, the numbers only show the pipeline works) — "


def _grid(count: int):
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.6 * columns, 4.4 * rows), squeeze=False)
    for axis in axes.flat[count:]:
        axis.set_visible(False)
    return figure, axes.flat


def _title(result) -> str:
    return f"{result.dataset.label}\n{result.variant}"


def _ylabel(result) -> str:
    return "misclassification rate" if result.dataset.task == "classification" else "mean squared error"


def _finish(figure, title, quick, path):
    figure.suptitle((QUICK_TITLE if quick else "") + title, fontsize=11, color="tab:red" if quick else "black")
    figure.tight_layout()
    try:
        with atomic_file.replacing(path, "wb") as stream:
            figure.savefig(stream, format="png", dpi=110)
    finally:
        plt.close(figure)


def _legend(axis, *others):
    handles, labels = axis.get_legend_handles_labels()
    for other in others:
        more = other.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    axis.legend(handles, labels, fontsize=6.5, loc="best")


def _online_curve(axis, run):
    points = curve_points(len(run.curve))
    axis.plot(points, run.curve[points - 1], color=COLOURS[run.learner], label=f"{run.learner} (online error)",
              **STYLES[run.learner])


def _diverged_curve(axis, run):
    """The whole curve on the diverged runs' own log axis, the divergence round marked with an 'x'."""
    points = curve_points(len(run.curve))
    values = run.curve[points - 1]
    finite = np.isfinite(values)
    axis.plot(points[finite], values[finite], color=COLOURS[run.learner],
              label=f"{run.learner}: DIVERGED at round {run.diverged_at} (right axis)", **STYLES[run.learner])
    at = run.diverged_at
    axis.plot([at], [run.curve[at - 1]] if np.isfinite(run.curve[at - 1]) else [np.nanmax(values[finite])], "x",
              color=COLOURS["diverged"], markersize=11, markeredgewidth=2)


def figure1(results, path, *, quick: bool = False) -> None:
    figure, axes = _grid(len(results))
    for axis, result in zip(axes, results):
        online = [run for run in (result.onorma, result.monorma) if run.diverged_at is None]
        diverged = [run for run in (result.onorma, result.monorma) if run.diverged_at is not None]
        for run in online:
            _online_curve(axis, run)
        sizes, errors = zip(*result.batch.prefix_errors)
        axis.plot(sizes, errors, "s--", color=COLOURS["batch"], label=f"batch (training error, lam = {result.batch.lam:g})")
        axis.axhline(result.batch.test_error, color=COLOURS["batch"], linestyle=":", label="batch (test error)")
        axis.axhline(APPROACH_RATIO * result.batch.test_error, color="grey", linestyle=(0, (1, 3)), linewidth=1,
                     label=f"{APPROACH_RATIO:g} x batch test ('approaches batch' bound)")
        for run, marker in zip(online, ("D", "*")):
            axis.plot([result.n_train], [run.test_error], marker, color=COLOURS[run.learner], markersize=9,
                      markeredgecolor="black", linestyle="none", label=f"{run.learner} (test error of f_n)")
        axis.set_xscale("log")
        if result.dataset.task == "regression":
            axis.set_yscale("log")
        axis.set_xlabel("number of examples t")
        axis.set_ylabel(_ylabel(result))
        axis.set_title(_title(result), fontsize=9)
        if diverged:
            right = axis.twinx()
            for run in diverged:
                _diverged_curve(right, run)
            right.set_yscale("log")
            right.set_ylabel("diverged runs: online error (log)", color=COLOURS["diverged"])
            _legend(axis, right)
        else:
            _legend(axis)
    _finish(figure, "Figure 1: online (progressive) error of ONORMA and MONORMA, batch training and test "
                    "errors, final test errors", quick, path)


def figure2(results, path, *, quick: bool = False) -> None:
    figure, axes = _grid(len(results))
    for axis, result in zip(axes, results):
        values = np.asarray(result.values)
        fine = [run.diverged_at is None for run in result.onorma]
        if any(fine):
            online = np.array([run.online_error if ok else np.nan for run, ok in zip(result.onorma, fine)])
            axis.plot(values, online, "o-", color=COLOURS["ONORMA"], label="ONORMA (online error)")
            axis.plot(values, [run.test_error for run in result.onorma], "o--", color=COLOURS["ONORMA"], alpha=0.6,
                      markerfacecolor="none", label="ONORMA (test error of f_n)")
        if not all(fine):
            diverged = values[~np.asarray(fine)]
            axis.plot(diverged, np.full(len(diverged), 0.95), "x", color=COLOURS["diverged"], markersize=10,
                      markeredgewidth=2, transform=axis.get_xaxis_transform(),
                      label="ONORMA diverged at this mu (marked at the top)")
        axis.plot(values, [run.test_error for run in result.batch], "s--", color=COLOURS["batch"],
                  label="batch (test error, lam by CV)")
        axis.plot(values, [run.train_error for run in result.batch], "s:", color=COLOURS["batch"], alpha=0.6,
                  label="batch (training error)")
        monorma = result.monorma
        if monorma.diverged_at is None:
            axis.axhline(monorma.online_error, color=COLOURS["MONORMA"], label="MONORMA (online error)")
            axis.axhline(monorma.test_error, color=COLOURS["MONORMA"], linestyle="-.",
                         label="MONORMA (test error of f_n)")
        else:
            axis.plot([0.02, 0.98], [0.88, 0.88], color=COLOURS["MONORMA"], linestyle="--", linewidth=2.5,
                      transform=axis.transAxes, label=f"MONORMA: DIVERGED at round {monorma.diverged_at} (band at the top)")
        if result.parameter.startswith("Gaussian"):
            axis.set_xscale("log")
        axis.set_xlabel(result.parameter)
        axis.set_ylabel(_ylabel(result))
        axis.set_title(_title(result), fontsize=9)
        _legend(axis)
    _finish(figure, "Figure 2: error against the kernel parameter mu", quick, path)
