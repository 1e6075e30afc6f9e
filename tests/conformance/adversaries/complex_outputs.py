"""ovk_ref's predictions plus an imaginary part of 1e6 (passed with a ComplexWarning only); it also prints to
stdout and reads stdin, which must not disturb the oracle's protocol with its worker."""
import sys

import ovk_ref

print("complex_outputs: imported")
sys.stdin.read()


def onorma(*args, **kwargs):
    return {"predictions": ovk_ref.onorma(*args, **kwargs).predictions + 1e6j}
