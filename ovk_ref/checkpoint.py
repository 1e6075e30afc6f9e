"""Checkpoint and resume: a learner's whole state as a portable JSON file.

``save_learner(learner, path)`` writes ONORMA or MONORMA (parameters and state); ``load_learner(path)``
rebuilds it, and the resumed learner continues exactly as the uninterrupted one would, bit for bit.
The file::

    {"format": "ovk-learner-checkpoint", "version": 1, "algorithm": "ONORMA" | "MONORMA",
     "parameters": {...}, "state": {...}, "sha256": "<digest of the three fields above and the version>"}

The state holds every field of the learner's state class (``ovk_ref.learner_state``), each written as its
``Form`` says. Numbers of the state are strings: ``float.hex`` in float64, decimal strings with enough digits to give back
every bit at ``precision`` digits (mpmath). Kernels and losses are in their portable dict forms
(``ovk_ref.kernels.portable``), truncation in its portable form (``ovk_ref.truncation``: a window, Theorem 2's
schedule or a listed one). A file that is not such a checkpoint, has another
version, or whose content does not match its digest, is refused with a ValueError before anything is built.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import mpmath
import numpy as np

from ovk_ref import atomic_file, truncation, validation
from ovk_ref.kernels import kernel_from_dict
from ovk_ref.learner_state import Form
from ovk_ref.monorma import MONORMA
from ovk_ref.onorma import ONORMA

FORMAT = "ovk-learner-checkpoint"
VERSION = 1


# --- numbers -----------------------------------------------------------------------------------------

def _number_to_text(value, precision) -> str:
    if precision is None:
        return float(value).hex()
    # ceil(prec log10 2) + 1 decimal digits give every bit back (prec_to_dps is about prec log10 2 - 1)
    digits = mpmath.libmp.prec_to_dps(mpmath.mp.prec) + 5
    return mpmath.libmp.to_str(mpmath.mpf(value)._mpf_, digits)


def _text_to_number(text, precision, where: str):
    if not isinstance(text, str):
        raise ValueError(f"checkpoint field {where} must be a number written as a string, got {validation.shown(text)}")
    try:
        return float.fromhex(text) if precision is None else mpmath.mpf(text)
    except (ValueError, TypeError):
        raise ValueError(f"checkpoint field {where} is not a number: {validation.shown(text)}") from None


def _encode(values, precision):
    """Nested lists of number strings for an array (or None)."""
    if values is None:
        return None
    array = np.asarray(values, dtype=object if precision is not None else float)
    return np.vectorize(lambda v: _number_to_text(v, precision), otypes=[object])(array).tolist() if array.ndim \
        else _number_to_text(array.item(), precision)


def _decode(values, shape: tuple, precision, where: str):
    """The array (or number, for ``shape == ()``) that ``_encode`` wrote, checked to have ``shape``."""
    array = np.asarray(values, dtype=object)
    if array.shape != shape:
        raise ValueError(f"checkpoint field {where} must have shape {shape}, got {array.shape}")
    numbers = [_text_to_number(text, precision, where) for text in array.flat]
    if not shape:
        return numbers[0]
    return np.array(numbers, dtype=object if precision is not None else float).reshape(shape)


# --- parameters ----------------------------------------------------------------------------------------

def _portable_kernel(kernel, name: str) -> dict:
    spec = kernel.to_dict()
    rebuilt = kernel_from_dict(spec)
    if type(rebuilt) is not type(kernel):
        raise TypeError(f"{name} of type {type(kernel).__name__} cannot be saved: its to_dict() rebuilds a "
                        f"{type(rebuilt).__name__}")
    return spec


def _truncation_to_dict(schedule):
    try:
        return truncation.to_dict(schedule)
    except TypeError as error:
        raise TypeError(f"{error}: this learner cannot be saved") from None


def _truncation_from_dict(spec, where: str):
    return truncation.from_dict(spec, where=f"checkpoint field {where}")


def _onorma_parameters(learner) -> dict:
    return {"kernel": _portable_kernel(learner.kernel, "kernel"), "truncation": _truncation_to_dict(learner.schedule)}


def _monorma_parameters(learner) -> dict:
    return {"kernels": [_portable_kernel(kernel, f"kernels[{j}]") for j, kernel in enumerate(learner.kernels)],
            "r": learner.r.hex(), "all_zero": learner.all_zero}


#: per algorithm: its class, and its own parameters in portable form (beside those of ``OnlineLearner``)
ALGORITHMS = {"ONORMA": (ONORMA, _onorma_parameters), "MONORMA": (MONORMA, _monorma_parameters)}


def _float_from_hex(text, where: str):
    return None if text is None else _text_to_number(text, None, where)


#: how a saved parameter becomes the constructor's argument again (the others are passed as they are)
ARGUMENTS = {"lam": _float_from_hex, "eta": _float_from_hex, "r": _float_from_hex, "divergence_bound": _float_from_hex,
             "truncation": _truncation_from_dict}


def _parameters(learner) -> dict:
    common = {"lam": learner.lam.hex(), "eta": learner.eta.hex(), "loss": learner.loss.to_dict(),
              "precision": learner.num.precision, "on_divergence": learner.on_divergence,
              "divergence_bound": None if learner.divergence_bound is None else learner.divergence_bound.hex()}
    return {**ALGORITHMS[learner.algorithm][1](learner), **common}


def _build(algorithm: str, parameters: dict):
    """A fresh learner from the saved parameters (every parameter checked again by its constructor)."""
    if not isinstance(parameters, dict):
        raise ValueError("checkpoint field parameters must be a dict")
    arguments = {name: ARGUMENTS[name](value, f"parameters.{name}") if name in ARGUMENTS else value
                 for name, value in parameters.items()}
    return ALGORITHMS[algorithm][0](**arguments)


# --- state: every field of the learner's state class, written and read by its Form (ovk_ref.learner_state) ----

def _encode_field(value, form: Form, precision):
    if value is None or form.kind == "count":
        return value if value is None else int(value)
    if form.kind == "rounds":
        return [int(i) for i in value]
    if form.kind == "terms":
        return [_encode(term, precision) for term in value]
    return _encode(value, precision)


def _state(learner) -> dict:
    with learner.num.context():
        return {field.name: _encode_field(getattr(learner.state, field.name), field.metadata["form"],
                                          learner.num.precision) for field in dataclasses.fields(learner.state)}


def _shape(form: Form, sizes: dict, where: str) -> tuple:
    for name in form.shape:
        if sizes.get(name) is None:
            raise ValueError(f"checkpoint field state.{name} must be set once {where} holds values")
    return tuple(sizes[name] for name in form.shape)


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"checkpoint field {where} must be a list, got {validation.shown(value)}")
    return value


def _decode_field(value, form: Form, sizes: dict, precision, where: str):
    if value is None and form.optional:
        return None
    if form.kind == "count":
        return validation.integer(f"checkpoint field {where}", value, minimum=form.minimum)
    if form.kind == "rounds":
        return tuple(validation.integer(f"checkpoint field {where}", i, minimum=form.minimum)
                     for i in _list(value, where))
    if form.kind == "terms":
        return tuple(_decode(term, _shape(form, sizes, where), precision, f"{where}[{i}]")
                     for i, term in enumerate(_list(value, where)))
    return _decode(value, _shape(form, sizes, where), precision, where)


def _restore(learner, saved) -> None:
    """Set the saved state on the fresh ``learner``: each field of its state class decoded by its form, the
    arrays' sizes checked against the learner's (and the state's ``p``), then the fields checked together."""
    if not isinstance(saved, dict):
        raise ValueError("checkpoint field state must be a dict")
    values = {}
    with learner.num.context():
        for field in dataclasses.fields(learner.state):
            values[field.name] = _decode_field(saved.get(field.name), field.metadata["form"],
                                               {**learner.sizes(), **values}, learner.num.precision,
                                               f"state.{field.name}")
    state = type(learner.state)(**values)
    state.check()
    if learner.p is not None and state.p != learner.p:
        raise ValueError(f"checkpoint field state.p must be the kernel's input dimension {learner.p}, "
                         f"got {validation.shown(state.p)}")
    learner.state = state


# --- file ----------------------------------------------------------------------------------------------

def _digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def learner_to_json(learner) -> str:
    """The checkpoint of ``learner`` (ONORMA or MONORMA) as JSON text."""
    if not isinstance(learner, (ONORMA, MONORMA)):
        raise TypeError(f"learner must be an ovk_ref.ONORMA or ovk_ref.MONORMA, got {type(learner).__name__}")
    body = {"format": FORMAT, "version": VERSION, "algorithm": learner.algorithm,
            "parameters": _parameters(learner), "state": _state(learner)}
    return json.dumps({**body, "sha256": _digest(body)}, indent=1) + "\n"


def learner_from_json(text: str):
    """The learner a checkpoint's JSON text describes; ValueError on anything else."""
    try:
        content = json.loads(text)
    except (TypeError, ValueError) as error:
        raise ValueError(f"not an ovk learner checkpoint: not JSON ({error})") from None
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise ValueError(f"not an ovk learner checkpoint: its 'format' field is not {FORMAT!r}")
    if content.get("version") != VERSION:
        raise ValueError(f"checkpoint format version {validation.shown(content.get('version'))} is not the version {VERSION} "
                         "this ovk reads")
    body = {key: value for key, value in content.items() if key != "sha256"}
    if set(body) != {"format", "version", "algorithm", "parameters", "state"} or content.get("sha256") != _digest(body):
        raise ValueError("corrupt ovk learner checkpoint: its content does not match its sha256 digest")
    if body["algorithm"] not in ALGORITHMS:
        raise ValueError(f"checkpoint field algorithm must be one of {sorted(ALGORITHMS)}, got {validation.shown(body['algorithm'])}")
    try:
        learner = _build(body["algorithm"], body["parameters"])
        _restore(learner, body["state"])
    except (TypeError, ValueError) as error:   # a matching digest over ill-formed fields: not a checkpoint we wrote
        raise ValueError(f"invalid ovk learner checkpoint: {error}") from None
    return learner


def save_learner(learner, path) -> None:
    """Write the checkpoint of ``learner`` to ``path`` atomically (``atomic_file``: an interrupted or failed save
    keeps the old file; an I/O error is an ``OutputError``, an ``OSError`` naming the path)."""
    atomic_file.write_text(path, learner_to_json(learner))


def load_learner(path):
    """The learner saved in ``path`` by ``save_learner``, ready to ``learn_one`` where it stopped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"not an ovk learner checkpoint: {path} is not UTF-8 text") from None
    return learner_from_json(text)
