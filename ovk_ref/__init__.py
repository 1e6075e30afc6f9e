"""ovk_ref: a literal reference implementation of ONORMA, MONORMA and the batch baseline.

"Online Learning with Multiple Operator-valued Kernels" (Audiffren & Kadri), as restated in
the project's spec (docs/paper-spec.md). Every step of each algorithm is one visible line.
"""
from ovk_ref.batch import batch_ridge
from ovk_ref.checkpoint import load_learner, save_learner
from ovk_ref.divergence import DivergenceError, DivergenceWarning
from ovk_ref.kernels import (
    Constant,
    Feature,
    Gaussian,
    Linear,
    LinearQuadratic,
    OperatorKernel,
    Polynomial,
    Separable,
    WeightedSum,
    as_kernel,
    gaussian_separable,
    gram,
    kernel_from_dict,
    paper_J,
    random_feature,
)
from ovk_ref.losses import Loss, as_loss
from ovk_ref.monorma import MONORMA, monorma, monorma_prefixes, r_range
from ovk_ref.online_learner import run_prefixes, run_stream
from ovk_ref.onorma import ONORMA, onorma, onorma_prefixes
from ovk_ref.records import MonormaRecord, OnormaRecord
from ovk_ref.rkhs import evaluate, rkhs_norm2
from ovk_ref.synthetic import synthetic
from ovk_ref.truncation import FixedWindow, ListedSchedule, Theorem2Schedule, theorem2_schedule

#: a fresh ONORMA or MONORMA run over a whole stream, every round recorded (one function for both)
run_onorma = run_monorma = run_stream

__version__ = "0.2.0"
#: version of the conventions fixed by the spec (paper-spec.md); bumps when a convention changes
SPEC_VERSION = "1"

__all__ = [
    "onorma", "ONORMA", "run_onorma", "monorma", "MONORMA", "run_monorma", "onorma_prefixes", "monorma_prefixes", "r_range",
    "run_prefixes", "batch_ridge", "evaluate", "rkhs_norm2", "synthetic",
    "OnormaRecord", "MonormaRecord", "theorem2_schedule", "Theorem2Schedule", "FixedWindow", "ListedSchedule",
    "OperatorKernel", "Separable", "LinearQuadratic", "Feature", "WeightedSum", "Gaussian", "Linear",
    "Polynomial", "Constant", "gaussian_separable", "paper_J", "random_feature", "kernel_from_dict",
    "as_kernel", "gram", "Loss", "as_loss", "DivergenceWarning", "DivergenceError", "save_learner", "load_learner",
]
