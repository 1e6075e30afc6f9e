"""The oracle's vocabulary, derived from ovk_ref's definitions: kernel families, losses, truncation kinds.

Each is defined once, on the thing itself (``ovk_ref.kernels.scalar`` and ``ovk_ref.kernels.portable``: the kernel
families; ``ovk_ref.losses``: the losses; ``ovk_ref.truncation``: the truncation kinds). From those come the
declared scope's axes (``scope.py``), what fresh cases draw (``fresh.py``) and the parts of the JSON Schemas that
name them (``schemas/scope.schema.json``: the axes' values; ``schemas/request.schema.json``: each family's, loss's
and kind's fields). ``derived_schemas()`` is what those files must hold: ``python -m tools.regenerate_schemas``
rewrites them, and tests/conformance/test_conformance_vocabulary.py holds the files against it.
"""
from __future__ import annotations

import json
from pathlib import Path

from ovk_ref import truncation
from ovk_ref.kernels import portable
from ovk_ref.losses import LOSSES as LOSS_CLASSES

SCHEMAS = Path(__file__).with_name("schemas")
#: every kernel family (a portable kernel dict's ``"type"``)
KERNEL_FAMILIES = portable.family_names()
#: every loss (a portable loss dict's ``"type"``)
LOSSES = tuple(LOSS_CLASSES)
#: every truncation kind, ``none`` first
TRUNCATIONS = truncation.kind_names()
#: the losses whose targets are one-hot classes
CLASS_LOSSES = tuple(name for name, loss in LOSS_CLASSES.items() if loss.one_hot_targets)


def _variant(name: str, fields: dict, required) -> dict:
    """The schema of one portable dict: ``"type"`` the constant ``name``, ``fields`` and no other."""
    variant = {"properties": {"type": {"const": name}, **fields}}
    if required:
        variant["required"] = list(required)
    variant["additionalProperties"] = False
    return variant


def kernel_variants() -> list:
    """The request schema's ``$defs/kernel``: one variant per kernel family, its fields from the family."""
    return [_variant(name, *portable.family_fields(name)) for name in KERNEL_FAMILIES]


def loss_variants() -> list:
    """The request schema's ``$defs/loss``: the losses without fields in one variant, one per loss with fields."""
    plain = [name for name, loss in LOSS_CLASSES.items() if not loss.fields]
    variants = [{"properties": {"type": {"enum": plain}}, "additionalProperties": False}]
    for name, loss in LOSS_CLASSES.items():
        if loss.fields:
            variants.append(_variant(name, loss.fields, loss.fields))
    return variants


def truncation_variants() -> list:
    """The request schema's ``$defs/truncation``: one variant per truncation kind."""
    return [{"type": "object", "required": ["type", *cls.fields], "additionalProperties": False,
             "properties": {"type": {"const": kind}, **cls.fields}} for kind, cls in truncation.KINDS.items()]


def _enum(values) -> dict:
    return {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(values)}}


def derived_schemas() -> dict:
    """``{file name: schema}`` of the schemas with derived parts, as they must be: the files' hand-written parts,
    their derived parts from the definitions."""
    scope = json.loads((SCHEMAS / "scope.schema.json").read_text())
    scope["$defs"]["kernels"] = _enum(KERNEL_FAMILIES)
    scope["$defs"]["losses"] = _enum(LOSSES)
    scope["properties"]["algorithms"]["properties"]["onorma"]["properties"]["truncations"] = _enum(TRUNCATIONS)
    request = json.loads((SCHEMAS / "request.schema.json").read_text())
    request["$defs"]["kernel"]["oneOf"] = kernel_variants()
    request["$defs"]["loss"]["oneOf"] = loss_variants()
    request["$defs"]["truncation"]["oneOf"] = truncation_variants()
    return {"scope.schema.json": scope, "request.schema.json": request}
