"""Display helpers shared by the walkthrough notebooks (not a notebook itself).

In Jupyter (the HTML render) Markdown and formulas are rendered; run as a plain script
(the test suite, ``MPLBACKEND=Agg``) the same text is printed, so every notebook runs without Jupyter.
"""
from __future__ import annotations

import sympy as sp


def _display_markdown(text: str) -> bool:
    """Display ``text`` as Markdown when running inside an IPython kernel; False otherwise."""
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        return False
    if get_ipython() is None:
        return False
    display(Markdown(text))
    return True


def show(text: str) -> None:
    """Markdown in a notebook, plain text in a script."""
    if not _display_markdown(text):
        print(text)


def show_formula(left: str, expression, symbol_names=None) -> None:
    """``left = expression`` as a LaTeX formula (``expression`` a sympy expression or LaTeX string).

    ``symbol_names`` maps sympy symbols to their LaTeX, e.g. ``{lam: "\\\\lambda"}`` for a symbol named ``lam``.
    """
    body = expression if isinstance(expression, str) else sp.latex(expression, symbol_names=symbol_names or {})
    show(f"$${left} = {body}$$")


def show_table(header, rows) -> None:
    """A Markdown table of ``rows`` (sequences of cells) under ``header``."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    show("\n".join(lines))
