# The newcomer's planted fault in the new loss, appended to proofs_check/faults/losses.py.


def _pseudo_huber_gradient_unnormalised(original):
    def gradient(self, z, y):
        return z - y
    return gradient


LOSS_FAULTS.append(Fault(  # noqa: F821
    "pseudo_huber_gradient_unnormalised", "loss", "r in place of r / sqrt(1 + ||r||^2 / delta^2): the squared loss's "
    "gradient", (Patch(losses.PseudoHuber, "gradient", _pseudo_huber_gradient_unnormalised),)))  # noqa: F821
