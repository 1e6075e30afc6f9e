"""The numerical tolerances of the reference and of every comparison with it, each with its reason.

Tests and checks import these names; no test writes its own tolerance literal. The tolerances only one package uses
live beside it, with their reasons: ``proofs_check.tolerances`` (the claims' margins), ``ovk_conform.tolerance``
(the oracle's precision classes), ``ovk_experiments.tolerances`` (divergence of a reproduction's runs). The comparison classes at the end
(``ovk_ref.closeness.ToleranceClass``: ``rtol x scale + atol``) are what ``closeness.assert_close`` takes.
"""
from ovk_ref.closeness import ToleranceClass

# --- input validation -------------------------------------------------------------------------
#: B must equal B.T up to this, relative to max|B| (B's own scale, with no absolute floor: B = 1e-11 R R^T
#: is as symmetric as R R^T): matrices typed or computed in float64 (e.g. R R^T) are symmetric only up to a
#: few ulps.
SYMMETRY = 1e-12
#: smallest eigenvalue of B may be this far below 0, relative to max|B| (no absolute floor, so that
#: B = -1e-11 I, or any negative-definite B, is refused at every scale): eigvalsh of a PSD matrix with a
#: zero eigenvalue returns about -d * eps * ||B||, while a negative-definite B has smallest eigenvalue
#: -||B||_2 <= -max|B|, ten orders of magnitude below the allowance.
PSD_EIGENVALUE = 1e-10

# --- identities computed two ways in float64 (spec 11 "Tolerances") ---------------------------
#: two float64 computations of the same quantity (gamma recursion vs Gram norm, ONORMA vs SGD,
#: batch shortcut vs direct solve): each is a sum of O(t) terms with relative error O(t eps),
#: t <= a few hundred in tests, so 1e-10 leaves a factor >100 of headroom and still catches any
#: formula error (which is O(1)).
IDENTITY_RTOL = 1e-10
#: absolute floor for the same comparisons, relative to the scale of the compared quantities
#: (entries that are exactly 0 in one computation are ~eps*scale in the other).
IDENTITY_ATOL = 1e-12
#: sum_j delta_j^r - 1 (spec 11): a normalised sum of m <= 5 powers, error a few eps.
DELTA_NORMALISATION = 1e-12
#: a gamma^j_t = ||g^j_t||^2 at least this fraction of the size of its terms (sum |a_i| |K(x_i, x_k)| |a_k|) is
#: resolved in float64: its relative error is about eps * sqrt(#terms) / GAMMA_CANCELLATION ~ 1e-11 (t d <= 32),
#: below IDENTITY_RTOL after MONORMA's root; a gamma that cancels further (terms 1e-9, sum 1e-18, found in a
#: thorough search of monorma.delta_log_linear: a 5e-9 relative error) is round-off, not a weight the closed form
#: can be compared with.
GAMMA_CANCELLATION = 1e-3

# --- projections (the removal policy ``projection``, ovk_ref.truncation) ---------------------------
#: an eigenvalue of a Gram matrix at most this fraction of its largest is zero in a projection's least-norm solve
#: (``Arithmetic.project``): float64's eigh gives the zero eigenvalues of a singular Gram matrix (a repeated point, a
#: rank-deficient B) as about n d eps times the largest, ~1e-14 for n d <= 64; dividing by them would add a
#: coefficient of 1e14 times round-off. 1e-12 drops them with a factor 100 of margin, and keeps every direction a
#: float64 kernel resolves. The same rule at 50 digits (an exact zero is 1e-50 there).
PROJECTION_EIGENVALUE = 1e-12

# --- float64 against 50-digit mpmath ----------------------------------------
#: a float64 run against a 50-digit run of the same case, relative to the scale (max |entry|) of
#: the field. A round is not a contraction in general (with eta_1 kappa^2 > 2 the runs diverge,
#: spec E30), but its float64 error stays relative to the size of the numbers it combines:
#: measured (tests/ref/test_ref_precision.py cases, and t <= 60 on the synthetic data) the error is
#: at most 5e-15, also for a diverging run whose predictions reach 1e27 (the paper's non-separable
#: setting, E30) and for the delta update's powers; a batch solve loses about log10(condition
#: number) digits (3e-15 at condition 80). 1e-9 bounds all of this with a wide margin and is still
#: 40 orders of magnitude above the 50-digit run's own error.
FLOAT64_VS_MPMATH_RTOL = 1e-9

