"""Every setting of a reproduction run: the paper's values, and a documented default for each choice it leaves open.

Paper (its Experiments section): ``eta = 1``, ``eta_t = eta / sqrt(t)``, ``lam = 0.01`` for the online
learners; random half split; batch ``lam`` by 5-fold cross-validation. Left open (spec E30(b)): input
scaling, MONORMA's ``r``, truncation, the classification loss, the target scaling, the batch ``lam`` grid,
the data sizes that a laptop-scale rerun can afford.
"""
from __future__ import annotations

from dataclasses import dataclass

from ovk_experiments.data import NAMES
from ovk_experiments.protocol.prepare import INPUT_SCALINGS, TARGET_SCALINGS
from ovk_ref.monorma import check_r

CLASSIFICATION_LOSSES = ("squared", "hinge", "softmax")


#: MONORMA's kernels in every experiment (experiments.kernels.monorma_kernels: 2 or 3); r is checked for the most
MONORMA_KERNELS = 3


@dataclass(frozen=True)
class Settings:
    #: the paper's online parameters
    eta: float = 1.0
    lam: float = 0.01
    #: MONORMA's r (not given): 1 makes the delta update a multiplicative-weights step (spec 6.3)
    r: float = 1.0
    #: ONORMA's truncation (not given): None = keep every coefficient, as Algorithm 1 with s_t = t;
    #: an int s keeps the s most recent ones. MONORMA has no truncation step (spec E23).
    truncation: int | None = None
    #: online loss on Dermatology's one-hot targets (not given): squared = the same least-squares
    #: objective as the batch baseline; hinge / softmax = the classification losses of spec 4
    classification_loss: str = "squared"
    #: input scaling of the paper-setting rows (not given; the paper's inputs live in [0,1]^p)
    input_scaling: str = "unit-box"
    #: regression targets (not given): standardised on the training half, so errors are in units of the
    #: target variance and comparable across data sets
    target_scaling: str = "standardize"
    #: the batch lam grid searched by cross-validation (not given)
    batch_lams: tuple = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
    folds: int = 5
    #: at most this many random rows of each data set are split in half (None: all): every set at its full
    #: size but the school stand-in (15362 rows), because the batch baseline's 5-fold CV costs
    #: (folds x grid) solves of O(t^3) each. The sweep of Figure 2 refits the batch CV at every kernel
    #: parameter, so it uses at most ``sweep_max_examples`` rows
    max_examples: int | None = 8192
    sweep_max_examples: int | None = 2000
    #: number of kernel-parameter values in each sweep of Figure 2
    sweep_points: int = 8
    #: number of training-prefix sizes at which the batch baseline is refitted for Figure 1
    batch_checkpoints: int = 6
    datasets: tuple = NAMES
    #: Table 3 also times the other engine (ovk_ref when the run uses ovk_fast) on the same streams
    table3_both_engines: bool = True
    seed: int = 0
    engine: str = "auto"
    quick: bool = False

    def __post_init__(self):
        if self.classification_loss not in CLASSIFICATION_LOSSES:
            raise ValueError(f"classification_loss must be one of {CLASSIFICATION_LOSSES}, got {self.classification_loss!r}")
        if self.input_scaling not in INPUT_SCALINGS:
            raise ValueError(f"input_scaling must be one of {INPUT_SCALINGS}, got {self.input_scaling!r}")
        if self.target_scaling not in TARGET_SCALINGS:
            raise ValueError(f"target_scaling must be one of {TARGET_SCALINGS}, got {self.target_scaling!r}")
        check_r(self.r, MONORMA_KERNELS)
        if self.truncation is not None and self.truncation < 1:
            raise ValueError(f"truncation must be None or an int >= 1, got {self.truncation!r}")
        for name in ("max_examples", "sweep_max_examples"):
            value = getattr(self, name)
            if value is not None and value < 4 * self.folds:
                raise ValueError(f"{name} must be None or >= 4 * folds = {4 * self.folds}, got {value!r}")
        if self.sweep_points < 2 or self.batch_checkpoints < 1:
            raise ValueError("sweep_points must be >= 2 and batch_checkpoints >= 1")


#: ``--quick``: every experiment on small prefixes, for the test suite (under a minute end to end)
QUICK = dict(max_examples=60, sweep_max_examples=40, sweep_points=3, batch_checkpoints=2,
             batch_lams=(1e-4, 1e-2, 1.0))
