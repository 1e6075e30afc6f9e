"""A steered adversarial search for the bound claims: how close does any instance come to each bound?

``verify`` asks whether a bound can be broken; this asks how much of it can be used. For a bound claim the ratio
of an instance is ``1 - margin`` (margin relative to the bound's size, ``Outcome``): ``||f_t|| / bound_t`` for a
norm bound, the share of the excess term ``a/sqrt(n) + b/n`` used for a theorem. The search draws instances with
the claim's own strategy (Hypothesis, seeded) and tries each with its targets scaled (``TARGET_SCALES``), keeps the
``STARTS`` of highest ratio, and from each runs
``scipy.optimize.minimize`` (Powell: no gradient, the ratio is piecewise smooth) on the instance's continuous
fields, mapped so that every point is an instance of the claim's hypotheses:

* inputs ``x_t`` in the box ``[0, 1]^p`` (a logistic map), targets within ``||y_t|| <= C_y`` under Hyp. 3 (a radial
  projection), ``rho = eta lam`` in (0, 1), ``lam`` in [1e-3, 1e2] (Hyp. 2) or ``lam > 2 S kappa^2`` (Hyp. 3; ``S = 1``
  for ONORMA, ``m^((1-1/r)_+)`` for MONORMA's factor bound); the kernel, the loss, ``C``, ``C_y``, ``m``, ``r`` and the
  truncation stay those of the start (the search starts from several: ``STARTS``, of distinct families first);
* ``thm2.certificate``: ``(rho, epsilon)`` over its box.

``search(claim_id)`` returns the best ratio found, the round (or prefix) ``t`` where it is reached, and the instance.
Reproducible: the draws come from a seed derived from the claim id; Powell is deterministic.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize

import ovk_ref
from proofs_check.claims import CLAIMS
from proofs_check.claims.monorma_guarantees import norm_factor2
from proofs_check.runner import evaluate, sample

#: the bound claims: Propositions 1-2 (also from f_0 != 0, and Prop. 2(iv) corrected), Theorems 1-2 and their proofs'
#: steps (C19's descent and sum bound, C20's dropped part), MONORMA's factor bounds
BOUND_CLAIMS = ("prop1.i", "prop1.ii", "prop2.i", "prop2.iii", "thm1.predictor", "thm1.sharpened", "thm1.post_update",
                "thm1.per_round", "thm2.any_truncation", "thm2.certificate", "monorma.norm_prop1_factor",
                "monorma.norm_prop2_factor", "prop1.ii_from_f0", "prop2.i_from_f0", "prop2.iv_tight", "thm1.descent",
                "thm1.phi_sum", "thm2.dropped_norm")
#: instances drawn per claim, starts kept, and objective evaluations per start
DRAWS, STARTS, EVALUATIONS = 120, 8, 400
#: the ranges the maps keep a field in (the strategies' ranges)
LAM_RANGE, RHO_RANGE = (1e-3, 1e2), (1e-6, 1.0 - 1e-9)


@dataclass
class Found:
    claim: str
    ratio: float
    t: int | None
    instance: dict
    evaluations: int
    seconds: float


def ratio(claim, instance, *, exact: bool = True) -> tuple:
    """``(1 - margin, t)`` of an instance (t: the round or prefix of the tightest margin), ``(-inf, None)`` when it is
    not informative or the check fails; with ``exact``, a margin near 0 is recomputed at high precision
    (``runner.evaluate``): for the reported instances, not for every step of the optimiser."""
    try:
        if exact:
            _, outcome, _ = evaluate(claim, instance)
        else:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                outcome = claim.check(instance, ovk_ref)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError):
        return -math.inf, None
    if not outcome.informative or math.isnan(outcome.relative_margin):
        return -math.inf, None
    quantities = outcome.quantities
    if "min_R_reg_upper" in quantities:   # a theorem: the share of the excess used against the certified upper end of
        # min R_reg (never more than the true share); the check's margin uses the lower end, which can be loose
        used = (quantities["lhs"] - quantities["min_R_reg_upper"] - quantities["truncation_term"]) / quantities["excess"]
        return used, quantities["n"]
    return 1 - outcome.relative_margin, quantities.get("round", quantities.get("n"))


def _sigmoid(v):
    return 1 / (1 + np.exp(-np.clip(v, -40, 40)))


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


class Layout:
    """The continuous fields of an instance as one vector, and back (every vector decodes to a valid instance)."""

    def __init__(self, instance: dict):
        self.template = instance
        self.certificate = "rho" in instance and "X" not in instance
        if self.certificate:
            return
        self.X_shape = np.asarray(instance["X"]).shape
        self.Y_shape = np.asarray(instance["Y"]).shape
        self.hyp3 = instance.get("loss") == "squared" and instance.get("C") is None
        # Hyp. 3's lam > 2 S kappa^2, S = 1 for ONORMA, m^((1-1/r)_+) for MONORMA's factor bound (its proof's condition)
        self.floor = 2 * max(np.atleast_1d(instance["kappa2"])) * (
            float(norm_factor2(len(instance["kernels"]), instance["r"])) if "kernels" in instance else 1.0)
        self.one_hot = ovk_ref.as_loss(instance["loss"]).one_hot_targets

    def encode(self, instance: dict) -> np.ndarray:
        if self.certificate:
            return np.array([_logit((instance["rho"] - 0.5) / 0.45), _logit((instance["epsilon"] - 0.25) / 0.2)])
        parts = [_logit(np.asarray(instance["X"], dtype=float).ravel() * (1 - 2e-9) + 1e-9)]
        if not self.one_hot:
            parts.append(np.asarray(instance["Y"], dtype=float).ravel())
        lam, rho = instance["lam"], instance["eta"] * instance["lam"]
        parts.append([math.log(max(lam / self.floor - 1, 1e-12)) if self.hyp3 else math.log(lam), float(_logit(rho))])
        return np.concatenate([np.ravel(part) for part in parts])

    def decode(self, vector: np.ndarray) -> dict:
        if self.certificate:
            return {**self.template, "rho": float(0.5 + 0.45 * _sigmoid(vector[0])),
                    "epsilon": float(0.25 + 0.2 * _sigmoid(vector[1]))}
        size = int(np.prod(self.X_shape))
        X = _sigmoid(vector[:size]).reshape(self.X_shape)
        X = np.where(X < 1e-9, 0.0, np.where(X > 1 - 1e-9, 1.0, X))
        position = size
        Y = np.asarray(self.template["Y"], dtype=float)
        if not self.one_hot:
            Y = vector[position: position + Y.size].reshape(self.Y_shape)
            position += Y.size
            if self.hyp3:   # ||y_t|| <= C_y (a few ulps inside, as the strategies keep it)
                norms = np.linalg.norm(Y, axis=1, keepdims=True)
                bound = self.template["C_y"] * (1 - 4 * np.finfo(float).eps)
                Y = np.where(norms > bound, Y * (bound / np.maximum(norms, 1e-300)), Y)
        lam_code, rho_code = vector[position], vector[position + 1]
        lam = float(self.floor * (1 + math.exp(np.clip(lam_code, -30, 30)))) if self.hyp3 else float(np.clip(math.exp(np.clip(lam_code, -30, 30)), *LAM_RANGE))
        rho = float(np.clip(_sigmoid(rho_code), *RHO_RANGE))
        return {**self.template, "X": X.tolist(), "Y": Y.tolist(), "lam": lam, "eta": rho / lam}


#: the targets of each draw also tried scaled by these factors: a local search does not cross the valley between a
#: target beyond reach and one the first update overshoots (Theorem 1's post-update supremum needs y -> 0)
TARGET_SCALES = (1e-3, 1e-1, 10.0)


def _scaled_targets(instance) -> list:
    """The instance with its targets scaled by each of ``TARGET_SCALES`` (kept within ``C_y`` under Hyp. 3)."""
    if "Y" not in instance or ovk_ref.as_loss(instance["loss"]).one_hot_targets:
        return []
    Y = np.asarray(instance["Y"], dtype=float)
    hyp3 = instance["loss"] == "squared" and instance.get("C") is None
    scaled = []
    for factor in TARGET_SCALES:
        Z = factor * Y
        if hyp3:
            norms = np.linalg.norm(Z, axis=1, keepdims=True)
            bound = instance["C_y"] * (1 - 4 * np.finfo(float).eps)
            Z = np.where(norms > bound, Z * (bound / np.maximum(norms, 1e-300)), Z)
        scaled.append({**instance, "Y": Z.tolist()})
    return scaled


def _family(instance):
    """What a local search cannot change and matters most to a bound: the loss (the norm loss reaches Theorem 1's
    post-update supremum, the squared loss Prop. 2's)."""
    loss = instance.get("loss")
    return loss if isinstance(loss, str) else (loss or {}).get("type")


def _diverse(candidates, count: int) -> list:
    """The ``count`` best candidates, the best of each ``_family`` first: a local search from two instances of one
    family usually ends in one optimum."""
    chosen, families = [], set()
    for candidate in candidates:
        if len(chosen) < count and _family(candidate[1]) not in families:
            chosen.append(candidate)
            families.add(_family(candidate[1]))
    return chosen + [c for c in candidates if c not in chosen][: count - len(chosen)]


def search(claim_id: str, *, draws_count: int = DRAWS, starts: int = STARTS, evaluations: int = EVALUATIONS,
           seed: int = 0, extra_starts=()) -> Found:
    """The highest ratio found for ``claim_id`` (``Found``): the best of the draws (and ``extra_starts``), each of the
    ``starts`` best refined by Powell's method over its continuous fields."""
    if claim_id not in BOUND_CLAIMS:
        raise ValueError(f"claim must be one of the bound claims {BOUND_CLAIMS}, got {claim_id!r}")
    claim = CLAIMS[claim_id]
    start_time = time.perf_counter()
    drawn = [*extra_starts, *(sample(claim_id, draws_count, seed) if draws_count else [])]
    candidates = [(ratio(claim, instance, exact=False), instance)
                  for instance in drawn + [variant for instance in drawn for variant in _scaled_targets(instance)]]
    candidates.sort(key=lambda pair: -pair[0][0])
    best = Found(claim_id, candidates[0][0][0], candidates[0][0][1], candidates[0][1], len(candidates), 0.0)
    for (value, _), instance in _diverse(candidates, starts):
        if not math.isfinite(value):
            continue
        layout = Layout(instance)
        counter = {"calls": 0}

        def objective(vector, counter=counter, layout=layout):
            counter["calls"] += 1
            found, _ = ratio(claim, layout.decode(vector), exact=False)
            return -found if math.isfinite(found) else 1e3

        result = optimize.minimize(objective, layout.encode(instance), method="Powell",
                                   options={"maxfev": evaluations, "xtol": 1e-6, "ftol": 1e-10})
        best.evaluations += counter["calls"]
        candidate = layout.decode(result.x)
        value, t = ratio(claim, candidate, exact=False)
        if value > best.ratio:
            best.ratio, best.t, best.instance = value, t, candidate
    best.ratio, best.t = ratio(claim, best.instance)   # the reported ratio, near 0 recomputed at high precision
    best.seconds = time.perf_counter() - start_time
    return best



#: what docs/bounds.md proves about each bound's best constant (the supremum of the ratio over the claim's
#: instances): ``(value, what it is)``, the value None where only part of it is derived
BEST_CONSTANTS = {
    "prop1.i": (1.0, "attained at every t (a loss whose subgradient has norm C)"),
    "prop1.ii": (1.0, "attained at every t (one point, targets beyond reach)"),
    "prop2.i": (0.5, "1/2 without truncation (attained at t = 1, approached at every t as lam/kappa^2 grows); a window "
                     "of 1 gives 0.530, not derived with truncation"),
    "prop2.iii": (None, "at most 3/4 without truncation; not derived"),
    "thm1.predictor": (None, "n = 1: sqrt(10)/40 = 0.079 (proved); one-point family, n = 2..5: [0.1669, 0.1679], "
                             "[0.1989, 0.1999], [0.1987, 0.1997], [0.2103, 0.2113]; 0.2138 at n = 9 (docs/bounds.md)"),
    "thm1.sharpened": (None, "n = 1: 1/4 (proved); one-point family, n = 2..5: [0.3009, 0.3019], [0.3144, 0.3154], "
                             "[0.2921, 0.2931], [0.2951, 0.2961] (docs/bounds.md)"),
    "thm1.post_update": (None, "n = 1: 3/13 = 0.2308 for d = 1 and the norm loss, at most 4/13 for any loss (proved); "
                               "one-point family, n = 2..5: [0.2226, 0.2236], [0.2280, 0.2290], [0.2261, 0.2271], "
                               "[0.2262, 0.2272] (docs/bounds.md)"),
    "thm1.per_round": (None, "not derived"),
    "thm2.any_truncation": (None, "n = 1: 1/4 (as thm1.sharpened); more at n >= 2, not derived"),
    "thm2.certificate": (None, "a function of (rho, epsilon) alone: the search's maximum over its box"),
    "monorma.norm_prop1_factor": (1.0, "attained at every t (step (u): ||u_t|| = C)"),
    "monorma.norm_prop2_factor": (1.0, "attained at every t (step (c): sum_j delta_j = m^(1-1/r) for copies)"),
    "prop1.ii_from_f0": (1.0, "attained at every t (f_0 = b K(., x*) v, the subgradient -C v every round)"),
    "prop2.i_from_f0": (1.0, ("approached, not attained: ||f_1|| / bound = |1 - rho (1 + 2/c)| from ||f_0|| = C_y/kappa "
                              "against the target, lam = c kappa^2, tends to 1 as rho -> 0, and as rho -> 1 at c = 2")),
    "prop2.iv_tight": (1.0, "attained (one point at the top of K(x, x), y = C_y v; docs/bounds.md)"),
    "thm1.descent": (1.0, "attained at every t (G_t along K(., x*) v: ||G_t(x*)|| = kappa ||G_t||)"),
    "thm1.phi_sum": (None, "one-point family, n = 2..5: [0.3118, 0.3128], [0.3015, 0.3025], [0.2903, 0.2913], "
                           "[0.2854, 0.2864] (docs/bounds.md); 0.3756 at n = 1, not derived"),
    "thm2.dropped_norm": (1.0, "attained at every drop (one point at the top of K(x, x), the subgradient -C v every round)"),
}


#: the prefixes n whose pinned instances of Theorem 1's edge start the search (proofs_check.theorem1_edge)
EDGE_PREFIXES = range(2, 10)


def edge_starts(claim_id: str) -> list:
    """For a Theorem 1 claim (and thm2.any_truncation, whose untruncated form is thm1.sharpened), the pinned instances
    of the one-point family at rho -> 1 (``theorem1_edge.pinned_instance``), one per n in EDGE_PREFIXES."""
    from proofs_check import theorem1_edge
    kind = "thm1.sharpened" if claim_id == "thm2.any_truncation" else claim_id
    if kind not in theorem1_edge.KINDS:
        return []
    return [theorem1_edge.pinned_instance(kind, n) for n in EDGE_PREFIXES]


def tightness(claim_id: str, profile: str = "ci") -> dict:
    """The claim's ``profile`` search (its worst margins, all rounds and t >= SETTLED_ROUND) and the adversarial search."""
    from proofs_check.runner import run_claim
    verdict = run_claim(claim_id, profile)
    found = search(claim_id, extra_starts=edge_starts(claim_id))
    best, what = BEST_CONSTANTS[claim_id]
    def finite(value):
        return value if value is not None and math.isfinite(value) else None
    return {"claim": claim_id, "verdict": verdict.verdict, "worst_margin": finite(verdict.worst_margin),
            "worst_settled_margin": finite(verdict.worst_settled_margin), "search_ratio": finite(found.ratio), "search_t": found.t,
            "search_instance": found.instance, "search_evaluations": found.evaluations, "search_seconds": found.seconds,
            "best_constant": best, "best_constant_is": what,
            "share_of_best": None if best is None or finite(found.ratio) is None else found.ratio / best}
