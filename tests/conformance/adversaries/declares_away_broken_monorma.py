"""A correct ONORMA (ovk_fast's) beside a broken MONORMA (its step size 1% too large), declaring only ONORMA:
the oracle probes what it offers, finds MONORMA answered, and fails the run (PARTIAL: monorma offered, not
certified) unless the adopter narrows it explicitly (--require onorma, --allow-partial)."""
import ovk_fast

conformance_scope = {"algorithms": {"onorma": {}}}
onorma = ovk_fast.onorma


def monorma(X, Y, kernels, *, lam, eta, r, loss="squared"):
    return ovk_fast.monorma(X, Y, kernels, lam=lam, eta=eta * 1.01, r=r, loss=loss)
