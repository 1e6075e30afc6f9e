"""An honest float32 engine of another make than the envelope's: ovk_fast's ONORMA and MONORMA on float32 inputs,
every value returned rounded to float32 (what a GPU engine storing float32 returns). Declares float32."""
import numpy as np

import ovk_fast

conformance_scope = {"precision": "float32", "algorithms": {"onorma": {}, "monorma": {}}}


def _float32(record, names):
    return {name: np.asarray(getattr(record, name)).astype(np.float32) for name in names}


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None):
    X = np.asarray(X, dtype=np.float32).astype(float)
    record = ovk_fast.onorma(X, Y, kernel, lam=lam, eta=eta, loss=loss, truncation=truncation)
    return {**_float32(record, ("predictions", "new_coefficients")), "support_sizes": record.support_sizes}


def monorma(X, Y, kernels, *, lam, eta, r, loss="squared"):
    X = np.asarray(X, dtype=np.float32).astype(float)
    return _float32(ovk_fast.monorma(X, Y, kernels, lam=lam, eta=eta, r=r, loss=loss), ("predictions", "weights"))
