"""Run every experiment and write ``report.md``, ``results.csv``, ``figure1.png``, ``figure2.png`` and
``manifest.json`` to a folder, atomically (``output.atomic``)."""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from tqdm import tqdm

from ovk_experiments import data, engines
from ovk_experiments.experiments import figure1, figure2, table3
from ovk_experiments.output import atomic, figures, report, rows
from ovk_ref import atomic_file

OUTPUTS = ("report.md", "results.csv", "figure1.png", "figure2.png")


def _table3_times(engine_name, first, settings, step) -> dict:
    """Data set name -> [the run engine's times, the other engine's times (when it imports)] for Table 3's
    columns (the paper-setting variant of each)."""
    times = {}
    other = table3.other_engine(engine_name) if settings.table3_both_engines else None
    for result in first:
        if result.dataset.name not in table3.COLUMNS or result.dataset.name in times:
            continue
        times[result.dataset.name] = [table3.from_result(engine_name, result)]
        if other:
            step(f"{result.dataset.name}: Table 3 with {other}")
            times[result.dataset.name].append(table3.time_engine(other, result, settings))
    return times


def dataset_results(settings, name: str, step=None) -> tuple[list, list]:
    """Figure 1's results (the paper's setting, and the scaled variant if it diverged) and Figure 2's for one data
    set: the unit ``reproduce`` spreads over worker processes. ``step(message)`` is called at every step."""
    step = step or (lambda message: None)
    engine = engines.resolve(settings.engine)
    dataset = data.load(name, settings.seed)
    first = figure1.run(engine, dataset, settings, step)
    return first, [figure2.run(engine, dataset, settings, result.input_scaling, step) for result in first]


def reproduce(settings, out_dir, *, command: str = "ovk-check reproduce", progress: bool = True,
              skipped: tuple = (), workers: int = 1, map_ordered) -> dict:
    """All of Figure 1, Figure 2 and Table 3 for ``settings.datasets``; returns ``{output name: path}``.

    Checks that every data set and the engine are available and that ``out_dir`` may be replaced before any
    work (a missing optional extra raises ``MissingExtraError`` naming it). ``skipped`` names the data sets
    left out because an extra is missing; the report says so. Progress goes to stderr (by step in one process,
    by data set with ``workers`` > 1 processes, each data set in one of them; the results do not depend on
    ``workers``). ``map_ordered(function, items, done=...)`` runs the data sets where the caller says and returns
    their results in order (``ovk_cli.parallel.map_ordered`` on ``workers`` processes: one worker runs them in this
    process).
    """
    data.check_available(settings.datasets)
    engine = engines.resolve(settings.engine)
    atomic.check_replaceable(out_dir, OUTPUTS)
    start = time.perf_counter()
    steps_per_variant = 3 + settings.sweep_points + 1
    table3_steps = sum(name in table3.COLUMNS for name in settings.datasets) * settings.table3_both_engines
    with tqdm(total=len(settings.datasets) * steps_per_variant + table3_steps, file=sys.stderr,
              disable=not progress, unit="step") as bar:
        def step(message):
            bar.set_description(message)
            bar.update(1)

        def done(index, results):
            bar.total += (len(results[0]) - 1) * steps_per_variant
            if workers > 1:
                bar.set_description(f"{settings.datasets[index]}: done")
                bar.update(len(results[0]) * steps_per_variant)
            bar.refresh()

        per_dataset = map_ordered(functools.partial(dataset_results, settings, step=step if workers == 1 else None),
                                  settings.datasets, done=done)
        first = [result for results, _ in per_dataset for result in results]
        second = [result for _, results in per_dataset for result in results]
        times = _table3_times(engine.__name__, first, settings, step)
    seconds = time.perf_counter() - start
    with atomic.staged_folder(out_dir, OUTPUTS) as staging:
        rows.write_csv(staging / "results.csv", [row for result in first for row in rows.figure1_rows(result)]
                       + [row for result in second for row in rows.figure2_rows(result)]
                       + rows.table3_rows(first, times))
        figures.figure1(first, staging / "figure1.png", quick=settings.quick)
        figures.figure2(second, staging / "figure2.png", quick=settings.quick)
        atomic_file.write_text(staging / "report.md", report.markdown(settings, engine.__name__, command, seconds,
                                                                      first, second, times, skipped))
    return {name: Path(out_dir) / name for name in (*OUTPUTS, atomic.MANIFEST)}
