"""Run every experiment and write ``report.md``, ``results.csv``, ``figure1.png`` and ``figure2.png`` to a folder."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from tqdm import tqdm

from ovk_experiments import data, engines
from ovk_experiments.experiments import figure1, figure2
from ovk_experiments.output import figures, report, rows

OUTPUTS = ("report.md", "results.csv", "figure1.png", "figure2.png")


def reproduce(settings, out_dir, *, command: str = "ovk-check reproduce", progress: bool = True) -> dict:
    """All of Figure 1, Figure 2 and Table 3 for ``settings.datasets``; returns ``{output name: path}``.

    Checks that every data set and the engine are available before any work (a missing optional extra
    raises ``MissingExtraError`` naming it). Progress goes to stderr.
    """
    data.check_available(settings.datasets)
    engine = engines.resolve(settings.engine)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    steps_per_variant = 3 + settings.sweep_points + 1
    first, second = [], []
    with tqdm(total=len(settings.datasets) * steps_per_variant, file=sys.stderr, disable=not progress,
              unit="step") as bar:
        def step(message):
            bar.set_description(message)
            bar.update(1)

        for name in settings.datasets:
            dataset = data.load(name, settings.seed)
            results = figure1.run(engine, dataset, settings, step)
            bar.total += (len(results) - 1) * steps_per_variant
            bar.refresh()
            first += results
            second += [figure2.run(engine, dataset, settings, result.input_scaling, step) for result in results]
    seconds = time.perf_counter() - start
    paths = {name: out_dir / name for name in OUTPUTS}
    rows.write_csv(paths["results.csv"], [row for result in first for row in rows.figure1_rows(result)]
                   + [row for result in second for row in rows.figure2_rows(result)])
    figures.figure1(first, paths["figure1.png"])
    figures.figure2(second, paths["figure2.png"])
    paths["report.md"].write_text(report.markdown(settings, engine.__name__, command, seconds, first, second))
    return paths
