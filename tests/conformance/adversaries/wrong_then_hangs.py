"""ONORMA and batch ridge of ovk_fast; its MONORMA answers wrongly (all-zero predictions, at once) with three kernels
and never returns otherwise: a case answered wrongly, then the same algorithm blocked by two time-outs before the
rerun of that case (the oracle crashed there, exit 70, with a JSON report holding only an error line)."""
import time

import numpy as np

import ovk_fast

onorma, batch_ridge = ovk_fast.onorma, ovk_fast.batch_ridge


def monorma(X, Y, kernels, *args, **kwargs):
    if len(kernels) == 3:
        return {"predictions": np.zeros(np.shape(Y))}
    while True:
        time.sleep(1)
