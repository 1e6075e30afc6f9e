"""MONORMA's weight update is homogeneous (spec 6.3, C16): the proof that every uniform ``delta_0`` gives the same run,
as a chain.

``f_0 = 0``, so the first prediction is 0 whatever ``delta_0`` and ``delta_0`` enters the run only through ``w_j =
(delta^j_0)^2 gamma^j_1``; the update maps ``s^2 w`` and ``w`` to the same ``delta_1`` (sympy:
``symbolic.PROOFS["monorma_delta_homogeneous"]``), and from ``delta_1`` on the two runs are one. The chain compares
ovk_ref's learner started from ``c 1`` with the one started from ``1/m`` (the claim's runs).
"""
from __future__ import annotations

import numpy as np

from proofs_check.claims.monorma import run_from, start_value, updated_rounds
from proofs_check.proofs.chain import Chain, Step, identity


def _homogeneity(instance, impl) -> list:
    m = len(instance["kernels"])
    paper, other = run_from(instance, 1.0 / m), run_from(instance, start_value(instance))
    rounds = updated_rounds(paper)
    comparisons = [identity("first_prediction", float(np.max(np.abs(other["predictions"][0]))), 0.0, 1.0, 1)]
    for t in range(1, len(paper["weights"]) + 1):
        if rounds and t >= rounds[0]:
            comparisons.append(identity("homogeneity", float(np.max(np.abs(other["weights"][t - 1] - paper["weights"][t - 1]))),
                                        0.0, 1.0, t))
        scale = float(np.max(np.abs(paper["predictions"][t - 1]), initial=0.0))
        comparisons.append(identity("conclusion", float(np.max(np.abs(other["predictions"][t - 1] - paper["predictions"][t - 1]))),
                                    0.0, scale, t))
    return comparisons


CHAINS = [
    Chain("monorma.delta_homogeneous", "spec 6.3: the delta update is homogeneous of degree 0 in delta_{t-1}", (
        Step("first_prediction", "p_1 = sum_j delta^j_0 g^j_0(x_1) = 0 for every delta_0", "f_0 = 0: g^j_0 = 0"),
        Step("homogeneity", "delta_t(c 1 start) = delta_t(1/m start) from the first update on",
             "w -> s^2 w leaves the update unchanged (s = c m at round 1; the same delta_{t-1} after)",
             symbolic="monorma_delta_homogeneous"),
        Step("conclusion", "the predictions of the two runs are equal at every round", "same delta_{t-1}, same alpha, same gamma")),
          _homogeneity, "Alg. 2 step 3; spec 6.3, C16"),
]
