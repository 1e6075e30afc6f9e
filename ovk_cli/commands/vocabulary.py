"""``ovk-check vocabulary``: the kernel families, losses and truncation kinds, each with its portable dict's fields,
as ovk_ref defines them (``ovk_conform.vocabulary``: the same lists the conformance scope, its JSON Schemas and
the fresh cases use); docs/conformance.md pastes its Markdown."""
from __future__ import annotations

import inspect
import re

from ovk_conform import vocabulary
from ovk_fast.kernel_rows import vectorised
from ovk_ref import truncation
from ovk_ref.kernels import portable
from ovk_ref.kernels.scalar import SCALAR_KERNELS
from ovk_ref.losses import LOSSES


def register(subparsers) -> None:
    parser = subparsers.add_parser("vocabulary", help="the kernel families, losses and truncation kinds, with their "
                                   "fields (the values of a conformance scope)")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.set_defaults(run=run)


def _fields(schemas: dict, required) -> str:
    names = [name if name in required else f"{name} (optional)" for name in schemas]
    return ", ".join(names) or "-"


def _summary(thing) -> str:
    """The first sentence of a class's or a module's docstring, on one line."""
    text = " ".join(inspect.getdoc(thing).split())
    return re.match(r"(.*?\.)(\s|$)", text).group(1)


def kernel_rows() -> list:
    rows = []
    for family in vocabulary.KERNEL_FAMILIES:
        scalar = portable.scalar_of(family)
        kind = scalar if scalar is not None else portable.OPERATOR_FAMILIES[family]
        if scalar is None:
            fast = "its structure (ovk_fast.kernel_rows)" if family != "sum" else "its terms'"
        else:
            fast = "vectorised (the family's own form)" if vectorised(scalar) else "explicit blocks (__call__)"
        described = kind if scalar is not None else inspect.getmodule(kind)   # a kernel's module says what it is
        rows.append((family, _fields(*portable.family_fields(family)), _summary(described), fast))
    return rows


def loss_rows() -> list:
    return [(name, _fields(loss.fields, loss.fields), "one-hot classes" if loss.one_hot_targets else "any", _summary(loss))
            for name, loss in LOSSES.items()]


def truncation_rows() -> list:
    return [(truncation.NONE, "-", "no truncation (the dict is absent or null)")] + [
        (kind, _fields(cls.fields, cls.fields), _summary(cls)) for kind, cls in truncation.KINDS.items()]


TABLES = (("kernel family", "fields", "kernel", "ovk_fast evaluates it by", kernel_rows),
          ("loss", "fields", "targets", "loss", loss_rows),
          ("truncation kind", "fields", "schedule", truncation_rows))


def _markdown(header, rows) -> list:
    escape = lambda cell: str(cell).replace("|", "\\|")   # noqa: E731
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]


def _text(header, rows) -> list:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    return ["  ".join(f"{cell!s:{width}}" for cell, width in zip(row, widths)).rstrip() for row in (header, *rows)]


def run(args) -> int:
    blocks = []
    for *header, rows in TABLES:
        blocks.append("\n".join((_markdown if args.markdown else _text)(header, rows())))
    print("\n\n".join(blocks))
    print(f"\n{len(vocabulary.KERNEL_FAMILIES)} kernel families ({len(SCALAR_KERNELS)} scalar kernels, each "
          f"<name>_separable), {len(LOSSES)} losses, {len(vocabulary.TRUNCATIONS)} truncation kinds")
    return 0
