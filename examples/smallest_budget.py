"""A budget ONORMA that is not the paper's window: when more than ``budget`` terms are stored, it removes the older
term with the smallest coefficient (the budget literature's common policy), in plain numpy. It stands for a
library author's variant whose guarantees ``ovk-check verify --engine`` checks (docs/tutorial-your-variant.md):

    PYTHONPATH=examples ovk-check verify --engine smallest_budget --profile ci
    PYTHONPATH=examples ovk-check conform smallest_budget --scope '{"algorithms": {"onorma": {"truncations": ["smallest"]}}}'

It reads ``truncation`` as a budget: an int window ``s`` (the claims' windows) or a ``RemovalPolicy`` ``smallest``
of ``ovk_ref.truncation`` (``budget``); a schedule ``t -> s_t`` gives the budget of each round. On ``smallest`` it is
ovk_ref's policy, computed another way, and ``conform`` certifies it. Two planted faulty variants, as attributes:

* ``smallest_budget:forgets_shrink``: a removal round rebuilds the kept terms from ``f_{t-1}``'s coefficients,
  without round t's shrink ``1 - eta_t lam`` (a plausible bug of a budget);
* ``smallest_budget:slow_step``: ``eta_t = eta / t^(1/4)``, a step size that decays too slowly.
"""
from types import SimpleNamespace

import numpy as np

from ovk_ref import as_loss
from ovk_ref.kernels import as_kernel

#: what the engine does: ONORMA with every kernel and loss, no truncation, a window read as a budget, or ``smallest``
conformance_scope = {"algorithms": {"onorma": {"truncations": ["none", "smallest"]}}}


def _budget(truncation, t):
    if truncation is None:
        return None
    if isinstance(truncation, int):
        return truncation
    return getattr(truncation, "budget", None) or truncation(t)


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, shrink_on_removal=True,
           step_power=0.5):
    """ONORMA with a smallest-coefficient budget: records as dicts of ``predictions``, ``new_coefficients``,
    ``coefficients``, ``rkhs_norm2``, ``support_sizes`` (no kernel-evaluation counts)."""
    if precision is not None:
        raise ValueError("precision must be None: this engine computes in float64")
    kernel, loss = as_kernel(kernel), as_loss(loss)
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    n, d = Y.shape
    kept = []                                  # indices of the stored terms, oldest first
    alpha = np.zeros((n, d))
    predictions, new, norms, sizes = np.zeros((n, d)), np.zeros((n, d)), np.zeros(n), np.zeros(n, dtype=int)
    for t in range(n):
        blocks = [kernel(X[t], X[i]) for i in kept]
        predictions[t] = sum((block @ alpha[i] for block, i in zip(blocks, kept)), np.zeros(d))
        eta_t = eta / np.sqrt(t + 1) if step_power == 0.5 else eta / (t + 1) ** step_power
        before = alpha[kept].copy()
        alpha[kept] *= 1 - eta_t * lam
        alpha[t] = -eta_t * loss.gradient(predictions[t], Y[t])
        kept.append(t)
        budget = _budget(truncation, t + 1)
        if budget is not None and len(kept) > budget:
            older = kept[:-1]
            drop = older[int(np.argmin([alpha[i] @ alpha[i] for i in older]))]
            kept.remove(drop)
            alpha[drop] = 0.0
            if not shrink_on_removal:           # the faulty variant: the kept older terms taken back from f_{t-1}
                for i, value in zip(older, before):
                    if i != drop:
                        alpha[i] = value
        G = kernel.gram(X[kept])
        a = alpha[kept].reshape(-1)
        norms[t], sizes[t], new[t] = a @ G @ a, len(kept), alpha[t]
    return {"predictions": predictions, "new_coefficients": new, "coefficients": alpha, "rkhs_norm2": norms,
            "support_sizes": sizes}


def _variant(**options):
    def run(X, Y, kernel, **arguments):
        return onorma(X, Y, kernel, **arguments, **options)
    return SimpleNamespace(onorma=run, conformance_scope=conformance_scope)


forgets_shrink = _variant(shrink_on_removal=False)
slow_step = _variant(step_power=0.25)
