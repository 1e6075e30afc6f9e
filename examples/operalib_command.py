#!/usr/bin/env python3
"""operalib's ONORMA certified by ``ovk-check conform --command`` (protocol ``ovk-conform-1``, docs/conformance.md):
an adapter for a third-party library, run in the library's own environment.

operalib (https://pypi.org/project/operalib/, 0.2b27, R. Brault) implements ONORMA as a scikit-learn estimator:
``ONORMA(kernel, lbda, eta, power=0.5)`` shrinks the stored coefficients by ``1 - eta_t lbda`` and adds
``-eta_t (f_{t-1}(x_t) - y_t)`` with ``eta_t = eta / t^power``, t counted from 1: the spec's ONORMA (section 5.1)
with the squared loss. Its kernels ``DGauss`` (``exp(-gamma |x - z|^2) A``) and ``DotProduct``
(``mu <x, z> 1 1^T + (1 - mu) <x, z>^2 I``) are the spec's separable Gaussian kernel (``gamma = 1 / mu``, ``A = B``)
and linear-quadratic kernel. So this adapter declares ONORMA with those two kernels, the squared loss and no
truncation: operalib's ``truncation`` parameter is documented "TODO" and ignored. It also answers truncated
ONORMA cases and batch ridge (``OVKRidge``, an L-BFGS-B minimisation of ``|G c - y|^2 / 2 t d + lbda c'G c / 2 t d``,
whose minimiser is the spec's system ``(G + t lam I) c = y`` with ``lbda = t lam``) when a scope given with
``--scope`` asks for them, to show where operalib departs from the reference (docs/conformance.md).

    python -m venv operalib-env && operalib-env/bin/pip install "setuptools<81" wheel numpy scipy scikit-learn
    operalib-env/bin/pip install --no-build-isolation operalib
    ovk-check conform --command "operalib-env/bin/python examples/operalib_command.py" --level standard

operalib 0.2b27 predates NumPy 2 and scikit-learn 0.23: it imports ``sklearn.externals.six`` and ``numpy.NaN`` /
``numpy.float``, and calls ``check_array(force_all_finite=...)`` (``ensure_all_finite`` since scikit-learn 1.6);
``_import_operalib`` supplies those names.
"""
import inspect
import json
import sys
import types

import numpy as np

SCOPE = {"algorithms": {"onorma": {"kernels": ["gaussian_separable", "linear_quadratic"], "losses": ["squared"],
                                   "truncations": ["none"], "inputs": ["near", "scaled"]}}}


def _import_operalib():
    six = types.ModuleType("sklearn.externals.six")
    six.moves = types.ModuleType("sklearn.externals.six.moves")
    six.moves.xrange = range
    sys.modules.setdefault("sklearn.externals.six", six)
    sys.modules.setdefault("sklearn.externals.six.moves", six.moves)
    for name, value in (("NaN", np.nan), ("float", float)):
        if not hasattr(np, name):
            setattr(np, name, value)
    import operalib
    from sklearn.utils import check_array
    if "force_all_finite" not in inspect.signature(check_array).parameters:     # renamed in scikit-learn 1.6
        def check_array_with_the_old_name(*args, force_all_finite=True, **kwargs):
            return check_array(*args, ensure_all_finite=force_all_finite, **kwargs)
        operalib.ridge.check_array = check_array_with_the_old_name
    return operalib


def decode(values):
    return np.vectorize(lambda v: float.fromhex(v) if isinstance(v, str) else float(v), otypes=[float])(
        np.array(values, dtype=object))


def _kernel(operalib, kernel: dict, d: int) -> dict:
    if kernel["type"] == "gaussian_separable":
        return {"kernel": "DGauss", "gamma": 1.0 / kernel["mu"], "A": np.array(kernel["B"], dtype=float)}
    if kernel["type"] == "linear_quadratic":
        return {"kernel": "DotProduct", "mu": kernel["mu"]}
    raise ValueError(f"operalib has no kernel {kernel['type']!r}")


def onorma(operalib, X, Y, arguments):
    """Predictions f_{t-1}(x_t) of operalib's ONORMA, fed one example at a time (``partial_fit``), the coefficient each
    round adds and the final coefficients (operalib's ``coefs_``, point-major as the protocol's)."""
    model = operalib.ONORMA(**_kernel(operalib, arguments["kernel"], Y.shape[1]), lbda=arguments["lam"],
                            eta=arguments["eta"], power=0.5, learning_rate="invscaling",
                            truncation=arguments.get("truncation"))
    predictions, new = np.zeros_like(Y), np.zeros_like(Y)
    d = Y.shape[1]
    for t in range(len(X)):
        if t:
            predictions[t] = np.reshape(model.predict(X[t:t + 1]), -1)
        model.partial_fit(X[t:t + 1], Y[t:t + 1])
        new[t] = model.coefs_[t * d:(t + 1) * d]
    return {"predictions": predictions, "new_coefficients": new,
            "coefficients": np.reshape(model.coefs_[:len(X) * d], Y.shape)}


def batch_ridge(operalib, X, Y, arguments):
    kernel = _kernel(operalib, arguments["kernel"], Y.shape[1])
    if kernel.pop("kernel") != "DGauss":
        raise ValueError("operalib's OVKRidge has no linear-quadratic kernel")
    model = operalib.OVKRidge(ovkernel="DGauss", lbda=len(X) * arguments["lam"], gamma=kernel["gamma"], A=kernel["A"])
    model.fit(X, Y)
    return {"coefficients": np.reshape(model.dual_coefs_, Y.shape)}


def main(request_path, result_path):
    with open(request_path) as file:
        request = json.load(file)
    if request.get("describe"):
        result = {"scope": SCOPE}
    else:
        operalib = _import_operalib()
        X, Y = decode(request["inputs"]["X"]), decode(request["inputs"]["Y"])
        algorithm = {"onorma": onorma, "batch_ridge": batch_ridge}.get(request["algorithm"])
        if algorithm is None:
            result = {"error": f"operalib has no {request['algorithm']}"}
        else:
            fields = algorithm(operalib, X.reshape(len(X), -1), Y.reshape(len(Y), -1), request["arguments"])
            result = {"fields": {name: [[float.hex(float(v)) for v in row] for row in values]
                                 for name, values in fields.items()}}
    with open(result_path, "w") as file:
        json.dump(result, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
