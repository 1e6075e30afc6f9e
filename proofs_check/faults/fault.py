"""What a planted fault is: one plausible bug, planted in the code it would live in (shared code, not a copy).

A ``Fault`` has a name, a layer (``LAYERS``: the step of the algorithm or the part of the library it breaks), a
one-line reason (why a careful programmer could write it) and patches: each replaces one attribute (a method of a
class of ``ovk_ref``, or a function of a module) by ``make(original)``. ``fault.applied()`` is a context manager
that plants it, with ``unittest.mock.patch``, everywhere the code is bound in this process (a module function
imported elsewhere under another name included), so that every caller sees it: ``ovk_ref.onorma`` and every check
that reuses the same code. That is the point: a check that computes its side with the faulty code is blind to the
fault, and only a check with an independent side (a closed form, the spec's formula written out) can see it.

``fault.implementation(algorithms)`` is the other way to run a learner fault: an implementation object (``onorma``/
``monorma`` with ovk_ref's signatures) whose learner classes carry the fault, nothing patched globally
(``proofs_check.mutants.MUTANTS``, which the conformance oracle runs next to the reference in one process).

Values computed through patched code and cached (``constants._kappa2``, the kappa^2 of a kernel, and
``constants._kappa2_ceiling``, the float an instance carries) are forgotten when
a fault is planted and when it is removed, so that no fault outlives its block.
"""
from __future__ import annotations

import contextlib
import importlib
import sys
import types
from dataclasses import dataclass
from typing import Callable
from unittest import mock

import ovk_ref

#: the parts of the library a fault can break, with where they live
LAYERS = {
    "step size": "eta_t = eta / sqrt(t) (OnlineLearner.step_size)",
    "shrink": "c_t = 1 - eta_t lam (OnlineLearner.shrink_factor)",
    "new coefficient": "alpha_{t,t} = -eta_t u_t (OnlineLearner.new_coefficient)",
    "evaluation": "f(x) = sum_i K(x, x_i) alpha_i (ONORMA, ovk_ref.rkhs.evaluate)",
    "truncation": "the window s_t, Theorem 2's schedule and the removal policies (ovk_ref.truncation, ONORMA._remove)",
    "norm recursion": "ONORMA's tracked ||f_t||^2: the update of spec 6.2 and the downdate of 6.5 (ONORMA.norm_update, "
                      "ONORMA.norm_downdate)",
    "MONORMA weights": "the gamma recursion, the delta update, the all-zero round, the prediction (MONORMA)",
    "kernel": "kernel values and parameters, every family of spec 3 (ovk_ref.kernels)",
    "loss": "loss values and (sub)gradients, every loss of spec 4 (ovk_ref.losses)",
    "batch": "the batch solver (G + t lam I) c = vec(Y) (ovk_ref.batch)",
    "RKHS norm": "||f||_H^2 = vec(A)^T G vec(A) (ovk_ref.rkhs.rkhs_norm2)",
    "checks": "the checks' own code: the constants U, a, b, the comparators min R_reg, the bound formulas and the rule "
              "that decides a violation (proofs_check)",
}

#: the packages whose modules may bind a patched function (a fault is planted in every one of them)
PROJECT_PACKAGES = ("ovk_ref", "proofs_check", "ovk_fast", "ovk_experiments", "ovk_conform", "ovk_cli")


def _forget_cached_values() -> None:
    """Values remembered from code a fault may patch: the kappa^2 of a kernel (computed with its ``__call__``) and the
    float read off it."""
    from proofs_check import constants
    constants.forget_kappa2()


@dataclass(frozen=True)
class Patch:
    """``owner.name`` replaced by ``make(original)``: ``owner`` a class of ovk_ref, a module or a module's dotted name."""

    owner: object
    name: str
    make: Callable

    @property
    def resolved(self):
        """The owner; a module named by its dotted name (a module of the checks, which import the faults) is imported
        here, when the fault is planted or recorded."""
        return importlib.import_module(self.owner) if isinstance(self.owner, str) else self.owner

    @property
    def target(self) -> str:
        """The dotted name of the patched code, e.g. ``ovk_ref.kernels.scalar.Gaussian.__call__``."""
        if isinstance(self.owner, str):
            return f"{self.owner}.{self.name}"
        owner = self.owner.__name__ if isinstance(self.owner, types.ModuleType) else \
            f"{self.owner.__module__}.{self.owner.__qualname__}"
        return f"{owner}.{self.name}"

    def original(self):
        return getattr(self.resolved, self.name)

    def bindings(self) -> list:
        """``(owner, attribute)`` pairs to replace: the attribute itself and, for a module function, every attribute of
        a project module that is the same function (``from ovk_ref.batch import batch_ridge``, aliases included)."""
        owner = self.resolved
        if not isinstance(owner, types.ModuleType):
            return [(owner, self.name)]
        original = self.original()
        found = [(owner, self.name)]
        for module_name, module in list(sys.modules.items()):
            if module is owner or module is None or not module_name.startswith(PROJECT_PACKAGES):
                continue
            found += [(module, attribute) for attribute, value in list(vars(module).items()) if value is original]
        return found


