"""``ovk-check claims`` and ``ovk-check verify``: output and exit codes (0 as expected, 1 differs, 2 usage)."""
import json

from proofs_check import CLAIMS
from proofs_check.cli import main


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
    assert verdicts["def1.psd"]["verdict"] == "holds" and verdicts["def1.psd"]["instances"] > 0
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
