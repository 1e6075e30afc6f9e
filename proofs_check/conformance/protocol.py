"""The plug-in protocol (issue 4, item 2): what an implementation under test offers and returns.

An implementation is any module or object (or mapping) offering some of ``onorma``, ``monorma``,
``batch_ridge`` with ovk_ref's signatures::

    onorma(X, Y, kernel, *, lam, eta, loss, truncation=None)
    monorma(X, Y, kernels, *, lam, eta, r, loss)
    batch_ridge(X, Y, kernel, *, lam)

``X``, ``Y`` are float64 arrays; kernels and losses arrive as portable dicts (``ovk_ref.kernels.portable``,
``ovk_ref.losses.as_loss``); ``truncation`` as None, an int window ``s`` or a callable ``t -> s_t``.
``onorma``/``monorma`` return, as attributes or keys, at least ``predictions`` (and ``weights`` for
MONORMA); ``batch_ridge`` returns the t x d coefficient array. Any other field of ``ovk_ref.records``
that is returned (``coefficients``, ``new_coefficients``, ``rkhs_norm2``, ``gamma``, ...) is checked too.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

from proofs_check.conformance.vectors import ALGORITHMS


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


def result_field(algorithm: str, result, name: str):
    """Field ``name`` of a result (attribute or key), or None when absent; batch_ridge returns the array itself."""
    if algorithm == "batch_ridge":
        inner = _member(result, "coefficients") if isinstance(result, Mapping) or hasattr(result, "coefficients") else None
        return result if inner is None else inner
    return _member(result, name)


def implementation_name(implementation) -> str:
    return getattr(implementation, "__name__", None) or type(implementation).__name__
