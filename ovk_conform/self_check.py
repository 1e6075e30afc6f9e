"""The oracle's own sensitivity: a generated family of region-conditional faults, and which level catches each.

Each fault perturbs one step of the plain engine (``plain_engine.py``) by a relative ``EPSILON`` (or one term, or a
float32 solve) -- the step size, the shrink, the new coefficient, the truncation count, MONORMA's weights or gamma,
the batch solve, a kernel's values, a loss's gradient; the shrink factor itself, not ``eta_t lam``, whose relative
change shrinks with eta_t -- and is switched on only where one axis of the envelope
crosses a threshold (``d >= k``, ``p >= k``, ``m >= k``, ``t >= k`` from round k on, ``window >= k``, ``t0 >= k``,
a listed schedule dropping ``>= k`` terms in one round, ``t d >= k``) or where a given kernel family or loss is used.
``faults()`` generates them (thresholds spread over each axis of ``envelope.AXES`` up to its top).

``catch_matrix`` fixes a level's cases once (stored, fresh and stratified, with ovk_ref's expected values, exactly
as a run of that level draws them from the seed) and, for each fault, runs it on the cases whose values put it in
its region, smallest first, until one fails: caught. A case counts only where the fault-free plain engine passes it.
A fault whose region lies inside what the level exercised (``envelope``) and that the level does not catch is a bug
of the oracle; ``ovk-check conform --self-check`` prints the matrix (fault region x level).
"""
from __future__ import annotations

import copy
import dataclasses
import time
from types import SimpleNamespace

import numpy as np

from ovk_conform import envelope, fresh, runner
from ovk_conform.plain_engine import PlainBatch, PlainMonorma, PlainOnorma
from ovk_conform.scope import kernel_families
from ovk_conform.vocabulary import KERNEL_FAMILIES, LOSSES
from ovk_ref.losses import as_loss

#: the relative size of a perturbation: a thousand times the float64 tolerance, a hundredth of float32's
EPSILON = 1e-6
#: the steps a fault can perturb, per algorithm
STEPS = {"onorma": ("step_size", "shrink", "new_coefficient", "truncation", "kernel", "loss_gradient"),
         "monorma": ("step_size", "gamma", "weights", "kernel", "loss_gradient"),
         "batch_ridge": ("solve", "kernel")}
#: the thresholds of each axis (up to its top in ``envelope.AXES``)
THRESHOLDS = {"d": (2, 3, 4, 5, 6, 8, 12, 16, 24, 32), "p": (2, 3, 4, 5, 6, 8), "m": (3, 4, 5, 6, 7, 8, 9, 10),
              "t": (16, 41, 64, 100, 129, 200, 257, 513, 1025, 2049, 4000),
              "window": (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048), "t0": (2, 5, 10, 20, 50, 100),
              "drop": (2, 4, 8, 16, 32, 64), "td": (64, 128, 256, 512, 1000, 2000, 4000)}
#: steps that need a truncation to show (never drawn for an untruncated region)
TRUNCATION_STEPS = ("truncation",)


