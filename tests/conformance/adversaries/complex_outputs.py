"""ovk_ref's predictions plus an imaginary part of 1e6 (passed with a ComplexWarning only)."""
import ovk_ref


def onorma(*args, **kwargs):
    return {"predictions": ovk_ref.onorma(*args, **kwargs).predictions + 1e6j}
