"""operalib's ONORMA.fit on the benchmark's data, run by an interpreter where operalib installs (bench_ovk.py calls
it; not imported by the project). Prints one JSON line: the seconds of ``fit`` and the path of its coefficients.

operalib 0.2b27 (its latest release) needs an environment of its time: ``pip install "setuptools<81"`` then
``pip install --no-build-isolation operalib`` (its setup.py imports pkg_resources), numpy < 1.24 (it imports
``numpy.bool`` and ``numpy.NaN``) and a scikit-learn >= 0.23 whose ``sklearn.externals.six`` it still imports: aliased
below to the ``six`` package it was (scikit-learn vendored six there until 0.23). Tested with numpy 1.23.5,
scipy 1.11.4, scikit-learn 1.3.2, six 1.17.0 on Python 3.11.

    OPERALIB_PYTHON -m ... benchmarks/operalib_onorma.py DATA.npz OUT.npy   (DATA: X, Y, mu, B, lam, eta)
"""
import json
import sys
import time
import warnings

import numpy as np
import six

sys.modules.setdefault("sklearn.externals.six", six)
sys.modules.setdefault("sklearn.externals.six.moves", six.moves)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")       # operalib's own deprecation warnings (np.bool, np.float)
    import operalib


def main(data_path: str, out_path: str) -> None:
    data = np.load(data_path)
    X, Y, B = data["X"], data["Y"], data["B"]
    mu, lam, eta = float(data["mu"]), float(data["lam"]), float(data["eta"])
    # the paper's ONORMA: eta_t = eta / sqrt(t) (invscaling, power 1/2), shrink 1 - eta_t lam, kernel exp(-|x-z|^2/mu) B
    model = operalib.ONORMA("DGauss", lbda=lam, A=B, learning_rate="invscaling", eta=eta, power=0.5, gamma=1.0 / mu)
    start = time.perf_counter()
    model.fit(X, Y)
    seconds = time.perf_counter() - start
    np.save(out_path, model.coefs_.reshape(Y.shape))
    print(json.dumps({"seconds": seconds, "operalib": operalib.__version__ if hasattr(operalib, "__version__")
                      else "0.2b27", "numpy": np.__version__}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
