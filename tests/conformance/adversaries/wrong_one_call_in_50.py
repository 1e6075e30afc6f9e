"""ovk_fast, wrong on one call in 50 of its process (the call number, counted from an offset that differs from
process to process, so which case it hits changes from run to run): with no rerun it passed one run and failed
another."""
import os

import numpy as np

import ovk_fast

calls = os.getpid() % 50


def _every_50th(record):
    global calls
    calls += 1
    predictions = np.array(record.predictions)
    if calls % 50 == 0:
        predictions[-1] += 1.0
    return {"predictions": predictions, **({"weights": record.weights} if hasattr(record, "weights") else {})}


def onorma(*args, **kwargs):
    return _every_50th(ovk_fast.onorma(*args, **kwargs))


def monorma(*args, **kwargs):
    return _every_50th(ovk_fast.monorma(*args, **kwargs))


batch_ridge = ovk_fast.batch_ridge