# --- runs against exact (sympy) values ----------------------------------------------------------
#: a 50-digit mpmath run of a tiny case (t <= 3, a few dozen operations on O(1) numbers) against
#: its exact sympy value, relative to the scale of the field: each operation rounds at about
#: 1e-50, so the error stays below 1e-47; 1e-40 has a wide margin and still fails at once if the
#: run silently fell back to float64 (error ~1e-16).
MPMATH_VS_EXACT_RTOL = 1e-40

# --- underflow -----------------------------------------------------------------------------------
#: absolute floor added to float64 comparisons whose values may fall below the smallest normal
#: number (2.2e-308), e.g. squared norms of expansions with coefficients or kernels near 1e-160:
#: subnormal numbers carry absolute, not relative, precision (steps of 4.9e-324), so a relative
#: tolerance alone fails on values that agree to every representable digit.
UNDERFLOW_ATOL = 2.2250738585072014e-308

# --- Theorem 2's truncation schedule (ovk_ref.truncation) ----------------------------------------
#: digits at which floor((t - t0)^(1/2 + epsilon)) is evaluated: float64 puts exact integer powers
#: (32^0.6 = 8) on either side of the integer, so the floor is off by one there.
SCHEDULE_DIGITS = 50
#: a power within this of an integer is that integer: at SCHEDULE_DIGITS digits an exact integer power is
#: computed to within ~1e-48, while a non-integer power of a small integer (t <= 1e9) with a rational exponent
#: of small denominator stays much farther than 1e-40 from every integer.
SCHEDULE_INTEGER_SNAP = 1e-40
#: a float64 power ``float(base) ** (0.5 + float(epsilon))`` farther than this (relative) from every integer has the
#: floor of the exact power, so the SCHEDULE_DIGITS evaluation is skipped: float64's error there is below
#: (ln(base) + 2) eps (the exponent read from its decimal and added, then pow), under 2e-13 relative for every base a
#: float holds (ln 1.8e308 = 710), 5x below this guard; the exact powers (32^0.6 = 8) and their float64 neighbours
#: (7.999...) fall inside it and are evaluated at SCHEDULE_DIGITS digits.
SCHEDULE_FLOAT_GUARD = 1e-12

