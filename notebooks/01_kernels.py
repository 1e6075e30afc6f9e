# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 1. Operator-valued kernels: block Gram matrices, Definition 1 and $\kappa^2$
#
# An operator-valued kernel maps two inputs $x, x' \in \mathbb{R}^p$ to a $d\times d$ matrix $K(x, x')$,
# and a function of its RKHS is a finite expansion $f(x) = \sum_i K(x, x_i)\, a_i$ with $a_i \in \mathbb{R}^d$
# (spec §1-2). Everything the algorithms and the bounds need reduces to the **block Gram matrix**
# $G$, whose block $(i, j)$ is $K(x_i, x_j)$:
#
# * $\|f\|_H^2 = \mathrm{vec}(A)^\top G\, \mathrm{vec}(A)$,
# * Definition 1 (Hermitian, positive) is $G = G^\top$ and $G \succeq 0$,
# * Hypothesis 1 is $\sup_x \|K(x,x)\|_{op} \le \kappa^2$, the constant every bound is built from.
#
# This notebook draws the Gram matrices of the paper's two kernels and of the feature kernel the
# spec adds for tests, checks Definition 1 on them, shows why Definition 1(iv) **as printed** cannot
# hold for any kernel (erratum E5), and derives $\kappa^2$ of each kernel with sympy.
# Every cell asserts what it shows.

# %%
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from walkthrough_display import show, show_formula, show_table

import ovk_ref
from ovk_ref import tolerances
from proofs_check import constants

rng = np.random.default_rng(2024)
p, d, k = 3, 3, 6                       # input dimension, output dimension, number of points
X = rng.uniform(0.0, 1.0, size=(k, p))  # inputs in [0, 1]^p, as in the paper's experiments
kernels = {
    "Gaussian separable, mu = 1": ovk_ref.gaussian_separable(1.0, d),
    "non-separable, mu = 0.2": ovk_ref.LinearQuadratic(0.2, d),
    "feature kernel, q = 4": ovk_ref.random_feature(p, d, 4, seed=7),
}
grams = {name: ovk_ref.gram(kernel, X) for name, kernel in kernels.items()}


def smallest_eigenvalue(G):
    return np.linalg.eigvalsh((G + G.T) / 2)[0]


# %% [markdown]
# ## Block Gram matrices
#
# $k = 6$ points in $[0,1]^3$, $d = 3$ outputs, so $G$ is $18 \times 18$; the grid lines separate the
# $3 \times 3$ blocks $K(x_i, x_j)$.

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for ax, (name, G) in zip(axes, grams.items()):
    image = ax.imshow(G, cmap="RdBu_r", vmin=-np.abs(G).max(), vmax=np.abs(G).max())
    for line in range(d, k * d, d):
        ax.axhline(line - 0.5, color="k", lw=0.5)
        ax.axvline(line - 0.5, color="k", lw=0.5)
    ax.set_title(name)
    fig.colorbar(image, ax=ax, shrink=0.8)
fig.suptitle("block Gram matrices G, block (i, j) = K(x_i, x_j)")
fig.tight_layout()

rows = []
for name, G in grams.items():
    scale = np.abs(G).max()
    asymmetry = np.abs(G - G.T).max() / scale
    lowest = smallest_eigenvalue(G) / scale
    assert asymmetry <= tolerances.SYMMETRY, (name, asymmetry)          # (D-iii) Hermitian
    assert lowest >= -tolerances.PSD_EIGENVALUE, (name, lowest)          # (D-iv), corrected: PSD
    rows.append((name, f"{asymmetry:.1e}", f"{lowest:.2e}"))
show_table(["kernel", "max|G - G^T| / max|G|", "lambda_min(G) / max|G|"], rows)

# %% [markdown]
# The Gaussian kernel of the experiments is **separable**, $K(x,x') = e^{-\|x-x'\|^2/\mu} J$ with
# $J = 0.9 I + 0.1 \mathbb{1}\mathbb{1}^\top$, so its Gram matrix is the Kronecker product $K_s \otimes J$ of
# the scalar Gram matrix and $J$: that is the spec's proof that it is PSD (§3.1).

# %%
J = ovk_ref.paper_J(d)
scalar_gram = ovk_ref.gram(ovk_ref.Separable(ovk_ref.Gaussian(1.0), np.eye(1)), X)
np.testing.assert_allclose(grams["Gaussian separable, mu = 1"], np.kron(scalar_gram, J),
                           rtol=tolerances.IDENTITY_RTOL, atol=tolerances.IDENTITY_ATOL)
show("`G == kron(K_s, J)`: checked.")

