"""The plug-in protocol: what an implementation under test offers, declares and returns.

An implementation is any module or object (or mapping) offering some of ``onorma``, ``monorma``,
``batch_ridge`` with ovk_ref's signatures::

    onorma(X, Y, kernel, *, lam, eta, loss, truncation=None)
    monorma(X, Y, kernels, *, lam, eta, r, loss)
    batch_ridge(X, Y, kernel, *, lam)

and, optionally, ``conformance_scope``: the scope it declares (a dict, or a function of no argument returning
one; ``scope.py`` says what it holds), read before it is given any case. Without one, it declares every
case of the algorithms it offers. ``X``, ``Y`` are float64 arrays; kernels and losses arrive as portable dicts
(``ovk_ref.kernels.portable``, ``ovk_ref.losses.as_loss``); ``truncation`` as None, an int window ``s`` or a
callable ``t -> s_t`` (``ovk_ref.truncation``: Theorem 2's schedule, or ``ListedSchedule``: one ``s_t`` per round).
``onorma``/``monorma`` return, as attributes or keys, at least ``predictions`` (and ``weights`` for MONORMA);
``batch_ridge`` returns the t x d coefficient array. Any other field of ``ovk_ref.records`` that is returned
(``coefficients``, ``new_coefficients``, ``rkhs_norm2``, ``gamma``, ...) is checked too.

This module uses the standard library only (and ``ovk_ref.truncation`` for a truncated case): the worker process
(``worker.py``) loads it beside the implementation without loading the rest of the oracle.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

#: the protocol's name, in every request file
PROTOCOL = "ovk-conform-1"
#: the functions an implementation may offer
ALGORITHMS = ("onorma", "monorma", "batch_ridge")
# The field lists below are those ovk_conform.vectors derives from ovk_ref.records, written out because this module
# uses the standard library only (the worker process loads it beside the implementation, which may bring its own
# ovk_ref); tests/conformance/test_conformance_vectors.py checks that they agree.
#: fields with one row per round t (row t-1), in the order divergences are reported
ROUND_FIELDS = {
    "onorma": ("predictions", "new_coefficients", "rkhs_norm2", "kernel_evaluations", "support_sizes"),
    "monorma": ("predictions", "weights", "gamma", "new_coefficients", "kernel_evaluations"),
    "batch_ridge": (),
}
#: fields describing the final state, one row per coefficient index i
FINAL_FIELDS = {"onorma": ("coefficients",), "monorma": ("coefficients",), "batch_ridge": ("coefficients",)}
#: what every implementation must return (the rest is checked when returned)
REQUIRED_FIELDS = {"onorma": ("predictions",), "monorma": ("predictions", "weights"), "batch_ridge": ("coefficients",)}
#: integer counts, compared exactly
EXACT_FIELDS = ("kernel_evaluations", "support_sizes")
#: the attribute (or key) holding an implementation's declared scope
SCOPE_ATTRIBUTE = "conformance_scope"


def load_implementation(spec: str):
    """``"package.module"`` or ``"package.module:path"`` -> the object; ``path`` is dotted attributes or mapping keys."""
    if not isinstance(spec, str) or not spec or spec.count(":") > 1:
        raise ValueError(f"implementation must be 'MODULE' or 'MODULE:ATTR', got {spec!r}")
    module_name, _, attribute = spec.partition(":")
    try:
        implementation = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"implementation module {module_name!r} cannot be imported: {error}") from None
    for part in filter(None, attribute.split(".")):
        if isinstance(implementation, Mapping) and part in implementation:
            implementation = implementation[part]
        elif hasattr(implementation, part):
            implementation = getattr(implementation, part)
        else:
            raise ValueError(f"implementation {spec!r}: {module_name!r} has no attribute path {attribute!r}")
    return implementation


def _member(container, name):
    if isinstance(container, Mapping):
        return container.get(name)
    return getattr(container, name, None)


def offered(implementation) -> dict:
    """``{algorithm: function}`` for the algorithms the implementation offers (callable members)."""
    functions = {name: _member(implementation, name) for name in ALGORITHMS}
    return {name: function for name, function in functions.items() if callable(function)}


def declared_scope(implementation):
    """The implementation's ``conformance_scope`` (called when it is a function), or None when it declares none."""
    scope = _member(implementation, SCOPE_ATTRIBUTE)
    return scope() if callable(scope) else scope


def result_field(algorithm: str, result, name: str):
    """Field ``name`` of a result (attribute or key), or None when absent; batch_ridge returns the array itself."""
    if algorithm == "batch_ridge":
        inner = _member(result, "coefficients") if isinstance(result, Mapping) or hasattr(result, "coefficients") else None
        return result if inner is None else inner
    return _member(result, name)


def implementation_name(implementation) -> str:
    return getattr(implementation, "__name__", None) or type(implementation).__name__


def truncation_argument(spec, rounds: int | None = None):
    """The ``truncation`` argument for a portable truncation dict of a case (None when absent): the schedule of
    ``ovk_ref.truncation.from_dict`` (checked against the stream's ``rounds``, when given) as implementations take
    it: ``s`` for a window, the callable schedule otherwise (``Theorem2Schedule``, ``ListedSchedule``)."""
    if spec is None:
        return None
    from ovk_ref import truncation  # the one truncation format (the worker loads ovk_ref only for a truncated case)
    return truncation.from_dict(spec, rounds).argument()


def call_arguments(arguments: dict, rounds: int | None = None) -> dict:
    """Keyword arguments for the implementation from a case's stored arguments (truncation turned into ``s`` or
    a callable; a listed schedule checked against the stream's ``rounds``)."""
    arguments = dict(arguments)
    if "truncation" in arguments:
        arguments["truncation"] = truncation_argument(arguments["truncation"], rounds)
    return arguments
