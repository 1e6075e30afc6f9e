"""Planted faults in the kernels of spec 3, one per family (values and parameters), each in the kernel's own code: the
algorithm, the strategies (a kernel's kappa^2) and every check that evaluates the kernel share it."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic
from ovk_ref.kernels import feature, linear_quadratic, scalar, separable, weighted_sum
from proofs_check.faults.fault import Fault, Patch


def _gaussian_bandwidth_doubled(original):
    def gaussian(self, x, z):
        diff = x - z
        return arithmetic.exp(-np.dot(diff, diff) / (2 * arithmetic.lift(self.mu, x)))
    return gaussian


def _linear_with_offset(original):
    def linear(self, x, z):
        return np.dot(x, z) + arithmetic.lift(1.0, x)
    return linear


def _polynomial_offset_outside(original):
    def polynomial(self, x, z):
        return np.dot(x, z) ** self.degree + arithmetic.lift(self.offset, x)
    return polynomial


def _constant_ignores_c(original):
    def constant(self, x, z):
        return arithmetic.lift(1.0, x)
    return constant


def _separable_scalar_at_x(original):
    def separable_kernel(self, x, z):
        return self.scalar(x, x) * arithmetic.lift(self.B, x)
    return separable_kernel


def _paper_J_swapped(original):
    def paper_J(d):
        return 0.1 * np.eye(d) + 0.9 * np.ones((d, d))
    return paper_J


def _linear_quadratic_swapped(original):
    def linear_quadratic(self, x, z):
        inner = np.dot(x, z)
        ones = arithmetic.lift(np.ones((self.d, self.d)), x)
        identity = arithmetic.lift(np.eye(self.d), x)
        mu = arithmetic.lift(self.mu, x)
        return (1 - mu) * inner * ones + mu * inner**2 * identity
    return linear_quadratic


def _feature_constant_dropped(original):
    def features(self, x):
        return np.tensordot(x, arithmetic.lift(self.M, x)[1:], axes=1)
    return features


def _weights_ignored(original):
    def weighted(self, x, z):
        return sum(kernel(x, z) for _, kernel in self.terms)
    return weighted


KERNEL_FAULTS = [
    Fault("gaussian_bandwidth_doubled", "kernel", "exp(-||x - z||^2 / (2 mu)): the bandwidth read in the 2 sigma^2 "
          "convention, where spec 3.1 divides by mu", (Patch(scalar.Gaussian, "__call__", _gaussian_bandwidth_doubled),)),
    Fault("linear_kernel_with_offset", "kernel", "<x, z> + 1: the linear kernel given the polynomial kernel's bias",
          (Patch(scalar.Linear, "__call__", _linear_with_offset),)),
    Fault("polynomial_offset_outside_power", "kernel", "<x, z>^degree + offset: the bias added after the power",
          (Patch(scalar.Polynomial, "__call__", _polynomial_offset_outside),)),
    Fault("constant_kernel_ignores_c", "kernel", "the constant kernel returns 1: its parameter c never read",
          (Patch(scalar.Constant, "__call__", _constant_ignores_c),)),
    Fault("separable_scalar_at_x", "kernel", "k(x, x) B in place of k(x, z) B: a copy-paste slip in the separable kernel",
          (Patch(separable.Separable, "__call__", _separable_scalar_at_x),)),
    Fault("paper_J_weights_swapped", "kernel", "J = 0.1 I + 0.9 11^T: the paper's 1 on the diagonal, 1/10 elsewhere "
          "read the other way round", (Patch(separable, "paper_J", _paper_J_swapped),)),
    Fault("linear_quadratic_weights_swapped", "kernel",
          "(1 - mu) <x,z> 11^T + mu <x,z>^2 I: mu on the wrong term of the non-separable kernel (spec 3.2)",
          (Patch(linear_quadratic.LinearQuadratic, "__call__", _linear_quadratic_swapped),)),
    Fault("feature_constant_term_dropped", "kernel", "A(x) = sum_k x_k M_k: the constant term M_0 of spec 3.3 left out",
          (Patch(feature.Feature, "features", _feature_constant_dropped),)),
    Fault("weighted_sum_weights_ignored", "kernel", "sum_j K^j in place of sum_j w_j K^j: the weights of a sum never read",
          (Patch(weighted_sum.WeightedSum, "__call__", _weights_ignored),)),
]