# %% [markdown]
# ## Definition 1(iv) as printed is false for every kernel (erratum E5)
#
# The paper's positivity condition sums over **two independent** families $(x_k, y_k)$ and $(x'_l, y'_l)$:
#
# $$\sum_{k,l} \big\langle K(\cdot, x_k) y_k,\; K(\cdot, x'_l) y'_l \big\rangle \;\ge\; 0 .$$
#
# Take $x' = x$ and $y' = -y$: the sum is $-\|\sum_k K(\cdot,x_k) y_k\|_H^2 < 0$ for every nonzero kernel.
# The inner product of two expansions is $\langle \sum_i K(\cdot,x_i)a_i, \sum_j K(\cdot,z_j)b_j\rangle_H
# = \mathrm{vec}(B)^\top G(Z, X)\, \mathrm{vec}(A)$ (spec §2.3), which the next cell evaluates.
# The intended condition (one family, $\sum_{k,l} \langle K(x_k,x_l) y_l, y_k\rangle \ge 0$, i.e. $G \succeq 0$)
# holds: the cell also hunts for a violation among 2000 random $y$.

# %%
Y = rng.standard_normal((k, d))
rows = []
for name, kernel in kernels.items():
    cross = ovk_ref.gram(kernel, X, X)                 # G(X', X) with X' = X
    printed = (-Y).ravel() @ cross @ Y.ravel()         # families (x, y) and (x', y') = (x, -y)
    norm2 = ovk_ref.rkhs_norm2(kernel, X, Y)
    np.testing.assert_allclose(printed, -norm2, rtol=tolerances.IDENTITY_RTOL)
    assert printed < 0, (name, printed)               # E5: the printed condition fails
    corrected = min(y.ravel() @ grams[name] @ y.ravel() for y in rng.standard_normal((2000, k, d)))
    assert corrected >= -tolerances.PSD_EIGENVALUE * np.abs(grams[name]).max(), (name, corrected)
    rows.append((name, f"{printed:.4f}", f"{corrected:.2e}"))
show_table(["kernel", "printed (iv) with y' = -y", "min over 2000 y of corrected (iv)"], rows)

# %% [markdown]
# ## $\kappa^2$ of the Gaussian kernel: the spectrum of $J$
#
# $K(x,x) = J$ for every $x$, so $\kappa^2 = \|J\|_{op}$. Sympy finds the spectrum for a few $d$;
# the eigenvector $\mathbb{1}$ gives the general formula $\|J\|_{op} = 0.9 + 0.1 d$, the one
# `proofs_check.constants` uses (checked below, with its numerical $\kappa^2$ of each kernel).

# %%
d_symbol = constants.d
kappa2_gauss = sp.Rational(9, 10) + d_symbol / 10                # J 1 = (9/10 + d/10) 1
assert sp.simplify(kappa2_gauss - constants.J_NORM) == 0
show_formula(r"\kappa^2_{\mathrm{Gauss}} = \|J\|_{op}", sp.factor(kappa2_gauss))
for size in (1, 2, 3, 5, 8):
    J_exact = sp.Rational(9, 10) * sp.eye(size) + sp.Rational(1, 10) * sp.ones(size, size)
    spectrum = J_exact.eigenvals()
    assert max(spectrum) == kappa2_gauss.subs(d_symbol, size)
    assert spectrum.get(sp.Rational(9, 10), 0) == size - 1
    kernel = ovk_ref.gaussian_separable(0.3, size)
    x = rng.uniform(0.0, 1.0, size=p)
    np.testing.assert_allclose(np.linalg.norm(kernel(x, x), 2), float(kappa2_gauss.subs(d_symbol, size)),
                               rtol=tolerances.IDENTITY_RTOL)
    np.testing.assert_allclose(float(constants.kappa2(kernel, p)), float(kappa2_gauss.subs(d_symbol, size)),
                               rtol=tolerances.IDENTITY_RTOL)
    show(f"d = {size}: spectrum of J = {dict(spectrum)}")

# %% [markdown]
# ## $\kappa^2$ of the non-separable kernel $\mu\langle x,x'\rangle \mathbb{1}\mathbb{1}^\top + (1-\mu)\langle x,x'\rangle^2 I$
#
# With $s = \|x\|^2$, $K(x,x)$ has eigenvalue $\mu s d + (1-\mu)s^2$ on $\mathbb{1}$ and $(1-\mu)s^2$ on
# $\mathbb{1}^\perp$. The top one increases in $s \in [0, p]$ on $[0,1]^p$, so the supremum sits at $x = \mathbb{1}$.

