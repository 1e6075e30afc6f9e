"""Planted faults in the losses of spec 4 (values and subgradients), each in the loss's own code: the algorithm's
gradient step, the comparators ``min R_reg`` and every check that evaluates the loss share it."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, losses
from proofs_check.faults.fault import Fault, Patch


def _squared_without_half(original):
    def value(self, z, y):
        r = z - y
        return np.dot(r, r)
    return value


def _squared_gradient_flipped(original):
    def gradient(self, z, y):
        return y - z
    return gradient


def _squared_gradient_without_half(original):
    def gradient(self, z, y):
        return 2 * (z - y)
    return gradient


def _norm_gradient_unnormalised(original):
    def gradient(self, z, y):
        return z - y
    return gradient


def _huber_linear_without_half(original):
    def value(self, z, y):
        r = z - y
        length = losses.norm(r)
        delta = arithmetic.lift(self.delta, length)
        return np.dot(r, r) / 2 if length <= delta else delta * length - delta**2
    return value


def _huber_gradient_unclipped(original):
    def gradient(self, z, y):
        return z - y
    return gradient


def _tube_ignored(original):
    def gradient(self, z, y):
        r = z - y
        length = losses.norm(r)
        return r * 0 if length == 0 else r / length
    return gradient


def _rival_includes_class(original):
    def margin(self, z, y):
        c = int(np.argmax(arithmetic.to_float(y)))
        k = max(range(len(z)), key=lambda k: (z[k], -k))
        return 1 + z[k] - z[c], k, c
    return margin


def _softmax_unnormalised(original):
    def gradient(self, z, y):
        return arithmetic.exp(z - max(z)) - y
    return gradient


LOSS_FAULTS = [
    Fault("squared_loss_without_half", "loss", "||z - y||^2 in place of (1/2)||z - y||^2 (its gradient kept z - y)",
          (Patch(losses.Squared, "value", _squared_without_half),)),
    Fault("squared_gradient_sign_flipped", "loss", "gradient y - z: the derivative taken with respect to y",
          (Patch(losses.Squared, "gradient", _squared_gradient_flipped),)),
    Fault("squared_gradient_without_half", "loss", "gradient 2 (z - y): the derivative of ||z - y||^2, the 1/2 of spec 4's loss "
          "left out of the step (its value kept)", (Patch(losses.Squared, "gradient", _squared_gradient_without_half),)),
    Fault("norm_gradient_unnormalised", "loss", "subgradient z - y of ||z - y||: the division by ||z - y|| left out",
          (Patch(losses.Norm, "gradient", _norm_gradient_unnormalised),)),
    Fault("huber_linear_piece_without_half", "loss", "delta ||r|| - delta^2 on the linear piece: the 1/2 of delta^2/2 lost",
          (Patch(losses.Huber, "value", _huber_linear_without_half),)),
    Fault("huber_gradient_unclipped", "loss", "Huber's gradient r everywhere: the clip to delta r / ||r|| left out",
          (Patch(losses.Huber, "gradient", _huber_gradient_unclipped),)),
    Fault("epsilon_insensitive_tube_ignored", "loss", "subgradient r / ||r|| inside the tube ||r|| <= epsilon too",
          (Patch(losses.EpsilonInsensitive, "gradient", _tube_ignored),)),
    Fault("hinge_rival_includes_true_class", "loss", "the hinge's rival k* taken over every class, the true one included",
          (Patch(losses.Hinge, "_margin", _rival_includes_class),)),
    Fault("softmax_gradient_unnormalised", "loss", "gradient exp(z - max z) - e_c: the softmax never divided by its sum",
          (Patch(losses.Softmax, "gradient", _softmax_unnormalised),)),
]