@dataclasses.dataclass(frozen=True)
class Fault:
    """``step`` of ``algorithm`` perturbed where ``axis`` (an envelope axis, ``family`` or ``loss``) reaches
    ``threshold`` (a number, or the family's or loss's name)."""

    algorithm: str
    step: str
    axis: str
    threshold: object

    @property
    def name(self) -> str:
        where = f"{self.axis}={self.threshold}" if self.axis in ("family", "loss") else f"{self.axis}>={self.threshold}"
        return f"{self.algorithm}.{self.step}@{where}"

    def case_on(self, X, Y, kernels, loss, truncation) -> bool:
        """Whether the fault's region holds the case (``t``: every case; the round decides, ``on``)."""
        axis, k = self.axis, self.threshold
        if axis == "family":
            return k in set().union(*(kernel_families(kernel) for kernel in kernels))
        if axis == "loss":
            return loss is not None and as_loss(loss).name == k
        if axis == "t":
            return True
        value = {"d": lambda: np.shape(Y)[1], "p": lambda: np.shape(X)[1], "m": lambda: len(kernels),
                 "td": lambda: len(X) * np.shape(Y)[1], "window": lambda: truncation if isinstance(truncation, int)
                 else None, "t0": lambda: getattr(truncation, "t0", None),
                 "drop": lambda: envelope.listed_drop(truncation.s) if hasattr(truncation, "s") else None}[axis]()
        return value is not None and value >= k

    def implementation(self):
        engine = {"onorma": FaultyOnorma, "monorma": FaultyMonorma, "batch_ridge": FaultyBatch}[self.algorithm](self)
        return SimpleNamespace(**{self.algorithm: engine})

    def case_in_region(self, case) -> bool:
        """Whether ``case`` (a ``vectors.Case`` of this fault's algorithm) lies in the fault's region."""
        if case.algorithm != self.algorithm:
            return False
        arguments = case.call_arguments()
        kernels = arguments.get("kernels") or [arguments.get("kernel")]
        if self.axis == "t":
            return len(case.X) >= self.threshold
        return self.case_on(case.X, case.Y, kernels, arguments.get("loss"), arguments.get("truncation"))


class _Switch:
    """What every faulty engine shares: the fault, whether the current case is in its region, the round."""

    def _start(self, X, Y, kernels, loss, truncation):
        self.on_case = self.fault.case_on(X, Y, kernels, loss, truncation)
        self.t = 0

    def on(self, step: str) -> bool:
        fault = self.fault
        return (fault.step == step and self.on_case and (fault.axis != "t" or self.t >= fault.threshold))

    def _loss(self, loss):
        """The loss, its gradient's first component perturbed while the fault is on."""
        if self.fault.step != "loss_gradient":
            return loss
        faulty = copy.copy(as_loss(loss))
        gradient = faulty.gradient

        def perturbed(prediction, y):
            value = np.array(gradient(prediction, y), dtype=float)
            if self.on("loss_gradient"):
                value[..., 0] *= 1 + EPSILON
            return value
        faulty.gradient = perturbed
        return faulty


