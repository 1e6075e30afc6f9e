"""ovk_ref's ONORMA, except that it never returns on a stream of one example."""
import time

import ovk_ref


def onorma(X, Y, kernel, **kwargs):
    while len(X) == 1:
        time.sleep(1)
    return ovk_ref.onorma(X, Y, kernel, **kwargs)
