"""UCI Dermatology from the copy shipped in this package (provenance: ``dermatology.md`` beside this file).

One-hot targets over the 6 diagnoses (d = 6), as the paper frames it; the 8 missing ``age`` values
are left as NaN here and imputed from the training half by the protocol (``protocol.scaling``).
"""
from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import numpy as np

from ovk_experiments.data.dataset import Dataset

SHA256 = "5e0fbdd7c696ae9c0b9cf119eca6ee16ff91d41baccb7505fbd678faca13e6f2"


def default_path() -> Path:
    return Path(str(resources.files("ovk_experiments.data") / "dermatology.tab"))


def load(path=None) -> Dataset:
    """The data set; ValueError when the file's sha256 is not the recorded one (a damaged or other file)."""
    path = default_path() if path is None else Path(path)
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        raise ValueError(f"{path} has sha256 {digest}, expected {SHA256}: not the shipped Dermatology file")
    lines = raw.decode("utf-8").splitlines()
    names = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[3:] if line]
    target = names.index("type")
    X = np.array([[np.nan if value == "?" else float(value) for i, value in enumerate(row) if i != target]
                  for row in rows])
    labels = [row[target] for row in rows]
    classes = sorted(set(labels))
    Y = np.array([[1.0 if label == c else 0.0 for c in classes] for label in labels])
    return Dataset(name="dermatology", label="Dermatology (UCI)", X=X, Y=Y, task="classification", stand_in=False,
                   source=f"UCI Dermatology, {len(rows)} x {X.shape[1]}, classes {', '.join(classes)}; "
                          "shipped copy, sha256 checked")
