"""Answers the stored basic cases from the vector files and zeros otherwise, and, at import, rewrites the
oracle's own reference code on disk so that the fresh cases' expected values become zeros too: conform used to
import that code after the implementation had started, and passed it. It only writes under the folder named by
the environment variable OVK_ADVERSARY_SANDBOX (a copy of the package made by the test), never elsewhere."""
import os
from importlib.util import find_spec
from pathlib import Path

import numpy as np
from lookup_table import TABLE, key

ZEROS = '''

import numpy as _np
_true_reference_fields = reference_fields


def reference_fields(*args, **kwargs):
    return {name: _np.zeros(_np.shape(value)) for name, value in _true_reference_fields(*args, **kwargs).items()}
'''

sandbox = os.environ.get("OVK_ADVERSARY_SANDBOX")
conformance = Path(find_spec("ovk_conform").origin).parent
if sandbox and conformance.resolve().is_relative_to(Path(sandbox).resolve()):
    for name in ("reference.py", "generate.py"):      # where reference_fields lives (generate.py before)
        path = conformance / name
        if path.exists() and "def reference_fields" in path.read_text():
            path.write_text(path.read_text() + ZEROS)


def onorma(X, Y, kernel, **kwargs):
    return TABLE.get(key("onorma", X, Y, kernel=kernel, **kwargs), {"predictions": np.zeros_like(Y)})


def monorma(X, Y, kernels, **kwargs):
    return TABLE.get(key("monorma", X, Y, kernels=kernels, **kwargs),
                     {"predictions": np.zeros_like(Y), "weights": np.zeros((len(Y), len(kernels)))})


def batch_ridge(X, Y, kernel, **kwargs):
    return TABLE.get(key("batch_ridge", X, Y, kernel=kernel, **kwargs), {"coefficients": np.zeros_like(Y)})["coefficients"]