class FaultyOnorma(_Switch, PlainOnorma):
    def __init__(self, fault):
        self.fault = fault

    def __call__(self, X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
        self._start(X, Y, [kernel], loss, truncation)
        return super().__call__(X, Y, kernel, lam=lam, eta=eta, loss=self._loss(loss), truncation=truncation)

    def first_term(self, t, n, lo):
        self.t = t
        return lo

    def step_size(self, eta, t):
        return eta / np.sqrt(t) * (1 + EPSILON if self.on("step_size") else 1)

    def shrink_factor(self, eta_t, lam):
        return (1.0 - eta_t * lam) * (1 - EPSILON if self.on("shrink") else 1)

    def window(self, schedule, t):
        s = super().window(schedule, t)
        return s + 1 if schedule is not None and self.on("truncation") else s

    def kernel_values(self, kernel, x, stored_X, coefficients):
        values = super().kernel_values(kernel, x, stored_X, coefficients)
        return values * (1 + EPSILON) if self.on("kernel") else values

    def after_round(self, t, alpha, lo, factors):
        if self.on("new_coefficient"):
            alpha[t - 1] *= 1 + EPSILON


def _scaled(kernel: dict) -> dict:
    """The kernel times 1 + EPSILON (a sum of one term)."""
    return {"type": "sum", "terms": [{"weight": 1 + EPSILON, "kernel": kernel}]}


class FaultyMonorma(_Switch, PlainMonorma):
    def __init__(self, fault):
        self.fault = fault

    def __call__(self, X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None):
        self._start(X, Y, kernels, loss, None)
        if self.on_case and self.fault.step == "kernel" and self.fault.axis != "t":
            kernels = [_scaled(kernels[0]), *kernels[1:]]
        return super().__call__(X, Y, kernels, lam=lam, eta=eta, r=r, loss=self._loss(loss))

    def step_size(self, eta, t):
        self.t = t
        return eta / np.sqrt(t) * (1 + EPSILON if self.on("step_size") else 1)

    def gamma_update(self, t, gamma, c_t, v, new, diagonal):
        value = super().gamma_update(t, gamma, c_t, v, new, diagonal)
        return value * (1 + EPSILON) if self.on("gamma") else value

    def weight_update(self, weights, gamma, r):
        value = np.array(super().weight_update(weights, gamma, r), dtype=float)
        if self.on("weights"):      # the largest weight (another may be 0 for good: MONORMA concentrates)
            value[np.argmax(value)] *= 1 + EPSILON
        return value


class FaultyBatch(_Switch, PlainBatch):
    def __init__(self, fault):
        self.fault = fault

    def __call__(self, X, Y, kernel, *, lam, precision=None):
        self._start(X, Y, [kernel], None, None)
        if self.on("kernel"):
            kernel = _scaled(kernel)
        return super().__call__(X, Y, kernel, lam=lam)

    def solve(self, system, rhs):
        if self.on("solve"):     # the batch solve in float32
            return np.linalg.solve(system.astype(np.float32), rhs.astype(np.float32)).astype(float)
        return super().solve(system, rhs)


def faults() -> list[Fault]:
    """Every fault of the family: for each axis, algorithm and threshold, the steps in turn (two per threshold);
    for each kernel family and loss, every step of each algorithm that has it."""
    family = [fault for axis in THRESHOLDS for fault in _axis_faults(axis)]
    for algorithm in ("onorma", "monorma", "batch_ridge"):
        family += [Fault(algorithm, step, "family", name) for name in KERNEL_FAMILIES for step in STEPS[algorithm]
                   if step not in TRUNCATION_STEPS]
        if algorithm != "batch_ridge":
            family += [Fault(algorithm, step, "loss", name) for name in LOSSES for step in STEPS[algorithm]
                       if step not in TRUNCATION_STEPS]
    return sorted(set(family), key=lambda fault: (fault.axis, fault.algorithm, str(fault.threshold), fault.step))


def _axis_faults(axis: str) -> list[Fault]:
    """The faults of one axis: per algorithm and threshold, two steps in turn (the truncation count only on the
    truncation axes; MONORMA's kernel, perturbed for a whole case, not on the rounds axis)."""
    family = []
    for algorithm in envelope.AXES[axis].algorithms:
        steps = [step for step in STEPS[algorithm] if step not in TRUNCATION_STEPS or axis in ("window", "t0", "drop")]
        if algorithm == "monorma" and axis == "t":
            steps.remove("kernel")
        for index, k in enumerate(k for k in THRESHOLDS[axis] if k <= envelope.AXES[axis].top):
            family += [Fault(algorithm, step, axis, k)
                       for step in {steps[(2 * index) % len(steps)], steps[(2 * index + 1) % len(steps)]}]
    return family


PLAIN = {"onorma": PlainOnorma(), "monorma": PlainMonorma(), "batch_ridge": PlainBatch()}


@dataclasses.dataclass
class Catch:
    fault: Fault
    level: str
    caught_by: str | None
    #: whether the fault's region lies inside what the level exercised (a miss there is a bug of the oracle)
    inside: bool
    cases_tried: int


def _size(case) -> int:
    return fresh._cost((case.algorithm, {"X": case.X, "arguments": case.arguments}))


def level_cases(level: str, seed: int, pool=None) -> list:
    """The cases a run of ``level`` with ``seed`` judges (every algorithm, full scope), with expected values."""
    prepared = runner.prepare(SimpleNamespace(**PLAIN), level=level, seed=seed, pool=pool)
    return [prepared.cases[index] for index in prepared.to_run]


def _inside(fault: Fault, reached: dict, cases=()) -> bool:
    """Whether the fault's region lies inside what the cases exercised (a family or loss: some case of the
    algorithm uses it)."""
    if fault.axis in ("family", "loss"):
        return any(fault.case_in_region(case) for case in cases)
    span = reached["axes"].get(fault.axis, {}).get(fault.algorithm)
    return span is not None and span[1] >= fault.threshold


def catch(faults_, level: str, cases, progress=None) -> list[Catch]:
    """Each fault run on the cases of its region, smallest first, until one fails where the plain engine passes."""
    reached = envelope.exercised(cases)
    ordered = sorted(cases, key=_size)
    baseline = {}
    caught = []
    for fault in faults_:
        implementation = getattr(fault.implementation(), fault.algorithm)
        tried, by = 0, None
        for case in (case for case in ordered if fault.case_in_region(case)):
            if case.name not in baseline:
                baseline[case.name] = runner.check_case(PLAIN[case.algorithm], case).status == "pass"
            if not baseline[case.name]:
                continue
            tried += 1
            outcome = runner.check_case(implementation, case)
            if outcome.status == "fail":
                by = f"{case.name} at {outcome.where or outcome.message[:60]}"
                break
        caught.append(Catch(fault, level, by, _inside(fault, reached, cases), tried))
        if progress is not None:
            print(f"[self-check {level}] {'CAUGHT' if by else 'MISSED'} {fault.name}" + (f" by {by}" if by else ""),
                  file=progress, flush=True)
    return caught


def region(fault: Fault) -> str:
    """The row of the catch matrix a fault belongs to: its axis (and algorithm)."""
    return f"{fault.axis} ({fault.algorithm})"


def matrix(catches: list[Catch]) -> dict:
    """region -> level -> {"faults", "caught", "inside", "caught_inside", "missed_inside": [names]}."""
    table = {}
    for item in catches:
        cell = table.setdefault(region(item.fault), {}).setdefault(
            item.level, {"faults": 0, "caught": 0, "inside": 0, "caught_inside": 0, "missed_inside": []})
        cell["faults"] += 1
        cell["caught"] += item.caught_by is not None
        cell["inside"] += item.inside
        cell["caught_inside"] += item.inside and item.caught_by is not None
        if item.inside and item.caught_by is None:
            cell["missed_inside"].append(item.fault.name)
    return table


def matrix_text(table: dict, levels, seconds: dict) -> str:
    """The catch matrix: a row per region, per level ``caught/faults (caught/inside the level's reach)``."""
    lines = [f"{'fault region':28s}" + "".join(f"{level:>24s}" for level in levels)]
    for name, cells in table.items():
        row = f"{name:28s}"
        for level in levels:
            cell = cells.get(level)
            row += f"{'-':>24s}" if cell is None else (
                f"{cell['caught']:>4d}/{cell['faults']:<4d} ({cell['caught_inside']}/{cell['inside']} inside)".rjust(24))
        lines.append(row)
    totals = {level: [sum(cells[level][key] for cells in table.values() if level in cells)
                      for key in ("caught", "faults", "caught_inside", "inside")] for level in levels}
    lines.append(f"{'all':28s}" + "".join(f"{f'{c}/{f} ({ci}/{i} inside)':>24s}" for c, f, ci, i in totals.values()))
    lines.append("seconds: " + ", ".join(f"{level} {seconds[level]:.1f}" for level in levels))
    missed = [fault for cells in table.values() for level in levels for fault in cells.get(level, {}).get(
        "missed_inside", [])]
    lines.append("missed inside the reach (bugs of the oracle): " + (", ".join(missed) if missed else "none"))
    return "\n".join(lines)


def run(levels=("quick", "standard"), seed: int = 0, sample: int | None = None, pool=None, progress=None) -> dict:
    """The self-check: the catch matrix of every fault (or a ``sample`` drawn from the seed) at each level."""
    family = faults()
    if sample is not None:
        rng = np.random.default_rng([seed, 44])
        family = [family[index] for index in sorted(rng.choice(len(family), size=min(sample, len(family)),
                                                                replace=False))]
    catches, seconds = [], {}
    for level in levels:
        started = time.monotonic()
        catches += catch(family, level, level_cases(level, seed, pool), progress)
        seconds[level] = time.monotonic() - started
    table = matrix(catches)
    return {"faults": len(family), "levels": list(levels), "seconds": seconds, "matrix": table,
            "text": matrix_text(table, levels, seconds), "catches": catches}
