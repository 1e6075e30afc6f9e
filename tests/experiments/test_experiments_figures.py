"""Figures 1-2: every legend entry is drawn inside its panel, the test errors behind the verdicts
are plotted, and a quick run says so in the title."""
import dataclasses

import numpy as np
import pytest

from ovk_experiments import data, engines
from ovk_experiments.experiments import figure1, figure2
from ovk_experiments.experiments.settings import QUICK, Settings
from ovk_experiments.output import figures


@pytest.fixture(scope="module")
def results():
    """Quick runs on the paper's non-separable synthetic setting (diverges, then its scaled variant) and Dermatology."""
    settings = dataclasses.replace(Settings(), quick=True, **QUICK)
    engine = engines.resolve("auto")
    first, second = [], []
    for name in ("synthetic-500", "dermatology"):
        dataset = data.load(name, 0)
        runs = figure1.run(engine, dataset, settings, lambda message: None)
        first += runs
        second += [figure2.run(engine, dataset, settings, run.input_scaling, lambda message: None) for run in runs]
    assert first[0].diverged and not first[1].diverged, "the fixture needs a diverged panel and a finite one"
    return first, second


def _drawn(draw, monkeypatch, tmp_path):
    """The matplotlib figure that ``draw`` saves, kept open."""
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    draw(tmp_path / "figure.png")
    figure = kept[0]
    figure.canvas.draw()
    return figure


def _visible_points(line, axis) -> int:
    """How many of the line's points land inside the panel (display coordinates)."""
    xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if not len(xy):
        return 0
    shown = line.get_transform().transform(xy)
    box = axis.bbox
    inside = (shown[:, 0] >= box.x0 - 1) & (shown[:, 0] <= box.x1 + 1) & (shown[:, 1] >= box.y0 - 1) & \
             (shown[:, 1] <= box.y1 + 1)
    return int(inside.sum())


def _legend_entries_are_drawn(figure):
    checked = 0
    for axis in figure.axes:
        legend = axis.get_legend()
        if legend is None:
            continue
        siblings = [other for other in figure.axes if other.bbox.bounds == axis.bbox.bounds]   # twin axes
        for text in legend.get_texts():
            label = text.get_text()
            lines = [line for other in siblings for line in other.get_lines() if line.get_label() == label]
            assert lines, f"legend entry {label!r} has no line"
            assert any(_visible_points(line, axis) for line in lines), f"legend entry {label!r} is not drawn"
            checked += 1
    return checked


@pytest.mark.parametrize("which", ["figure1", "figure2"])
def test_every_legend_entry_is_drawn(results, which, monkeypatch, tmp_path):
    first, second = results
    draw = getattr(figures, which)
    figure = _drawn(lambda path: draw(first if which == "figure1" else second, path), monkeypatch, tmp_path)
    assert _legend_entries_are_drawn(figure) >= 10


def test_figure1_plots_the_test_errors_and_the_approach_bound(results, monkeypatch, tmp_path):
    first, _ = results
    figure = _drawn(lambda path: figures.figure1(first, path), monkeypatch, tmp_path)
    finite = first[1]                                   # the scaled variant: nothing diverged
    labels = {line.get_label(): line for line in figure.axes[1].get_lines()}
    assert labels["ONORMA (test error of f_n)"].get_ydata()[0] == finite.onorma.test_error
    assert labels["MONORMA (test error of f_n)"].get_ydata()[0] == finite.monorma.test_error
    assert labels["batch (test error)"].get_ydata()[0] == finite.batch.test_error
    assert any(label.endswith("'approaches batch' bound)") for label in labels)


def test_a_diverged_run_has_its_own_axis_and_a_mark_at_its_round(results, monkeypatch, tmp_path):
    first, _ = results
    figure = _drawn(lambda path: figures.figure1(first, path), monkeypatch, tmp_path)
    twins = [axis for axis in figure.axes if axis is not figure.axes[0] and axis.bbox.bounds == figure.axes[0].bbox.bounds]
    assert len(twins) == 1 and twins[0].get_yscale() == "log"
    labels = [line.get_label() for line in twins[0].get_lines()]
    assert f"ONORMA: DIVERGED at round {first[0].onorma.diverged_at} (right axis)" in labels


@pytest.mark.parametrize("quick", [True, False])
def test_quick_runs_say_so_in_the_title(results, quick, monkeypatch, tmp_path):
    _, second = results
    figure = _drawn(lambda path: figures.figure2(second, path, quick=quick), monkeypatch, tmp_path)
    assert any(text.get_text().startswith("QUICK RUN") for text in figure.texts) == quick   # the suptitle