# --- MONORMA's exponent r (ovk_ref.monorma.r_range; measured by benchmarks/measure_r_range.py) ------------------
# A run keeps the delta update's invariants when sum_j delta_j^r = 1 to DELTA_NORMALISATION, no weight is lost to
# underflow and the weights agree with a 100-digit run (FLOAT64_VS_MPMATH_RTOL in float64, MPMATH_VS_EXACT_RTOL at
# 50 digits). Measured on 9 streams per m (targets of scale 1e-3, 1, 1e3), m = 1..64, both engines alike.
#: float64 accepts r >= this (and r >= ln(m) / R_UNDERFLOW_LOG). A weight whose w_j = delta_j^2 gamma_j underflows is
#: 0 for ever after, and the others are normalised without it, although its share w_j^(r/(r+1)) / sum_k ... of the
#: normalisation is up to (2.2e-308)^(r/(r+1)): for the others to stay within FLOAT64_VS_MPMATH_RTOL (their error is
#: that share / r) r must be above about 0.035. MONORMA's weights fall doubly exponentially (spec 6.3: exponent q^t,
#: q = 2/(r+1)), so every long enough run meets this; measured over 40 rounds, m = 2, 3 and 8 alike: usable from
#: r = 0.036, failing at 0.032 (errors 7.5e-9 at r = 0.03, 1e-11 at 0.035, 1e-12 at 0.04 on one stream). 0.05 is a
#: factor 1.4 above the last usable value.
R_MIN_FLOAT64 = 0.05
#: float64 accepts r >= ln(m) / this. The weights satisfy sum_j delta_j^r = 1, so the largest is at least
#: m^(-1/r) = exp(-ln(m)/r) and w_j = delta_j^2 gamma_j at least exp(-2 ln(m)/r) gamma_j: past ln(m)/r = 268 to 315
#: (measured over 10 rounds, m = 2..64) every weight underflows and stays 0 (r = 1e-4, m = 2: the run predicts 0 for
#: ever). 100 keeps the largest w_j >= 1e-87 gamma_j, a factor 2.7 in r from the failures; it binds for m > 148.
R_UNDERFLOW_LOG = 100.0
#: float64 accepts r <= this: delta_j^r multiplies the rounding error of delta_j by r, and the measured error of
#: sum_j delta_j^r - 1 passes DELTA_NORMALISATION from r = 4.7e3 (m = 2) to 7.4e3 (m = 64), about 2 r float64 unit
#: roundoffs (every delta_j rounds to 1 beyond r ~ 1e16: r = 1e20 gives sum = m). 1000 is a factor 4.3 below the last
#: usable value (4.3e3, m = 2). With one kernel delta = 1 whatever r: no failure up to 1e20.
R_MAX_FLOAT64 = 1000.0
#: mpmath runs accept r >= this: there the exponent has no floor, but the root ^(1/r) magnifies rounding errors: as a
#: weight falls (doubly exponentially), the largest weight's error peaks, growing as 1/r^2 and with m (one stream,
#: m = 2, 80 rounds: 2.2e-39 at r = 1e-8, 1.6e-43 at 1e-6, 3.5e-47 at 1e-4). Measured at 50 digits, the weights leave
#: MPMATH_VS_EXACT_RTOL below r = 1.6e-7 (m = 2), 2.0e-7 (m = 3), 4.9e-7 (m = 8). The error and that tolerance both
#: scale with the unit roundoff, so the bound does not depend on the precision; at 1e-4 the error for m = 8 is about
#: 4e3 times below the tolerance. (The upper bound at precision P is R_MAX_FLOAT64 times float64's unit roundoff over
#: P's: 8.3e37 at 50 digits, measured failures from 4.1e38, m = 2..8.)
R_MIN_MULTIPRECISION = 1e-4

# --- comparison classes (ovk_ref.closeness) ------------------------------------------------------------------------
#: two float64 computations of the same quantity, relative to the size of the numbers they combine, with the
#: absolute floor for entries that are exactly 0 in one of them (IDENTITY_RTOL, IDENTITY_ATOL)
IDENTITY = ToleranceClass("identity", IDENTITY_RTOL, IDENTITY_ATOL, "two float64 computations of the same quantity")
#: two runs compared round by round whose values may be subnormal (IDENTITY_RTOL, UNDERFLOW_ATOL)
ROUNDS = ToleranceClass("rounds", IDENTITY_RTOL, UNDERFLOW_ATOL,
                        "two runs round by round; subnormal values carry absolute precision only")
#: a float64 value stored in a file by one machine (a checkpoint, a golden vector, a pasted output) against the same
#: computation made on this one: the same formula in the same order of Python operations, but BLAS kernels (OpenBLAS
#: picks them by CPU: SandyBridge, Haswell, SkylakeX...), numpy's SIMD paths and FMA sum the same terms in another
#: order, so each value differs by a few units in the last place of the numbers it combines (measured: last-bit
#: differences, e.g. -3.57e-16 against -3.93e-16 of a margin of scale 1, between SkylakeX and Haswell kernels). It is
#: IDENTITY's bound (a sum of O(t) terms, error O(t eps), 1e-10 relative to their size leaves a factor >100), with
#: the subnormal floor of ROUNDS (a run's values may underflow). Bit-for-bit stays the rule where it holds: the same
#: process, the same machine, 1 thread against 2, a file loaded and saved again.
ACROSS_MACHINES = ToleranceClass("across machines", IDENTITY_RTOL, UNDERFLOW_ATOL,
                                 "a stored float64 value against the same computation on another CPU (BLAS kernels, "
                                 "SIMD paths, FMA sum in another order)")
