"""The paper's proofs as chains of named steps (docs/proofs.md), the steps proved by sympy, and the certificate of
Theorem 2 (docs/theorem2-certificate.md).

``chains()`` is the registry: claim id -> ``Chain`` (the proof that the claim follows from its hypotheses, the paper's
or the spec's repaired one). ``explain(claim_id, instance, impl)`` evaluates the chain on one instance and names the
first step that fails, or the tightest one. The chain modules (each a ``CHAINS`` list, one per proof or family of
proofs) are imported on first use, by ``chain_modules``: they import the claims' helpers, which this package's
lighter modules (``chain``, ``symbolic``, ``theorem2_certificate``) do not need. A chain names its claim (a claim
cannot import its chain: the chain imports the claims), and the registry refuses a chain of an unknown claim.
"""
from __future__ import annotations

import functools


def chain_modules() -> tuple:
    """The modules that define chains: a new one is imported here."""
    from proofs_check.proofs import (
        batch_norms,
        batch_solution,
        eta_star,
        monorma_bounds,
        monorma_weights,
        onorma_norms,
        theorems,
    )
    return (onorma_norms, batch_norms, theorems, eta_star, monorma_bounds, monorma_weights, batch_solution)


@functools.cache
def chains() -> dict:
    from proofs_check.claims import CLAIMS
    registry = {}
    for module in chain_modules():
        for chain in module.CHAINS:
            if chain.claim in registry:
                raise ValueError(f"claim {chain.claim!r} has two chains")
            if chain.claim not in CLAIMS:
                raise ValueError(f"{module.__name__} has a chain of {chain.claim!r}, which is not a claim of proofs_check.claims")
            registry[chain.claim] = chain
    return registry


def explain(claim_id: str, instance, impl):
    """The chain of ``claim_id`` on ``instance`` (a ``chain.ChainResult``), or None when the claim has no chain."""
    from proofs_check.proofs import chain as chain_module
    proof = chains().get(claim_id)
    if proof is None or instance is None:
        return None
    return chain_module.check(proof, instance, impl)


def proved_text(claim_id: str) -> str:
    """How a claim expected ``proved`` is proved: Theorem 2 (``thm2.exists_t0``) for every (rho, epsilon) by the
    closed-form t0 of ``theorem2_formula``; ``""`` elsewhere."""
    if claim_id != "thm2.exists_t0":
        return ""
    from proofs_check.proofs import theorem2_formula
    return theorem2_formula.proved_text()
