"""ovk_ref's ONORMA, but the process ends with os._exit(0) on its third call if that is the non-separable kernel case
(no exception, no output; the restarted process meets other cases third)."""
import os

import ovk_ref

calls = 0


def onorma(X, Y, kernel, **kwargs):
    global calls
    calls += 1
    if calls == 3 and kernel["type"] == "linear_quadratic":
        os._exit(0)
    return ovk_ref.onorma(X, Y, kernel, **kwargs)
