"""ovk_fast's own tolerances, each with its reason (the comparisons with the reference use ``ovk_ref.tolerances``)."""

#: ovk_fast's separable batch solver (spec 7.2) and its ONORMA block solve (squared loss) solve the columns whose
#: eigenvalues of B differ by at most this, relative to max|eig(B)|, with one factor (the paper's J has only two distinct
#: eigenvalues, which eigh returns a few ulps apart). Using one value for a group perturbs the system by
#: this relative amount, the size of the solver's own round-off and 100x below ovk_ref.tolerances.IDENTITY_RTOL.
EIGENVALUE_TIE = 1e-12

#: ovk_fast's compiled exp (``ovk_fast.compiled``) against the platform's libm ``math.exp``, in units in the last
#: place of libm's value: each is within 1 ulp of the exact value (ours: Cody-Waite reduction, 1 + s + s^2/2 + s^3 q(s)
#: with q a degree-8 fit (CUBIC_TAIL_FIT), one rounding into the subnormals; measured at most 1 ulp from glibc's on
#: 5e5 points of [-750, 712], as numpy's own exp), so at most 2 apart; a wrong coefficient or reduction is off by
#: thousands of ulps.
COMPILED_EXP_ULPS = 2
#: the largest relative error of the compiled exp's reduced-range polynomial ``e^s = 1 + s + s^2/2 + s^3 q(s)``
#: (``ovk_fast.compiled._CUBIC_TAIL``) on |s| <= ln2 / 2: the fit's own, at 50 digits, before any float64 rounding
#: (3.3e-17 measured on 4001 points; a third of an ulp), so that the rounding of its evaluation stays within
#: COMPILED_EXP_ULPS
CUBIC_TAIL_FIT = 3.4e-17
