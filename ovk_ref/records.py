"""What a run over a whole stream returns. Arrays are float64, or object arrays of mpf with ``precision``."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

#: a field with one row per round t (row t-1)
PER_ROUND = {"rows": "round"}
#: an integer count per round, compared exactly
COUNT_PER_ROUND = {"rows": "round", "exact": True}
#: a field of the final state, one row per coefficient index i
FINAL = {"rows": "final"}


@dataclass
class _Record:
    @classmethod
    def round_fields(cls) -> tuple:
        """The fields with one row per round, in declaration order."""
        return tuple(item.name for item in fields(cls) if item.metadata.get("rows") == "round")

    @classmethod
    def final_fields(cls) -> tuple:
        return tuple(item.name for item in fields(cls) if item.metadata.get("rows") == "final")

    @classmethod
    def exact_fields(cls) -> tuple:
        """The integer counts (compared exactly)."""
        return tuple(item.name for item in fields(cls) if item.metadata.get("exact"))

    def to_dict(self) -> dict:
        """Fields by name (the plug-in protocol reads records as attributes or keys); ``diverged_at`` only
        when the run diverged, so that the dict of a finite run is its arrays alone."""
        return {field.name: getattr(self, field.name) for field in fields(self)
                if not (field.name == "diverged_at" and self.diverged_at is None)}

    def __getitem__(self, name: str):
        return getattr(self, name)


@dataclass
class OnormaRecord(_Record):
    """Algorithm 1 over n rounds (spec 5)."""

    #: n x d, row t-1 is ``f_{t-1}(x_t)``, the online prediction scored at round t
    predictions: np.ndarray = field(metadata=PER_ROUND)
    #: n x d, final ``alpha_{i,n}`` (zero where truncated)
    coefficients: np.ndarray = field(metadata=FINAL)
    #: n x d, ``alpha_{t,t} = -eta_t u_t``
    new_coefficients: np.ndarray = field(metadata=PER_ROUND)
    #: length n, ``||f_t||_H^2`` after round t
    rkhs_norm2: np.ndarray = field(metadata=PER_ROUND)
    #: length n, kernel evaluations (d x d blocks) made by Algorithm 1 in round t (spec 5.4, C23)
    kernel_evaluations: np.ndarray = field(metadata=COUNT_PER_ROUND)
    #: length n, ``s_t`` (number of coefficients kept after round t; t without truncation)
    support_sizes: np.ndarray = field(metadata=COUNT_PER_ROUND)
    #: first round (1-based) whose prediction, new coefficient or norm is not finite (or past the run's
    #: divergence_bound), None when there is none; later rows are not meaningful (ovk_ref.divergence)
    diverged_at: int | None = None


@dataclass
class MonormaRecord(_Record):
    """Algorithm 2 over n rounds (spec 6)."""

    #: n x d, row t-1 is ``f_{t-1}(x_t) = sum_j delta^j_{t-1} g^j_{t-1}(x_t)``
    predictions: np.ndarray = field(metadata=PER_ROUND)
    #: n x m, row t-1 is ``delta_t`` (the weights after round t)
    weights: np.ndarray = field(metadata=PER_ROUND)
    #: n x m, row t-1 is ``gamma_t`` from the recursion (= ``||g^j_t||^2``, spec 6.2)
    gamma: np.ndarray = field(metadata=PER_ROUND)
    #: n x d, final shared ``alpha_{i,n}``
    coefficients: np.ndarray = field(metadata=FINAL)
    #: n x d, ``alpha_{t,t}``
    new_coefficients: np.ndarray = field(metadata=PER_ROUND)
    #: length n, ``m t`` in round t (spec 6.6, C24)
    kernel_evaluations: np.ndarray = field(metadata=COUNT_PER_ROUND)
    #: as ``OnormaRecord.diverged_at``, with the norms ``gamma`` (ovk_ref.divergence)
    diverged_at: int | None = None
