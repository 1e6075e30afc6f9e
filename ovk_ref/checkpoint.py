"""Checkpoint and resume: a learner's whole state as a portable JSON file (issue 13, item 2).

``save_learner(learner, path)`` writes ONORMA or MONORMA (parameters and state); ``load_learner(path)``
rebuilds it, and the resumed learner continues exactly as the uninterrupted one would, bit for bit.
The file::

    {"format": "ovk-learner-checkpoint", "version": 1, "algorithm": "ONORMA" | "MONORMA",
     "parameters": {...}, "state": {...}, "sha256": "<digest of the three fields above and the version>"}

Numbers of the state are strings: ``float.hex`` in float64, decimal strings with enough digits to give back
every bit at ``precision`` digits (mpmath). Kernels and losses are in their portable dict forms
(``ovk_ref.kernels.portable``), truncation as ``{"type": "window", "s": s}`` or
``{"type": "theorem2", "t0": t0, "epsilon": epsilon}``. A file that is not such a checkpoint, has another
version, or whose content does not match its digest, is refused with a ValueError before anything is built.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import mpmath
import numpy as np

from ovk_ref import atomic_file, validation
from ovk_ref.kernels import kernel_from_dict
from ovk_ref.monorma import MONORMA
from ovk_ref.onorma import ONORMA
from ovk_ref.truncation import FixedWindow, Theorem2Schedule

FORMAT = "ovk-learner-checkpoint"
VERSION = 1
ALGORITHMS = {"ONORMA": ONORMA, "MONORMA": MONORMA}


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
    if schedule is None:
        return None
    if isinstance(schedule, FixedWindow):
        return {"type": "window", "s": schedule.s}
    if isinstance(schedule, Theorem2Schedule):
        return {"type": "theorem2", "t0": schedule.t0, "epsilon": schedule.epsilon}
    raise TypeError(f"truncation {schedule!r} cannot be saved: only None, an int window and "
                    "ovk_ref.theorem2_schedule(t0, epsilon) have a portable form")


def _truncation_from_dict(spec):
    if spec is None:
        return None
    if isinstance(spec, dict) and spec.get("type") == "window" and spec.keys() == {"type", "s"}:
        return FixedWindow(spec["s"])
    if isinstance(spec, dict) and spec.get("type") == "theorem2" and spec.keys() == {"type", "t0", "epsilon"}:
        return Theorem2Schedule(spec["t0"], spec["epsilon"])
    raise ValueError(f"checkpoint field parameters.truncation must be None, a window or a theorem2 dict, got {validation.shown(spec)}")


def _parameters(learner) -> dict:
    common = {"lam": learner.lam.hex(), "eta": learner.eta.hex(), "loss": learner.loss.to_dict(),
              "precision": learner.num.precision, "on_divergence": learner.on_divergence,
              "divergence_bound": None if learner.divergence_bound is None else learner.divergence_bound.hex()}
    if isinstance(learner, ONORMA):
        return {"kernel": _portable_kernel(learner.kernel, "kernel"),
                "truncation": _truncation_to_dict(learner.schedule), **common}
    return {"kernels": [_portable_kernel(kernel, f"kernels[{j}]") for j, kernel in enumerate(learner.kernels)],
            "r": learner.r.hex(), "all_zero": learner.all_zero, **common}


def _build(algorithm: str, parameters: dict):
    """A fresh learner from the saved parameters (every parameter checked again by its constructor)."""
    if not isinstance(parameters, dict):
        raise ValueError("checkpoint field parameters must be a dict")
    values = dict(parameters)
    for name in ("lam", "eta", "r", "divergence_bound"):
        if values.get(name) is not None:
            values[name] = _text_to_number(values[name], None, f"parameters.{name}")
    if algorithm == "ONORMA":
        values["truncation"] = _truncation_from_dict(values.get("truncation"))
    return ALGORITHMS[algorithm](**values)


# --- state ---------------------------------------------------------------------------------------------

def _state(learner) -> dict:
    precision = learner.num.precision
    with learner.num.context():
        state = {"t": learner.t, "p": learner.p, "diverged_at": learner.diverged_at,
                 "centres": [_encode(x, precision) for x in learner.centres],
                 "alphas": [_encode(a, precision) for a in learner.alphas],
                 "last_prediction": _encode(learner.last_prediction, precision),
                 "last_new_coefficient": _encode(learner.last_new_coefficient, precision),
                 "last_kernel_evaluations": int(learner.last_kernel_evaluations)}
        if isinstance(learner, ONORMA):
            state.update(indices=list(learner.indices), norm2=_encode(learner.norm2, precision))
        else:
            state.update(weights=_encode(learner.weights, precision), gamma=_encode(learner.gamma, precision))
    return state


def _integer(state, name, minimum, optional=False):
    value = state.get(name)
    if optional and value is None:
        return None
    return validation.integer(f"checkpoint field state.{name}", value, minimum=minimum)


def _restore(learner, state) -> None:
    """Set the saved state on the fresh ``learner``, after checking that its shapes fit its parameters."""
    if not isinstance(state, dict):
        raise ValueError("checkpoint field state must be a dict")
    precision, d = learner.num.precision, learner.d
    t = _integer(state, "t", 0)
    p = _integer(state, "p", 1, optional=True)
    if learner.p is not None and p != learner.p:
        raise ValueError(f"checkpoint field state.p must be the kernel's input dimension {learner.p}, got {validation.shown(p)}")
    centres, alphas = state.get("centres"), state.get("alphas")
    if not (isinstance(centres, list) and isinstance(alphas, list) and len(centres) == len(alphas) <= t):
        raise ValueError("checkpoint fields state.centres and state.alphas must be lists of the same length, at most t")
    if centres and p is None:
        raise ValueError("checkpoint field state.p must be set once examples are stored")
    restored = {"t": t, "p": p, "diverged_at": _integer(state, "diverged_at", 1, optional=True),
                "last_kernel_evaluations": _integer(state, "last_kernel_evaluations", 0)}
    with learner.num.context():
        restored["centres"] = [_decode(x, (p,), precision, f"state.centres[{i}]") for i, x in enumerate(centres)]
        restored["alphas"] = [_decode(a, (d,), precision, f"state.alphas[{i}]") for i, a in enumerate(alphas)]
        for name in ("last_prediction", "last_new_coefficient"):
            restored[name] = None if t == 0 else _decode(state.get(name), (d,), precision, f"state.{name}")
        if isinstance(learner, ONORMA):
            indices = state.get("indices")
            if not (isinstance(indices, list) and len(indices) == len(alphas)
                    and all(isinstance(i, int) and not isinstance(i, bool) for i in indices)
                    and indices == sorted(set(indices)) and (not indices or (indices[0] >= 1 and indices[-1] == t))):
                raise ValueError("checkpoint field state.indices must be the increasing rounds of the stored terms, "
                                 "the last one t")
            restored["indices"] = indices
            restored["norm2"] = _decode(state.get("norm2"), (), precision, "state.norm2")
        else:
            if len(alphas) != t:
                raise ValueError("checkpoint field state.alphas must hold t coefficients (MONORMA keeps every one)")
            m = len(learner.kernels)
            restored["weights"] = _decode(state.get("weights"), (m,), precision, "state.weights")
            restored["gamma"] = _decode(state.get("gamma"), (m,), precision, "state.gamma")
    learner.__dict__.update(restored)


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
