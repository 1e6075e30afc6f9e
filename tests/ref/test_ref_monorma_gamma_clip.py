"""The clip of spec 6.1 step 6, ``w_j = (delta^j_{t-1})^2 max(gamma^j_t, 0)``: a gamma that is 0 in exact arithmetic
but comes out of the recursion as a round-off negative number must give w_j = 0, not a NaN weight."""
import numpy as np

import ovk_ref
from ovk_ref import tolerances


def test_a_round_off_negative_gamma_keeps_the_weights():
    """Constant kernel K = 1, one point twice, y_2 chosen so that alpha_{2,2} = -c_2 alpha_{1,1}: then
    g_2 = c_2 g_1 + K(., x) alpha_{2,2} = 0, so gamma_2 = 0 exactly; the recursion c_2^2 gamma_1 + alpha_{2,2}^2
    + 2 c_2 v alpha_{2,2} gives -1.1e-16 here. Every w_j = 0, so delta_2 = delta_1 = 1 (m = 1, spec 6.3, 6.4)."""
    eta, lam, y1 = 0.5, 0.3, 1.5
    a1, eta2 = eta * y1, eta / np.sqrt(2)
    c2 = 1 - eta2 * lam
    y2 = a1 - c2 * a1 / eta2      # f_1(x) = a1, so alpha_{2,2} = -eta_2 (a1 - y2) = -c2 a1
    kernel = ovk_ref.Separable(ovk_ref.Constant(1.0), [[1.0]])
    record = ovk_ref.monorma(np.zeros((2, 1)), np.array([[y1], [y2]]), [kernel], lam=lam, eta=eta, r=2.0)
    assert abs(record.gamma[1, 0]) <= tolerances.IDENTITY_ATOL
    assert np.array_equal(record.weights, [[1.0], [1.0]])