@dataclass(frozen=True)
class Fault:
    name: str
    layer: str
    reason: str
    patches: tuple

    def __post_init__(self):
        if self.layer not in LAYERS:
            raise ValueError(f"layer must be one of {sorted(LAYERS)}, got {self.layer!r} ({self.name})")
        if not self.patches:
            raise ValueError(f"a fault patches some code ({self.name})")

    @property
    def targets(self) -> tuple:
        return tuple(patch.target for patch in self.patches)

    @contextlib.contextmanager
    def applied(self):
        """Plant the fault in this process for the duration of the block (every binding of the patched code)."""
        with contextlib.ExitStack() as stack:
            _forget_cached_values()
            stack.callback(_forget_cached_values)
            for patch in self.patches:
                replacement = patch.make(patch.original())
                for owner, attribute in patch.bindings():
                    stack.enter_context(mock.patch.object(owner, attribute, replacement))
            yield self

    def implementation(self, algorithms=("onorma", "monorma")):
        """``onorma``/``monorma`` (those of ``algorithms``, and their ``_prefixes``: ``ovk_ref.run_prefixes``) running
        learner classes that carry the fault: subclasses of
        ``ovk_ref.ONORMA``/``MONORMA`` with the patched methods, nothing changed for any other caller. Only for faults
        whose every patch is a method of a learner class."""
        learners = {"onorma": ovk_ref.ONORMA, "monorma": ovk_ref.MONORMA}
        functions = {}
        for algorithm in algorithms:
            base = learners[algorithm]
            methods = {}
            for patch in self.patches:
                if not (isinstance(patch.owner, type) and issubclass(base, patch.owner)):
                    raise TypeError(f"fault {self.name} patches {patch.target}, not a method of {base.__name__}")
                methods[patch.name] = patch.make(getattr(base, patch.name))
            learner_class = type(f"{base.__name__}_{self.name}", (base,), methods)
            functions[algorithm] = _RUNNERS[algorithm](learner_class, ovk_ref.run_stream)
            functions[f"{algorithm}_prefixes"] = _RUNNERS[algorithm](learner_class, ovk_ref.run_prefixes)
        return types.SimpleNamespace(**functions)


def _onorma_runner(learner_class, run):
    def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
        learner = learner_class(kernel, lam=lam, eta=eta, loss=loss, truncation=truncation, precision=precision)
        return run(learner, X, Y)
    return onorma


def _monorma_runner(learner_class, run):
    def monorma(X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None):
        learner = learner_class(kernels, lam=lam, eta=eta, r=r, loss=loss, all_zero=all_zero, precision=precision)
        return run(learner, X, Y)
    return monorma


_RUNNERS = {"onorma": _onorma_runner, "monorma": _monorma_runner}


@contextlib.contextmanager
def recording(faults):
    """While the block runs, record which faults' patched code runs (``touched``, a set of fault names): the code
    is wrapped, not changed. A fault is in scope of a claim when its code runs during the claim's search."""
    touched = set()
    by_target = {}
    for fault in faults:
        for patch in fault.patches:
            by_target.setdefault((id(patch.resolved), patch.name), (patch, []))[1].append(fault.name)
    # a base class's method is wrapped before a subclass's override of it, so that the override's wrapper calls the
    # base's wrapper and both record
    ordered = sorted(by_target.values(), key=lambda pair: len(getattr(pair[0].resolved, "__mro__", ())))
    with contextlib.ExitStack() as stack:
        for patch, names in ordered:
            wrapper = _recorder(patch.original(), names, touched)
            for owner, attribute in patch.bindings():
                stack.enter_context(mock.patch.object(owner, attribute, wrapper))
        yield touched


def _recorder(original, names, touched):
    def recorded(*args, **kwargs):
        touched.update(names)
        return original(*args, **kwargs)
    return recorded
