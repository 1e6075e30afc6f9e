"""ONORMA on random Fourier features (Rahimi and Recht 2007): an approximate engine whose guarantees
``ovk-check verify --engine`` checks (docs/tutorial-your-variant.md):

    PYTHONPATH=examples ovk-check verify --engine rff_onorma --profile ci

For a separable Gaussian kernel ``K(x, z) = exp(-|x - z|^2 / mu) B``, ``exp(-|x - z|^2 / mu) ~ phi(x) . phi(z)`` with
``phi(x) = sqrt(2 / D) cos(W x + b)``, ``W`` of ``N(0, 2 / mu)`` entries and ``b`` uniform on ``[0, 2 pi)``
(``FEATURES`` features, seeded; a weighted sum of such kernels: each term its own features).
The learner keeps ``V = sum_i phi(x_i) alpha_i^T`` (D x d), predicts
``B V^T phi(x)``, shrinks ``V`` by ``1 - eta_t lam`` and adds ``phi(x_t) alpha_tt^T``: ONORMA's update (spec 5.1) with the
approximate kernel, at a cost per round independent of t. It reports the coefficients of the expansion it
approximates (``alpha_{i,t} = alpha_{i,i} prod (1 - eta_k lam)``), so the claims measure its iterates in the exact
kernel's RKHS, and its predictions, which are the approximate kernel's.
"""
import numpy as np

from ovk_ref import as_loss

#: random features
FEATURES = 2000
#: the seed of the features
SEED = 0
#: separable Gaussian kernels and non-negative sums of them, any loss, no truncation
conformance_scope = {"algorithms": {"onorma": {"kernels": ["gaussian_separable", "sum"], "truncations": ["none"]}}}


def _gaussian_terms(kernel) -> list:
    """``[(weight, mu, B)]``: a separable Gaussian kernel, or a weighted sum of them (ValueError for another)."""
    if kernel.get("type") == "gaussian_separable":
        return [(1.0, kernel["mu"], np.asarray(kernel["B"], dtype=float))]
    if kernel.get("type") == "sum":
        return [(term["weight"] * weight, mu, B) for term in kernel["terms"] for weight, mu, B in _gaussian_terms(term["kernel"])]
    raise ValueError(f"kernel must be gaussian_separable or a sum of them (random Fourier features), got {kernel.get('type')!r}")


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
    """ONORMA with each Gaussian term of the kernel replaced by its random features (one set per term)."""
    if precision is not None:
        raise ValueError("precision must be None: this engine computes in float64")
    if truncation is not None:
        raise ValueError("truncation must be None: random-feature ONORMA keeps no terms to truncate")
    terms, loss = _gaussian_terms(kernel), as_loss(loss)
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    n, d = Y.shape
    rng = np.random.default_rng(SEED)
    features = []        # per term: weight * B and the features of every x_t
    for weight, mu, B in terms:
        W = rng.normal(scale=np.sqrt(2.0 / mu), size=(FEATURES, X.shape[1]))
        b = rng.uniform(0.0, 2 * np.pi, size=FEATURES)
        features.append((weight * B, np.sqrt(2.0 / FEATURES) * np.cos(X @ W.T + b)))
    Vs = [np.zeros((FEATURES, d)) for _ in features]     # per term: sum_i phi(x_i) alpha_i^T
    predictions, new, products = np.zeros((n, d)), np.zeros((n, d)), np.ones(n + 1)
    for t in range(n):
        predictions[t] = sum((B @ (V.T @ phi[t]) for (B, phi), V in zip(features, Vs)), np.zeros(d))
        eta_t = eta / np.sqrt(t + 1)
        new[t] = -eta_t * loss.gradient(predictions[t], Y[t])
        Vs = [(1 - eta_t * lam) * V + np.outer(phi[t], new[t]) for (_, phi), V in zip(features, Vs)]
        products[t + 1] = products[t] * (1 - eta_t * lam)
    coefficients = new * (products[n] / products[1:])[:, None]     # alpha_{i,n} = alpha_{i,i} prod_{k=i+1}^n (1 - eta_k lam)
    return {"predictions": predictions, "new_coefficients": new, "coefficients": coefficients}
