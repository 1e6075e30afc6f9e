"""The claims' tolerances (proofs_check.claims, proofs_check.runner), each with its reason; with the reference's
(``ovk_ref.tolerances``, re-exported: a check compares against the reference with the same classes).
"""
from ovk_ref.tolerances import *  # noqa: F403  (the reference's tolerances, which the checks share)

# --- claim margins (proofs_check.claims) ---------------------------------------------------------------------------
#: a float64 margin within this relative distance of 0 is not trusted either way: the instance is
#: recomputed with ovk_ref at RECHECK_DIGITS digits. Float64 round-off in our runs is
#: below 1e-13 relative (see FLOAT64_VS_MPMATH_RTOL), so 1e-9 leaves a factor 1e4 of headroom.
NEAR_ZERO_MARGIN = 1e-9
#: decimal digits of that recomputation (ovk_ref's ``precision=50``)
RECHECK_DIGITS = 50
#: at RECHECK_DIGITS digits, a margin above -this (relative) is a tie, not a violation: a tight bound
#: (e.g. ||alpha_tt|| = eta_t C for the norm loss, Prop. 1(i)) computed with O(100) roundings at 1e-50
#: lands within ~1e-48 of 0 on either side; 1e-40 is far above that and far below any real violation.
HIGH_PRECISION_TIE = 1e-40
#: an implementation that computes in float64 only (another engine's records, ``ovk-check verify --engine``: the
#: recheck lifts its float64 numbers exactly and recomputes only the check's side) leaves its own round-off in the
#: recomputed margin: a tight bound it attains (||alpha_tt|| = eta_t C) lands a few ulps either side of 0, so its tie
#: is NEAR_ZERO_MARGIN, the band float64 cannot resolve either way (a real violation, as a step size that decays too
#: slowly, is orders of magnitude beyond it)
FLOAT64_RECORDS_TIE = NEAR_ZERO_MARGIN
#: comparisons of integers or exact 0/1 facts (supports, kernel-evaluation counts) return margin
#: +-this per mismatch: away from 0 so that they are never mistaken for near-zero float margins.
DISCRETE_MARGIN = 0.5

#: relative round-off of a float64 regularised risk R_t(f) of our runs (a loss value plus a norm from a Gram matrix of
#: at most a few dozen points: below 1e-13 relative, as for NEAR_ZERO_MARGIN). A proof chain's step that compares two
#: risks whose difference is below this (relative to them) cannot tell them apart in float64 (proofs_check.proofs)
RISK_ROUNDOFF = 1e-13

# --- kappa^2 on the box (proofs_check.constants.kappa2) ----------------------------------------------------------
#: a feature kernel's kappa^2 is max over the vertices v of [0,1]^p of ||K(v, v)||_op at 60 digits; a vertex whose
#: float64 ||K(v, v)||_op is below the largest float64 one by more than this (relative) cannot attain that max and is
#: skipped. float64 puts each value within about (d + q) eps max_v ||K(v, v)||_op of the exact one (the product
#: A(v) A(v)^T, then eigvalsh: < 1e-14 relative for d, q <= 4), 1e8 times less than this gap.
KAPPA2_CONTENDER_GAP = 1e-6
#: the float kappa^2 of an instance is read off an arb ball (proofs_check.kappa2_ball) only when every number within
#: this (relative) of the ball has the same smallest float >= it: the 60-digit value of constants.kappa2 (Jacobi
#: eigenvalues at 60 digits of a matrix of at most 4 x 4, sums of at most two terms: within about 1e-58 of kappa^2) is
#: then certainly among them, and gives that float too. A float within this of a ball sends it to the 60-digit path.
KAPPA2_EXACT_PATH_ERROR = 1e-45

# --- Theorem 2's schedule written out (proofs_check.claims.onorma.schedule_formula) ---------------------------------
#: a threshold ``ceil(k^(1/a))`` is read off the float64 power ``k ** float(1/a)`` only when that power is farther than
#: this (relative) from every integer: for k <= 10^5 and 1/a in (1, 2) the float is within about
#: (ln k + 2) eps ~ 3e-15 (relative) of the exact power, 3e5 times less than this, so both have the same ceiling.
#: Nearer an integer (exact powers such as 8^(5/3) = 32 among them) the threshold is computed at 60 digits.
SCHEDULE_FORMULA_FLOAT_GUARD = 1e-9

# --- certified comparators for non-squared losses (proofs_check.comparators, spec 11) -----------------
#: BFGS stops once ||grad F(w)|| <= this. The certified bound ||f_n|| <= ||w|| + ||grad F(w)|| / lam then
#: exceeds the true norm by at most 2 * this / lam (strong convexity), so a claim that is tight, as
#: Prop. 1(iii) is (spec C11: one point, ||f_n|| = C kappa / lam exactly), can only be resolved to within
#: that: a margin above -2 * this / lam is a tie, not a violation. Any real violation found so far is
#: larger than 1e-3 relative.
OPTIMISER_GRADIENT_NORM = 1e-12
