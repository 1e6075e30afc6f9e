"""``ovk-check certify-theorem2``: the smallest t0 that certifies Theorem 2 for each (rho, epsilon) of a grid (spec C21).

For each grid point, ``proofs.theorem2_certificate.smallest_t0``: the certificate ``S_n <= 8 rho sqrt(n)`` for every n
(exact prefix, blocks, proved tail bound; ball arithmetic), t0 = 1 first, then doubling and an exact bisection; and the
closed-form ``t0(rho, epsilon)`` of ``proofs.theorem2_formula`` (which proves Theorem 2 for every (rho, epsilon)),
certified again by the same certifier, with its ratio to the smallest certified t0. Prints the table as Markdown,
writes it as JSON with ``--table FILE`` (nothing is written without it: the package's stored table, which
``ovk-check verify`` reports for ``thm2.exists_t0``, is rewritten only when its path is given), and with
``--plot FILE`` draws t0 against rho (matplotlib, extra ``plots``; the PNG replaced atomically). The points run
in ``--workers`` processes (concurrent.futures). Minutes for the default grid.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

from ovk_cli import outputs
from ovk_cli.errors import UsageError
from ovk_cli.parallel import check_workers, default_workers
from ovk_conform import versions
from proofs_check.proofs import theorem2_certificate as certificate
from proofs_check.proofs import theorem2_formula


def register(subparsers) -> None:
    parser = subparsers.add_parser("certify-theorem2", help="prove Theorem 2's certificate on a grid of (rho, epsilon): the smallest t0 of each")
    parser.add_argument("--rho", nargs="+", default=list(certificate.GRID_RHO), metavar="RHO", help="values of rho = eta lam in (0, 1)")
    parser.add_argument("--epsilon", nargs="+", default=list(certificate.GRID_EPSILON), metavar="EPS", help="values of epsilon in (0, 1/2)")
    parser.add_argument("--table", type=Path, default=None, metavar="FILE",
                        help="also write the table as JSON (default: printed only; the package's stored table is "
                             "proofs_check/proofs/theorem2_certificates.json, rewritten only when given here)")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE", help="also draw t0 against rho (PNG)")
    parser.add_argument("--workers", type=int, default=None, metavar="N", help="processes (default: the machine's cores)")
    parser.set_defaults(run=run)


def _point(pair):
    start = time.perf_counter()
    row = certificate.smallest_t0(*pair)
    formula = theorem2_formula.sufficient_t0(*pair).t0
    return {**row, "formula": formula, "formula_status": certificate.certify(*pair, formula).status,
            "seconds": round(time.perf_counter() - start, 2)}


def markdown(rows) -> str:
    lines = ["| rho | epsilon | t0 (certified) | certificate: N where the tail starts; max S_n/(8 rho sqrt n) "
             "| largest failing t0 found below | why it fails | largest t0 proved to fail | t0(rho, eps), the formula "
             "(certifier's verdict) | formula / certified |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        cert, below = row["certificate"], row["below"]
        t0 = "none found" if row["t0"] is None else f"{row['t0']:,}"
        proved = "-" if cert is None else f"N = {cert['n']:.3g}; {cert['ratio']:.3f}"
        if below is None:
            failing, why = "- (t0 = 1 is the smallest)", ""
        elif below["status"] == "refuted":
            failing, why = f"{below['t0']:,}", f"refuted: S_n > 8 rho sqrt(n) at n = {below['n']:,} (ratio >= {below['ratio']:.5f})"
        else:
            failing, why = f"{below['t0']:,}", f"not certified: the upper bound passes 8 rho sqrt(n) near n = {below['n']:.3g}"
        refuted = row.get("refuted_below")
        proved_failing = "-" if refuted is None else f"{refuted['t0']:,} (n = {refuted['n']:,})"
        ratio = "-" if row["t0"] is None else f"{row['formula'] / row['t0']:.3g}"
        lines.append(f"| {row['rho']} | {row['epsilon']} | {t0} | {proved} | {failing} | {why} | {proved_failing} "
                     f"| {row['formula']:,} ({row['formula_status']}) | {ratio} |")
    return "\n".join(lines)


def _missing_extra() -> str | None:
    """The optional extra the command needs and lacks: ``proofs`` (python-flint: the certificate's arb balls)."""
    try:
        import flint  # noqa: F401
    except ImportError:
        return "proofs"
    return None


def plot(rows, path: Path) -> None:
    """Draw t0 against rho into the PNG ``path``, replaced atomically (``OutputError`` on a full disk, the previous
    PNG whole)."""
    outputs.write_bytes(path, figure_png(rows))


def figure_png(rows) -> bytes:
    """The PNG of t0 against rho."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for epsilon in sorted({row["epsilon"] for row in rows}, key=float):
        points = sorted((float(row["rho"]), row["t0"]) for row in rows if row["epsilon"] == epsilon and row["t0"])
        line, = ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=f"epsilon = {epsilon}")
        failing = [(float(row["rho"]), row["refuted_below"]["t0"]) for row in rows
                   if row["epsilon"] == epsilon and row.get("refuted_below")]
        ax.plot([p[0] for p in failing], [p[1] for p in failing], "x", color=line.get_color(), markersize=8)
    ax.plot([], [], "kx", label="largest t0 proved to fail")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\rho = \eta\lambda$")
    ax.set_ylabel(r"smallest certified $t_0$")
    ax.set_title(r"Theorem 2: $S_n \leq 8\rho\sqrt{n}$ for every $n$, proved (docs/theorem2-certificate.md)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=120)
    plt.close(fig)
    return image.getvalue()


def _checked_inputs(args) -> list:
    """The (rho, epsilon) pairs, every option checked before any work (UsageError: exit 2)."""
    if args.table is not None:
        outputs.check_file("--table", args.table)
    missing = _missing_extra()
    if missing:
        raise UsageError(f"certify-theorem2 needs the optional extra '{missing}' (python-flint): "
                         f'pip install "ovk[{missing}]"')
    if args.plot:
        outputs.check_file("--plot", args.plot)
        try:
            import matplotlib  # noqa: F401  (the figure; optional extra "plots")
        except ImportError:
            raise UsageError('--plot needs the optional extra \'plots\': pip install "ovk[plots]"') from None
    pairs = [(rho, epsilon) for epsilon in args.epsilon for rho in args.rho]
    for rho, epsilon in pairs:   # bad input before any work
        try:
            valid = 0 < Fraction(rho) < 1 and 0 < Fraction(epsilon) < Fraction(1, 2)
        except ValueError:
            valid = False
        if not valid:
            raise UsageError(f"--rho must be decimals in (0, 1) and --epsilon decimals in (0, 1/2), got rho {rho!r}, epsilon {epsilon!r}")
    return pairs


def run(args) -> int:
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    target = args.table
    pairs = _checked_inputs(args)
    start = time.perf_counter()
    if workers == 1:
        rows = [_point(pair) for pair in pairs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            rows = list(pool.map(_point, pairs))
    seconds = time.perf_counter() - start
    table = {"prefix": certificate.PREFIX, "block_growth": str(certificate.BLOCK_GROWTH), "precision_bits": certificate.PRECISION_BITS,
             "seconds": round(seconds, 1), "versions": versions.record(), "rows": rows}
    if target is not None:
        outputs.write_text(target, json.dumps(table, indent=1) + "\n")
    print(markdown(rows))
    written = f"written to {target}" if target is not None else "not written (--table FILE writes it as JSON)"
    print(f"\n{len(rows)} points in {seconds:.1f} s on {workers} workers; {written}")
    print(versions.line())
    if args.plot:
        plot(rows, args.plot)
    return 0
