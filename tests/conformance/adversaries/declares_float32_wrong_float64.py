"""A float64 ONORMA whose step size is off by 1e-4, declaring "precision": "float32" to be granted float32's
tolerance: the adopter's class (float64 by default) judges it, and at the float32 class its values are not float32
numbers, and its errors are about 100 times an honest float32 computation's."""
import ovk_fast

conformance_scope = {"precision": "float32", "algorithms": {"onorma": {}}}


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None):
    return ovk_fast.onorma(X, Y, kernel, lam=lam, eta=eta * (1 + 1e-4), loss=loss, truncation=truncation)


def rounded(X, Y, kernel, *, lam, eta, loss="squared", truncation=None):
    """The same, its values rounded to float32 (a float64 computation dressed as float32)."""
    record = onorma(X, Y, kernel, lam=lam, eta=eta, loss=loss, truncation=truncation)
    return {"predictions": record.predictions.astype("float32")}


as_float32 = {"conformance_scope": conformance_scope, "onorma": rounded}
