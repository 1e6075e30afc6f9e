"""``ovk-check claims`` and ``ovk-check verify``: output and exit codes (0 as expected, 1 differs, 2 usage)."""
import json
import zlib

from ovk_cli.cli import main
from proofs_check import CLAIMS
from proofs_check.runner import INFORMATIVE_FLOOR


def test_claims_lists_every_id(capsys):
    assert main(["claims"]) == 0
    out = capsys.readouterr().out
    assert all(claim_id in out for claim_id in CLAIMS)


def test_verify_writes_the_table_and_json(tmp_path, capsys):
    report = tmp_path / "verdicts.json"
    assert main(["verify", "--claim", "def1.psd", "--claim", "monorma.exponents_literal", "--profile", "ci",
                 "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "holds on" in out and "false" in out and "every verdict as expected" in out
    verdicts = {v["claim"]: v for v in json.loads(report.read_text())["verdicts"]}
    psd = verdicts["def1.psd"]
    assert psd["verdict"] == "holds" and psd["informative"] >= psd["floor"] == 20 and psd["instances"] >= psd["informative"]
    # the tightest informative instance: both sides kept, the margin relative to the bound's size
    assert psd["worst_observed"] is not None and psd["worst_bound"] is not None and psd["worst_margin"] is not None
    assert verdicts["monorma.exponents_literal"]["counterexample"]["r"] != 1


def test_verify_exits_1_when_a_verdict_differs(monkeypatch, capsys):
    monkeypatch.setattr(CLAIMS["def1.psd"], "expected", "false")
    assert main(["verify", "--claim", "def1.psd", "--profile", "ci"]) == 1
    assert "differing" in capsys.readouterr().out


def test_verify_rejects_an_unknown_claim(capsys):
    assert main(["verify", "--claim", "no.such.claim"]) == 2
    assert "no.such.claim" in capsys.readouterr().err


def test_verify_with_a_seed_is_reproducible(tmp_path):
    reports = []
    for name in ("a.json", "b.json"):
        assert main(["verify", "--claim", "loss.convex", "--profile", "dev", "--seed", "3", "--json", str(tmp_path / name)]) == 0
        reports.append(json.loads((tmp_path / name).read_text())["verdicts"][0])
    assert reports[0]["worst_margin"] == reports[1]["worst_margin"]


def test_verify_prints_progress_per_claim_with_instance_counts(capsys):
    assert main(["verify", "--claim", "def1.psd", "--claim", "loss.convex", "--profile", "ci"]) == 0
    err = capsys.readouterr().err.splitlines()   # one line per claim as it ends (in any order on several workers)
    assert sorted(line[:6] for line in err) == ["[1/2] ", "[2/2] "]
    assert sorted(line[6:].split(":")[0] for line in err) == ["def1.psd", "loss.convex"]
    assert all(": holds on 25 informative instances of " in line for line in err)


def test_verify_fails_a_claim_below_its_informative_floor(monkeypatch, tmp_path, capsys):
    """An instance the check marks non-informative is drawn and counted but does not count towards the verdict; a
    holds verdict on fewer informative instances than the floor fails the run (exit 1)."""
    check = CLAIMS["def1.psd"].check

    def thin_check(instance, impl=None, precision=None):
        outcome = check(instance, impl, precision)
        # one instance in 500, whatever the strategy draws (a predicate on the draws depends on their distribution)
        outcome.informative = zlib.crc32(json.dumps(instance, sort_keys=True).encode()) % 500 == 0
        return outcome
    monkeypatch.setattr(CLAIMS["def1.psd"], "check", thin_check)
    report = tmp_path / "thin.json"
    assert main(["verify", "--claim", "def1.psd", "--profile", "ci", "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert "below the floor: 20 informative, 80% of the examples asked for" in out and "fewer informative instances than the floor: def1.psd" in out
    verdict = json.loads(report.read_text())["verdicts"][0]
    assert verdict["verdict"] == "holds" and verdict["informative"] < INFORMATIVE_FLOOR * verdict["instances"]
    assert verdict["meets_floor"] is False