# %%
mu, p_symbol = constants.mu, constants.p
s = sp.Symbol("s", nonnegative=True)
top_eigenvalue = mu * s * d_symbol + (1 - mu) * s**2
slope = sp.diff(top_eigenvalue, s)
assert sp.simplify(slope - (mu * d_symbol + 2 * (1 - mu) * s)) == 0   # >= 0 for mu in [0, 1], s >= 0
kappa2_nonsep = sp.Mul(p_symbol, mu * d_symbol + (1 - mu) * p_symbol, evaluate=False)
assert sp.expand(kappa2_nonsep - top_eigenvalue.subs(s, p_symbol)) == 0       # the top eigenvalue at s = p
assert sp.expand(kappa2_nonsep - constants.LINEAR_QUADRATIC_KAPPA2) == 0
show_formula(r"\kappa^2_{\mathrm{nonsep}}([0,1]^p)", kappa2_nonsep)
synthetic_value = kappa2_nonsep.subs({mu: sp.Rational(1, 5), d_symbol: 4, p_symbol: 20})
show_formula(r"\kappa^2_{\mathrm{nonsep}}\big|_{p=20,\,d=4,\,\mu=0.2}", synthetic_value)
assert synthetic_value == 336

kernel = ovk_ref.LinearQuadratic(0.2, 4)
samples = rng.uniform(0.0, 1.0, size=(3000, 20))
operator_norms = np.array([np.linalg.norm(kernel(x, x), 2) for x in samples])
at_ones = np.linalg.norm(kernel(np.ones(20), np.ones(20)), 2)
np.testing.assert_allclose(at_ones, 336.0, rtol=tolerances.IDENTITY_RTOL)   # attained at x = 1
np.testing.assert_allclose(float(constants.kappa2(kernel, 20)), 336.0, rtol=tolerances.IDENTITY_RTOL)
assert operator_norms.max() < 336.0

fig, ax = plt.subplots(figsize=(7, 3))
ax.hist(operator_norms, bins=50, color="C0")
ax.axvline(336, color="C3", label=r"$\kappa^2 = p(\mu d + (1-\mu)p) = 336$")
ax.set_xlabel(r"$\|K(x,x)\|_{op}$ for 3000 uniform $x \in [0,1]^{20}$")
ax.legend()
fig.tight_layout()

# %% [markdown]
# Uniform inputs have $\|x\|^2 \approx p/3$, so the sampled norms stay far below $\kappa^2$: on a finite
# stream, $\max_t \|K(x_t,x_t)\|_{op}$ is a valid and much smaller $\kappa^2$ (spec §2.3).
#
# Outside $\mu \in [0,1]$ the kernel is not positive, and `ovk_ref` refuses to build it. Combining the
# two endpoint kernels by hand shows why: $\mu = -0.5$, $d = 2$, $x = (0.2, 0.2, 0.2)$ gives a negative
# eigenvalue, and $\mu = 1.5$ gives one for every $x \ne 0$.

# %%
try:
    ovk_ref.LinearQuadratic(-0.5, 2)
except ValueError as error:
    show(f"`LinearQuadratic(-0.5, 2)` -> ValueError: {error}")
else:
    raise AssertionError("mu = -0.5 must be refused")

ones_kernel, identity_kernel = ovk_ref.LinearQuadratic(1.0, 2), ovk_ref.LinearQuadratic(0.0, 2)


def outside_block(mu_value, x):
    """``K_mu(x, x)`` of the non-separable kernel for any real mu, from its two endpoints."""
    return mu_value * ones_kernel(x, x) + (1 - mu_value) * identity_kernel(x, x)


x_small = np.full(3, 0.2)
lowest_small = np.linalg.eigvalsh(outside_block(-0.5, x_small))[0]
show_formula(r"\lambda_{\min} K_{-0.5}(x,x)", f"{lowest_small:.4f}")
np.testing.assert_allclose(lowest_small, -0.5 * 0.12 * 2 + 1.5 * 0.12**2, rtol=tolerances.IDENTITY_RTOL)
assert lowest_small < 0
assert all(np.linalg.eigvalsh(outside_block(1.5, x))[0] < 0 for x in rng.uniform(0.0, 1.0, size=(200, 3)))

