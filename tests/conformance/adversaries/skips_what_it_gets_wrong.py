"""A --command program (run as ``python skips_what_it_gets_wrong.py REQUEST RESULT``) whose ONORMA is right for
separable Gaussian kernels only (it ignores the kernel otherwise) and which answers "unsupported" to every case
it would get wrong, fresh cases included, without declaring a scope: conform used to pass it (the skipped
cases counted for nothing)."""
import json
import sys

import numpy as np

import ovk_ref

with open(sys.argv[1]) as file:
    request = json.load(file)
arguments = dict(request.get("arguments", {}))
if request.get("algorithm") == "onorma" and arguments["kernel"]["type"] == "gaussian_separable":
    X, Y = (np.array([[float.fromhex(v) for v in row] for row in request["inputs"][name]]) for name in "XY")
    truncation = arguments.get("truncation")
    if truncation is not None:
        arguments["truncation"] = (truncation["s"] if truncation["type"] == "window"
                                   else ovk_ref.theorem2_schedule(truncation["t0"], truncation["epsilon"]))
    result = {"fields": {"predictions": ovk_ref.onorma(X, Y, **arguments).predictions.tolist()}}
else:     # the describe request too: it does not say what it offers
    result = {"unsupported": "only the cases this engine gets right"}
with open(sys.argv[2], "w") as file:
    json.dump(result, file)
