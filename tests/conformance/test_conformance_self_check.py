"""The oracle's own sensitivity (issue 33): a generated family of at least 200 region-conditional faults spread over
every axis of the envelope, each switched on only inside its region; a sample of them caught by the cases of a
level, and a planted blind spot (faults that change nothing) reported as missed by ``ovk-check conform
--self-check``. The full matrix is printed by ``ovk-check conform --self-check`` (docs/conformance.md)."""
import collections
import json

import numpy as np
import pytest

from ovk_cli import cli
from ovk_conform import envelope, fresh, runner, self_check


def test_the_family_has_200_faults_over_every_axis_family_and_loss():
    faults = self_check.faults()
    axes = collections.Counter(fault.axis for fault in faults)
    assert len(faults) >= 200 and set(envelope.AXES) | {"family", "loss"} == set(axes)
    for axis, definition in envelope.AXES.items():      # thresholds spread up to the axis's top, every algorithm
        assert definition.top * 0.9 <= max(fault.threshold for fault in faults if fault.axis == axis) <= definition.top
        assert {fault.algorithm for fault in faults if fault.axis == axis} == set(definition.algorithms)
    assert {step for fault in faults for step in [fault.step]} == {step for steps in self_check.STEPS.values()
                                                                   for step in steps}


@pytest.fixture(scope="module")
def cases():
    return fresh.fresh_cases(4, 24)


def test_a_fault_is_off_outside_its_region_and_on_inside(cases):
    for fault in (self_check.Fault("onorma", "step_size", "d", 3), self_check.Fault("monorma", "gamma", "m", 4),
                  self_check.Fault("onorma", "kernel", "t", 20), self_check.Fault("batch_ridge", "solve", "p", 2)):
        engine = getattr(fault.implementation(), fault.algorithm)
        plain = self_check.PLAIN[fault.algorithm]
        inside = [case for case in cases if fault.case_in_region(case)]
        outside = [case for case in cases if case.algorithm == fault.algorithm and not fault.case_in_region(case)]
        assert inside and outside, fault
        for case in outside:     # the same numbers, bit for bit, as the fault-free engine
            expected = plain(case.X, case.Y, **case.call_arguments())
            got = engine(case.X, case.Y, **case.call_arguments())
            for name in (expected if isinstance(expected, dict) else {"coefficients": expected}):
                np.testing.assert_array_equal(got[name] if isinstance(got, dict) else got,
                                              expected[name] if isinstance(expected, dict) else expected)
        assert any(runner.check_case(engine, case).status == "fail" for case in inside), fault


def test_a_sample_of_faults_is_caught_wherever_the_cases_reach_its_region(cases):
    reached = envelope.exercised(cases)
    sample = [fault for fault in self_check.faults() if self_check._inside(fault, reached)
              and any(fault.case_in_region(case) for case in cases)]
    sample = [sample[index] for index in np.random.default_rng(0).choice(len(sample), 25, replace=False)]
    catches = self_check.catch(sample, "sample", cases)
    assert [item.fault.name for item in catches if item.caught_by is None] == []


def test_the_self_check_reports_a_blind_spot_as_missed(tmp_path, monkeypatch, capsys):
    path = tmp_path / "self-check.json"
    assert cli.main(["conform", "--self-check", "5", "--level", "quick", "--seed", "1", "--json", str(path)]) == 0
    assert "fault region" in capsys.readouterr().out and json.loads(path.read_text())["missed_inside"] == []
    monkeypatch.setattr(self_check, "EPSILON", 0.0)     # faults that change nothing: the oracle cannot see them
    assert cli.main(["conform", "--self-check", "5", "--level", "quick", "--seed", "1", "--json", str(path)]) == 1
    report = json.loads(path.read_text())
    assert report["missed_inside"] and "bugs of the oracle" in capsys.readouterr().out
