"""Operator-valued kernels (spec 2-3)."""
from ovk_ref.kernels.base import OperatorKernel
from ovk_ref.kernels.feature import Feature, random_feature
from ovk_ref.kernels.linear_quadratic import LinearQuadratic
from ovk_ref.kernels.portable import as_kernel, kernel_from_dict
from ovk_ref.kernels.scalar import Constant, Gaussian, Linear, Polynomial
from ovk_ref.kernels.separable import Separable, gaussian_separable, paper_J
from ovk_ref.kernels.weighted_sum import WeightedSum


def gram(kernel, X, Z=None):
    """Block Gram matrix of ``kernel`` (object or dict), block (i, j) = ``K(X[i], Z[j])`` (spec 2.1)."""
    return as_kernel(kernel).gram(X, Z)


__all__ = [
    "OperatorKernel", "Separable", "LinearQuadratic", "Feature", "WeightedSum",
    "Gaussian", "Linear", "Polynomial", "Constant",
    "gaussian_separable", "paper_J", "random_feature", "kernel_from_dict", "as_kernel", "gram",
]
