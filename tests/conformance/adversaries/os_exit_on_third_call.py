"""ovk_ref's ONORMA, but the process ends with os._exit(0) on the third call (no exception, no output)."""
import os

import ovk_ref

calls = 0


def onorma(*args, **kwargs):
    global calls
    calls += 1
    if calls == 3:
        os._exit(0)
    return ovk_ref.onorma(*args, **kwargs)
