"""ovk_fast with a fault that starts after round 100, 1000 or 2048 (``fault_after_round:after_100``, ...): every
prediction after that round moves by 1e-3. The quick level cannot see it, and says so in its report; the
standard level rejects it."""
from types import SimpleNamespace

import numpy as np

import ovk_fast


def _after(first_wrong):
    def onorma(*args, **kwargs):
        record = ovk_fast.onorma(*args, **kwargs)
        predictions = np.array(record.predictions)
        predictions[first_wrong:] += 1e-3
        return {"predictions": predictions}
    return SimpleNamespace(onorma=onorma, batch_ridge=ovk_fast.batch_ridge, monorma=ovk_fast.monorma)


after_100, after_1000, after_2048 = _after(100), _after(1000), _after(2048)