# %% [markdown]
# ## The feature kernel: Hermitian and PSD, with non-symmetric blocks
#
# $K(x,x') = A(x)A(x')^\top$ with $A(x) = M_0 + \sum_k x_k M_k \in \mathbb{R}^{d \times q}$. Its blocks are
# not symmetric, $K(x,x') \ne K(x,x')^\top$, yet $K(x',x) = K(x,x')^\top$, so $G$ is symmetric (Hermitian)
# and PSD. That makes it the kernel that tells $K(\cdot, x_i)$ from $K(x_i, \cdot)$ (erratum E3): the two
# readings of the paper's expansion give different predictions. Its RKHS norm is explicit:
# $\|\sum_i K(\cdot,x_i)a_i\|_H = \|\sum_i A(x_i)^\top a_i\|_2$, and its $\kappa^2 = \sup_x \|A(x)\|_{op}^2$ has no closed form,
# but $\|A(x)\|_{op}^2$ is convex in $x$, so on the box the supremum is at one of the $2^p$ vertices.

# %%
feature = kernels["feature kernel, q = 4"]
x, z = X[0], X[1]
block = feature(x, z)
block_asymmetry = np.abs(block - block.T).max() / np.abs(block).max()
assert block_asymmetry > 0.1                                        # blocks are not symmetric
np.testing.assert_allclose(feature(z, x), block.T, rtol=tolerances.IDENTITY_RTOL)   # Hermitian

A = rng.standard_normal((k, d))
w = sum(feature.features(x_i).T @ a_i for x_i, a_i in zip(X, A))
np.testing.assert_allclose(ovk_ref.rkhs_norm2(feature, X, A), w @ w, rtol=tolerances.IDENTITY_RTOL)

X_new = rng.uniform(0.0, 1.0, size=(4, p))
spec_reading = ovk_ref.evaluate(feature, X, A, X_new)                       # sum_i K(x, x_i) a_i
printed_reading = np.array([sum(feature(x_i, x_new) @ a_i for x_i, a_i in zip(X, A)) for x_new in X_new])
np.testing.assert_allclose(spec_reading, np.array([feature.features(x_new) @ w for x_new in X_new]),
                           rtol=tolerances.IDENTITY_RTOL)                     # f = A(.) w
reading_gap = np.abs(spec_reading - printed_reading).max()
assert reading_gap > 0.1                                                   # E3: the readings differ

# reproducing property (D-ii): <f(x), y> = <f, K(., x) y>_H
y = rng.standard_normal(d)
direct = spec_reading[0] @ y
via_gram = y @ ovk_ref.gram(feature, X_new[:1], X) @ A.ravel()
np.testing.assert_allclose(direct, via_gram, rtol=tolerances.IDENTITY_RTOL)
# kappa^2 of the feature kernel: ||A(x)||_op^2 is convex in x, so its max over [0,1]^p sits at a vertex
kappa2_feature = float(constants.kappa2(feature, p))
sampled = max(np.linalg.norm(feature(x, x), 2) for x in rng.uniform(0.0, 1.0, size=(2000, p)))
vertex_values = [np.linalg.norm(feature(v, v), 2) for v in np.array(np.meshgrid(*[[0.0, 1.0]] * p)).reshape(p, -1).T]
np.testing.assert_allclose(kappa2_feature, max(vertex_values), rtol=tolerances.IDENTITY_RTOL)
assert sampled <= kappa2_feature
show(f"feature kernel: kappa^2 = max over the {2**p} vertices of [0,1]^{p} = {kappa2_feature:.3f}; "
     f"largest of 2000 uniform samples: {sampled:.3f}")
show(f"relative asymmetry of one block: {block_asymmetry:.2f}; largest gap between the two readings "
     f"of the expansion: {reading_gap:.2f}; reproducing property and norm identity: checked.")

fig, axes = plt.subplots(1, 2, figsize=(7, 3))
for ax, (title, matrix) in zip(axes, [("K(x, z)", block), ("K(z, x)", feature(z, x))]):
    ax.imshow(matrix, cmap="RdBu_r", vmin=-np.abs(block).max(), vmax=np.abs(block).max())
    ax.set_title(title)
fig.suptitle("feature kernel: K(z, x) is the transpose of K(x, z), not K(x, z)")
fig.tight_layout()

# %% [markdown]
# **What this notebook established.** Both experiment kernels and the feature kernel are Hermitian and
# PSD on every point set drawn; Definition 1(iv) as printed fails for each of them (E5) while the corrected
# form holds; $\kappa^2 = (d+9)/10$ for the Gaussian kernel and $p(\mu d + (1-\mu)p)$ for the non-separable
# one on $[0,1]^p$ (336 in the synthetic setting, the number that makes the paper's experiment diverge,
# notebook 2), and the feature kernel's sits at a vertex of the box; the feature kernel's non-symmetric blocks
# separate the two readings of the expansion.
