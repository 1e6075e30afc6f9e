#!/usr/bin/env python3
"""A command-line ONORMA certified by ``ovk-check conform --command`` (protocol ``ovk-conform-1``,
docs/conformance.md): it reads the case file, runs, writes the result file, and uses nothing from this
repository, only the standard library and numpy, so it stands for an implementation in any language.

    ovk-check conform --command "python examples/onorma_command.py" --level quick

It implements ONORMA (spec 5.1) for separable Gaussian kernels, the squared loss and fixed windows, and says
so when the oracle asks (the describe request, before any case): the oracle sends no other case, and reports
the coverage of that scope.
"""
import json
import math
import sys

import numpy as np


def decode(values):
    return np.vectorize(lambda v: float.fromhex(v) if isinstance(v, str) else float(v), otypes=[float])(
        np.array(values, dtype=object))


def onorma(X, Y, mu, B, lam, eta, window):
    n, d = Y.shape
    alpha, predictions = np.zeros((n, d)), np.zeros((n, d))
    lo = 0
    for t in range(n):
        k = np.exp(-np.sum((X[lo:t] - X[t]) ** 2, axis=1) / mu)     # K(x_t, x_i) = k B, i kept
        predictions[t] = B @ (k @ alpha[lo:t])
        eta_t = eta / math.sqrt(t + 1)
        alpha[lo:t] *= 1 - eta_t * lam                                  # shrink
        alpha[t] = -eta_t * (predictions[t] - Y[t])                     # squared loss gradient
        lo = max(lo, t + 1 - window) if window else 0                   # keep the s_t most recent
    return predictions, alpha


SCOPE = {"algorithms": {"onorma": {"kernels": ["gaussian_separable"], "losses": ["squared"],
                                   "truncations": ["none", "window"]}}}


def outside(request):
    """Why a request is outside SCOPE (None when it is inside)."""
    arguments = request["arguments"]
    truncation = (arguments.get("truncation") or {"type": "none"})["type"]
    if request["algorithm"] != "onorma":
        return f"no {request['algorithm']}"
    if arguments["kernel"]["type"] != "gaussian_separable" or arguments["loss"]["type"] != "squared":
        return "only separable Gaussian kernels and the squared loss"
    return None if truncation in ("none", "window") else f"no {truncation} truncation"


def main(request_path, result_path):
    with open(request_path) as file:
        request = json.load(file)
    if request.get("describe"):
        result = {"scope": SCOPE}
    elif outside(request):      # the oracle probes what an engine offers beyond its scope: refuse it
        result = {"unsupported": outside(request)}
    else:       # a case inside SCOPE
        arguments = request["arguments"]
        kernel, truncation = arguments["kernel"], arguments.get("truncation")
        X, Y = decode(request["inputs"]["X"]), decode(request["inputs"]["Y"])
        predictions, alpha = onorma(X, Y, kernel["mu"], np.array(kernel["B"], dtype=float), arguments["lam"],
                                    arguments["eta"], truncation["s"] if truncation else None)
        result = {"fields": {"predictions": [[float.hex(float(v)) for v in row] for row in predictions]}}
    with open(result_path, "w") as file:
        json.dump(result, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
