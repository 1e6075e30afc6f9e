"""``ovk-check tightness``: how close each bound claim comes to its bound (docs/bounds.md).

Per bound claim of Propositions 1-2, Theorems 1-2 and MONORMA's factor bounds: the ``ci`` search's worst margin over
every round and over the rounds t >= 3 (every step of the algorithm has acted), and the best ratio ``1 - margin`` of
the steered adversarial search (``proofs_check.adversary``: Powell's method from Hypothesis draws) with the round
where it is reached, beside the best constant docs/bounds.md proves. The claims run in parallel (``--workers``).
"""
from __future__ import annotations

import json
import sys

from ovk_cli import outputs
from ovk_cli.errors import UsageError
from ovk_cli.parallel import check_workers, default_workers, map_ordered
from ovk_conform import versions
from proofs_check.adversary import BOUND_CLAIMS, tightness


def register(subparsers) -> None:
    parser = subparsers.add_parser("tightness", help="how close each bound claim comes to its bound: ci's worst margins "
                                   "and a steered adversarial search")
    parser.add_argument("--claim", action="append", metavar="ID", help=f"a bound claim (repeatable; default: {', '.join(BOUND_CLAIMS)})")
    parser.add_argument("--workers", type=int, default=None, metavar="N", help="local worker processes (default: the cores)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", metavar="FILE", help="also write the rows, the instances found included, as JSON (- for standard output)")
    parser.set_defaults(run=run)


def _number(value, digits=3) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def run(args) -> int:
    claim_ids = args.claim or list(BOUND_CLAIMS)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in BOUND_CLAIMS]
    if unknown:
        raise UsageError(f"--claim must be a bound claim ({', '.join(BOUND_CLAIMS)}), got {', '.join(unknown)}")
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    rows = map_ordered(tightness, claim_ids, workers=workers,
                       done=lambda index, row: print(f"  {row['claim']}: {_number(row['search_ratio'], 4)} ({row['search_seconds']:.0f} s)",
                                                     file=sys.stderr, flush=True))
    print(_table(rows, args.markdown))
    print(versions.line())
    if args.json:
        outputs.write_text(args.json, json.dumps({"versions": versions.record(), "rows": rows}, indent=2))
    return 0


def _table(rows, markdown: bool) -> str:
    """The tightness table, as text or GFM Markdown."""
    header = ("claim", "ci worst margin", "ci worst margin, t >= 3", "search: best ratio", "at t", "best constant",
              "search / best")
    cells = [(row["claim"], _number(row["worst_margin"]), _number(row["worst_settled_margin"]), _number(row["search_ratio"], 4),
              str(row["search_t"]), f"{_number(row['best_constant'], 4)}: {row['best_constant_is']}",
              _number(row["share_of_best"])) for row in rows]
    if markdown:
        return ("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n"
                + "\n".join("| " + " | ".join(c.replace("|", "\\|") for c in cell) + " |" for cell in cells))   # GFM: pipes escaped
    widths = [max(len(header[i]), *(len(cell[i]) for cell in cells)) for i in range(len(header))]
    return ("  ".join(f"{h:{w}s}" for h, w in zip(header, widths)).rstrip() + "\n"
            + "\n".join("  ".join(f"{c:{w}s}" for c, w in zip(cell, widths)).rstrip() for cell in cells))
