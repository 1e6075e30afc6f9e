"""Kernels as plain JSON-able dicts, so other implementations and stored cases can name them.

Forms::

    {"type": "gaussian_separable", "mu": 1.0, "B": [[...]]}
    {"type": "linear_separable", "B": [[...]]}
    {"type": "polynomial_separable", "degree": 2, "offset": 1.0, "B": [[...]]}
    {"type": "constant_separable", "c": 1.0, "B": [[...]]}
    {"type": "linear_quadratic", "mu": 0.2, "d": 4}
    {"type": "feature", "M": [...]}                      # shape (p + 1, d, q)
    {"type": "sum", "terms": [{"weight": w, "kernel": {...}}, ...]}

The families are declared by the kernels themselves (``family_names``): a separable family per scalar kernel of
``SCALAR_KERNELS`` (its fields and ``B``), and the families of ``OPERATOR_FAMILIES``; each says its fields
(``family_fields``: the JSON Schema of each, and which are required). A dict of any other ``"type"`` is refused here,
naming the known ones.
"""
from __future__ import annotations

from ovk_ref import validation
from ovk_ref.kernels.base import OperatorKernel
from ovk_ref.kernels.feature import Feature
from ovk_ref.kernels.linear_quadratic import LinearQuadratic
from ovk_ref.kernels.scalar import SCALAR_KERNELS
from ovk_ref.kernels.separable import Separable
from ovk_ref.kernels.weighted_sum import WeightedSum

#: deepest nesting of 'sum' kernel dicts accepted: far beyond any useful kernel, far below Python's recursion limit
MAX_DEPTH = 32
SEPARABLE = "_separable"
#: the families that are not separable, by their ``family``
OPERATOR_FAMILIES = {cls.family: cls for cls in (LinearQuadratic, Feature, WeightedSum)}


def family_names() -> tuple:
    """Every kernel family (a portable dict's ``"type"``), in the order the schemas and the conformance scope list
    them: the separable family of each scalar kernel, then the others."""
    return (*(name + SEPARABLE for name in SCALAR_KERNELS), *OPERATOR_FAMILIES)


def scalar_of(family: str):
    """The scalar kernel class of a separable family, None for another family."""
    return SCALAR_KERNELS.get(family[: -len(SEPARABLE)]) if family.endswith(SEPARABLE) else None


def family_fields(family: str) -> tuple[dict, tuple]:
    """``(field -> JSON Schema, required fields)`` of a family's portable dict (besides ``"type"``)."""
    scalar = scalar_of(family)
    if scalar is not None:
        return {**scalar.fields, **Separable.fields}, (*scalar.required(), *Separable.fields)
    if family not in OPERATOR_FAMILIES:
        raise ValueError(f"unknown kernel type {family!r}; known types: {', '.join(sorted(family_names()))}")
    fields = OPERATOR_FAMILIES[family].fields
    return fields, tuple(fields)


def _fields(spec: dict, required: set, optional: set = frozenset()) -> dict:
    kind = spec["type"]
    missing = required - spec.keys()
    if missing:
        raise ValueError(f"kernel dict of type {kind!r} is missing the field(s) {sorted(missing)}")
    unknown = spec.keys() - required - optional - {"type"}
    if unknown:
        raise ValueError(f"kernel dict of type {kind!r} has unknown field(s) {sorted(map(validation.shown, unknown))}")
    return {key: spec[key] for key in spec.keys() - {"type"}}


def kernel_from_dict(spec) -> OperatorKernel:
    """Build a kernel from its portable dict; ValueError/TypeError naming the field on a malformed dict
    (nested 'sum' dicts deeper than MAX_DEPTH and dicts that contain themselves included)."""
    return _from_dict(spec, "kernel", ())


def _from_dict(spec, where: str, enclosing: tuple) -> OperatorKernel:
    """``where`` is the field's path (``kernel.terms[0].kernel``); ``enclosing`` the ids of the dicts above it."""
    if not isinstance(spec, dict):
        raise TypeError(f"{where} must be an OperatorKernel or a dict, got {type(spec).__name__}")
    if id(spec) in enclosing:
        raise ValueError(f"{where} is a kernel dict that contains itself (a cycle)")
    if len(enclosing) >= MAX_DEPTH:
        raise ValueError(f"kernel dicts must not nest more than MAX_DEPTH = {MAX_DEPTH} deep; {where} is deeper")
    kind = spec.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"{where} dict must have a string field 'type', got {type(kind).__name__} {validation.shown(kind)}")
    try:
        return _build(spec, kind, where, enclosing + (id(spec),))
    except (ValueError, TypeError) as error:
        if str(error).startswith(("kernel.", "kernel dicts")):   # already names its path
            raise
        raise type(error)(f"{where}: {error}") from None


def _build(spec: dict, kind: str, where: str, enclosing: tuple) -> OperatorKernel:
    schemas, required = family_fields(kind)
    fields = _fields(spec, set(required), set(schemas) - set(required))
    scalar = scalar_of(kind)
    if scalar is not None:
        B = fields.pop("B")
        return Separable(scalar(**fields), B)
    if kind != "sum":
        return OPERATOR_FAMILIES[kind](**fields)
    terms = fields["terms"]
    if not isinstance(terms, list):
        raise ValueError("kernel dict of type 'sum' must have a list field 'terms'")
    pairs = []
    for index, term in enumerate(terms):
        if not (isinstance(term, dict) and term.keys() == {"weight", "kernel"}):
            raise ValueError(f"terms[{index}] of a 'sum' kernel dict must be {{'weight': w, 'kernel': {{...}}}}, "
                             f"got {validation.shown(term)}")
        pairs.append((term["weight"], _from_dict(term["kernel"], f"{where}.terms[{index}].kernel", enclosing)))
    return WeightedSum(pairs)


def as_kernel(kernel) -> OperatorKernel:
    """``kernel`` itself if it is an OperatorKernel, else the kernel its portable dict describes."""
    return kernel if isinstance(kernel, OperatorKernel) else kernel_from_dict(kernel)
