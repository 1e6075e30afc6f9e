"""Same command, same report: the lock file, the versions every report records, the Hypothesis releases the
verdicts were compared on (docs/reproducibility.md)."""
import json
import re
from importlib import metadata
from pathlib import Path

from ovk_conform import versions

ROOT = Path(__file__).resolve().parents[2]
COMPARISON = ROOT / "tools" / "hypothesis_releases.json"
#: ``ovk-check`` as installed (its console-script entry point, wherever the package keeps its CLI)
ovk_check = metadata.entry_points(group="console_scripts")["ovk-check"].load()


def release_key(release: str) -> tuple:
    return tuple(int(part) for part in re.match(r"[\d.]+", release).group(0).rstrip(".").split("."))


def test_the_lock_pins_every_line_exactly_and_not_the_project():
    lines = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if line and not line.startswith("#")]
    pins = dict(line.split("==") for line in lines)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+!-]+", line) for line in lines), lines
    assert "ovk" not in pins
    assert {name for name in versions.DISTRIBUTIONS if name != "ovk"} <= set(pins)


def test_ci_installs_with_the_lock_and_runs_the_quickstart_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    quickstart = re.search(r"## Quickstart\n\n```bash\n(.*?)```", readme, flags=re.DOTALL).group(1).splitlines()
    assert '-c constraints.txt -e ".[test]"' in ci and '-c constraints.txt -e ".[test]"' in quickstart[0]
    assert ci.rstrip().splitlines()[-1] == quickstart[1]


def test_the_installed_hypothesis_lies_within_the_releases_whose_verdicts_were_compared():
    """tools/compare_hypothesis_releases.py ran verify --profile ci under each release and found the same verdicts;
    a release outside that span, or a range in pyproject that is not the one compared, needs a new comparison."""
    comparison = json.loads(COMPARISON.read_text())
    declared = re.search(r'"hypothesis([^"]*)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert comparison["declared_range"] == declared, "pyproject's range changed: rerun the comparison"
    assert comparison["verdicts_agree"] and not comparison["differing_verdicts"]
    assert comparison["lowest"] == declared.removeprefix(">=").split(",")[0] + ".0" * (2 - declared.count("."))
    installed = metadata.version("hypothesis")
    assert release_key(comparison["lowest"]) <= release_key(installed) <= release_key(comparison["highest"]), (
        f"Hypothesis {installed} is outside the compared releases {comparison['lowest']} - {comparison['highest']}: "
        "run python -m tools.compare_hypothesis_releases")
    for release, run in comparison["runs"].items():
        assert run["versions"]["hypothesis"] == release and run["exit"] == 0


def test_versions_record_names_python_the_package_and_the_libraries():
    record = versions.record()
    assert set(record) == {"python", "commit", *versions.DISTRIBUTIONS}
    assert record["hypothesis"] == metadata.version("hypothesis") and record["numpy"] == metadata.version("numpy")
    assert versions.line(record).startswith(f"versions: Python {record['python']}, ovk {record['ovk']}, numpy ")


def test_a_library_that_is_not_installed_is_named_so(monkeypatch):
    monkeypatch.setattr(versions, "DISTRIBUTIONS", ("numpy", "no-such-distribution"))
    assert versions.installed()["no-such-distribution"] is None
    assert versions.line().endswith("no-such-distribution not installed")


def test_outside_a_checkout_there_is_no_commit(monkeypatch, tmp_path):
    monkeypatch.setattr(versions, "_CHECKOUT", tmp_path)
    assert versions.commit() is None


def test_the_verify_report_records_the_versions_it_ran_with(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert ovk_check(["verify", "--claim", "loss.convex", "--profile", "ci", "--workers", "1", "--json", str(report)]) == 0
    recorded = json.loads(report.read_text())["versions"]
    assert {key: value for key, value in recorded.items() if key != "commit"} == versions.installed()
    assert versions.line() in capsys.readouterr().out


def test_the_conformance_report_records_the_versions_it_ran_with(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert ovk_check(["conform", "ovk_ref", "--algorithms", "batch_ridge", "--level", "quick", "--fuzz", "0",
                      "--json", str(report)]) == 0
    recorded = json.loads(report.read_text())["versions"]
    assert {key: value for key, value in recorded.items() if key != "commit"} == versions.installed()
    assert versions.line() in capsys.readouterr().out
