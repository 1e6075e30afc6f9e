"""Every numerical tolerance of the project, in one place, each with its reason.

Tests and checks import these names; no test writes its own tolerance literal.
"""

# --- input validation -------------------------------------------------------------------------
#: B must equal B.T up to this, relative to max|B|: matrices typed or computed in float64
#: (e.g. R R^T) are symmetric only up to a few ulps.
SYMMETRY = 1e-12
#: smallest eigenvalue of B may be this far below 0, relative to max|B|: eigvalsh of a PSD
#: matrix with a zero eigenvalue returns about -d * eps * ||B||.
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

# --- float64 against 50-digit mpmath (issue 2, item 4) ----------------------------------------
#: a float64 run against a 50-digit run of the same case, relative to the scale of the field.
#: ONORMA/MONORMA rounds are contractions (shrink factor < 1) plus one gradient step, so the
#: float64 error grows at most linearly in t: with t <= 60 rounds, kernels of norm <= 10 and the
#: delta update's powers, the observed error is below 1e-13; 1e-9 bounds it with margin and is
#: still 40 orders of magnitude above the 50-digit run's own error.
FLOAT64_VS_MPMATH_RTOL = 1e-9
