"""``ovk-check reproduce``: the paper's experiments (Figures 1-2, Table 3) with a report set against its claims.

Writes ``report.md``, ``results.csv``, ``figure1.png``, ``figure2.png`` and ``manifest.json`` to ``--out``, all at
once (a temporary folder beside it, moved into place when complete). Without the ``datasets`` extra and
without ``--datasets``, it runs the shipped and synthetic data and says what it skipped. Every choice the
paper leaves open (spec E30(b)) is an option; the defaults are those of
``ovk_experiments.experiments.settings.Settings``, where each one is documented.
"""
from __future__ import annotations

import dataclasses
import functools
import sys

from ovk_cli import parallel
from ovk_cli.errors import front_door
from ovk_cli.parallel import check_workers, default_workers
from ovk_experiments import data, engines
from ovk_experiments.data import MissingExtraError
from ovk_experiments.experiments.settings import CLASSIFICATION_LOSSES, QUICK, Settings
from ovk_experiments.output import atomic
from ovk_experiments.protocol.prepare import INPUT_SCALINGS, TARGET_SCALINGS

DEFAULTS = Settings()


def _size(text: str) -> int | str:
    """A row count, or ``"all"`` (kept as text so that it differs from an option left out)."""
    return text if text == "all" else int(text)


def _names(text: str) -> tuple:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _numbers(text: str) -> tuple:
    return tuple(float(value) for value in text.split(","))


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="the paper's experiments: Figures 1-2, Table 3, report against its claims",
        description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"tiny prefixes of every data set (about a second per data set): {QUICK}")
    parser.add_argument("--out", default="ovk-reproduction", help="output folder (default ./ovk-reproduction)")
    parser.add_argument("--engine", choices=engines.ENGINES, default=DEFAULTS.engine,
                        help="ovk_fast (vectorised) or ovk_ref (literal); auto = ovk_fast when installed")
    parser.add_argument("--seed", type=int, default=DEFAULTS.seed,
                        help="seed of the synthetic data, the stand-ins' subsamples and the half split (default 0)")
    parser.add_argument("--datasets", type=_names, default=None,
                        help=f"comma-separated, among {','.join(data.NAMES)} (default: all that the installed "
                             'extras allow; the stand-ins need pip install "ovk[datasets]")')
    parser.add_argument("--input-scaling", choices=INPUT_SCALINGS, default=DEFAULTS.input_scaling,
                        help="paper-setting inputs: unit-box = each column onto [0,1] (default); unit-ball = then "
                             "/ sqrt(p); none. Not given by the paper")
    parser.add_argument("--target-scaling", choices=TARGET_SCALINGS, default=DEFAULTS.target_scaling,
                        help="regression targets: standardize on the training half (default) or none")
    parser.add_argument("--r", type=float, default=DEFAULTS.r, help="MONORMA's r (default 1; not given by the paper)")
    parser.add_argument("--truncation", type=int, default=DEFAULTS.truncation,
                        help="ONORMA keeps the s most recent coefficients (default: no truncation; not given)")
    parser.add_argument("--classification-loss", choices=CLASSIFICATION_LOSSES, default=DEFAULTS.classification_loss,
                        help="online loss on Dermatology's one-hot targets (default squared; not given)")
    parser.add_argument("--batch-lams", type=_numbers, default=None,
                        help=f"comma-separated lam grid of the batch CV (default {','.join(map(str, DEFAULTS.batch_lams))})")
    parser.add_argument("--max-examples", type=_size, default=None,
                        help=f"rows of each data set for Figure 1 and Table 3, or 'all' (default {DEFAULTS.max_examples})")
    parser.add_argument("--sweep-max-examples", type=_size, default=None,
                        help=f"rows of each data set for Figure 2, or 'all' (default {DEFAULTS.sweep_max_examples})")
    parser.add_argument("--sweep-points", type=int, default=None,
                        help=f"kernel-parameter values per sweep of Figure 2 (default {DEFAULTS.sweep_points})")
    parser.add_argument("--table3-one-engine", action="store_true",
                        help="Table 3 times only the run's engine (default: ovk_fast and ovk_ref both)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="processes the data sets are spread over (default: the machine's cores)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(run=run)


def settings_from(args) -> Settings:
    """The run's settings: the defaults, ``--quick``'s sizes, then every option given explicitly."""
    values = dict(engine=args.engine, seed=args.seed, datasets=args.datasets or DEFAULTS.datasets,
                  input_scaling=args.input_scaling, target_scaling=args.target_scaling, r=args.r,
                  truncation=args.truncation, classification_loss=args.classification_loss, quick=args.quick,
                  table3_both_engines=not args.table3_one_engine)
    if args.quick:
        values.update(QUICK)
    sizes = dict(batch_lams=args.batch_lams, max_examples=args.max_examples,
                 sweep_max_examples=args.sweep_max_examples, sweep_points=args.sweep_points)
    values.update({name: None if value == "all" else value for name, value in sizes.items() if value is not None})
    return dataclasses.replace(DEFAULTS, **values)


def run(args) -> int:
    with front_door():
        settings = settings_from(args)
        workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    skipped = ()
    if args.datasets is None:
        runnable, skipped = data.installed(settings.datasets)
        settings = dataclasses.replace(settings, datasets=runnable)
    if skipped:
        print(f"ovk-check reproduce: skipping {', '.join(skipped)}: they need the optional extra 'datasets' "
              f'(pip install "ovk[datasets]"); running {", ".join(settings.datasets)}', file=sys.stderr)
    try:
        import matplotlib  # noqa: F401  (the figures; optional extra "plots")
    except ImportError:
        print('ovk-check reproduce: error: the figures need the optional extra \'plots\': pip install "ovk[plots]"',
              file=sys.stderr)
        return 2
    from ovk_experiments.reproduce import OUTPUTS, reproduce  # imports matplotlib, so only here
    command = "ovk-check reproduce " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["reproduce"] else "ovk-check reproduce"
    try:   # the user's mistakes, before any work
        data.check_available(settings.datasets)
        atomic.check_replaceable(args.out, OUTPUTS)
    except (MissingExtraError, ValueError) as error:
        print(f"ovk-check reproduce: error: {error}", file=sys.stderr)
        return 2
    paths = reproduce(settings, args.out, command=command.strip(), progress=not args.no_progress, skipped=skipped,
                      workers=workers, map_ordered=functools.partial(parallel.map_ordered, workers=workers))
    for path in paths.values():
        print(f"wrote {path}")
    return 0
