"""Run every experiment and write ``report.md``, ``results.csv``, ``figure1.png`` and ``figure2.png`` to a folder."""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from tqdm import tqdm

from ovk_experiments import data, engines
from ovk_experiments.experiments import figure1, figure2
from ovk_experiments.output import figures, report, rows
from proofs_check.parallel import map_ordered

OUTPUTS = ("report.md", "results.csv", "figure1.png", "figure2.png")


def dataset_results(settings, name: str, step=None) -> tuple[list, list]:
    """Figure 1's results (the paper's setting, and the scaled variant if it diverged) and Figure 2's for one data
    set: the unit ``reproduce`` spreads over worker processes. ``step(message)`` is called at every step."""
    step = step or (lambda message: None)
    engine = engines.resolve(settings.engine)
    dataset = data.load(name, settings.seed)
    first = figure1.run(engine, dataset, settings, step)
    return first, [figure2.run(engine, dataset, settings, result.input_scaling, step) for result in first]


def reproduce(settings, out_dir, *, command: str = "ovk-check reproduce", progress: bool = True, workers: int = 1) -> dict:
    """All of Figure 1, Figure 2 and Table 3 for ``settings.datasets``; returns ``{output name: path}``.

    Checks that every data set and the engine are available before any work (a missing optional extra
    raises ``MissingExtraError`` naming it). Progress goes to stderr (by step in one process, by data set with
    ``workers`` > 1 processes, each data set in one of them; the results do not depend on ``workers``).
    """
    data.check_available(settings.datasets)
    engine = engines.resolve(settings.engine)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    steps_per_variant = 3 + settings.sweep_points + 1
    with tqdm(total=len(settings.datasets) * steps_per_variant, file=sys.stderr, disable=not progress,
              unit="step") as bar:
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
                                  settings.datasets, workers=workers, done=done)
    first = [result for results, _ in per_dataset for result in results]
    second = [result for _, results in per_dataset for result in results]
    seconds = time.perf_counter() - start
    paths = {name: out_dir / name for name in OUTPUTS}
    rows.write_csv(paths["results.csv"], [row for result in first for row in rows.figure1_rows(result)]
                   + [row for result in second for row in rows.figure2_rows(result)])
    figures.figure1(first, paths["figure1.png"])
    figures.figure2(second, paths["figure2.png"])
    paths["report.md"].write_text(report.markdown(settings, engine.__name__, command, seconds, first, second))
    return paths
