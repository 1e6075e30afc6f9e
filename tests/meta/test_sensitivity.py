"""``ovk-check sensitivity`` on a representative subset (the whole matrix is ``ovk-check sensitivity``, docs/verdicts.md):
a fault is searched only by the claims whose search runs its code, a detection is a verdict that differs from the
reference's, and the outputs say so."""
import json

from ovk_cli import cli
from ovk_cli.parallel import map_ordered
from proofs_check import sensitivity

CLAIMS = ["onorma.closed_form", "kernel.values", "loss.values", "prop2.iv"]
FAULTS = ["shrink_halved", "gaussian_bandwidth_doubled", "squared_gradient_sign_flipped"]


def _in_process(function, units):
    return map_ordered(function, units, workers=1)


def test_the_matrix_searches_each_fault_where_its_code_runs_and_marks_what_changed():
    matrix = sensitivity.run(CLAIMS, FAULTS, "ci", None, run_units=_in_process)
    assert matrix.reference == {"onorma.closed_form": "holds", "kernel.values": "holds", "loss.values": "holds",
                                "prop2.iv": "false"}
    # scope: a kernel fault is not searched by the loss claim, a learner fault not by the kernel claim
    assert not matrix.in_scope("loss.values", "gaussian_bandwidth_doubled")
    assert not matrix.in_scope("kernel.values", "shrink_halved")
    assert matrix.cells["onorma.closed_form"]["shrink_halved"].symbol == "F"
    assert matrix.cells["kernel.values"]["gaussian_bandwidth_doubled"].symbol == "F"
    assert matrix.cells["loss.values"]["squared_gradient_sign_flipped"].symbol == "F"
    assert matrix.violators("shrink_halved") == ["onorma.closed_form"] and not matrix.undetected()
    text = sensitivity.table(matrix)
    assert text.splitlines()[1].split()[:3] == ["onorma.closed_form", "holds", "F"]
    assert "| kernel.values | holds |" in sensitivity.table(matrix, markdown=True)
    legend = sensitivity.legend(matrix)
    assert " 2 gaussian_bandwidth_doubled [kernel]" in legend and "turned false: kernel.values" in legend
    document = json.loads(sensitivity.to_json(matrix))
    assert document["faults"]["shrink_halved"]["turned_false"] == ["onorma.closed_form"]
    assert document["claims"]["kernel.values"]["cells"]["gaussian_bandwidth_doubled"]["counterexample"] is not None


def test_the_command_exits_1_when_a_fault_turns_no_claim_false(capsys):
    assert cli.main(["sensitivity", "--claim", "loss.values", "--fault", "shrink_halved", "--workers", "1"]) == 1
    assert "faults that turned no claim false: shrink_halved" in capsys.readouterr().out


def test_the_command_writes_the_matrix_as_json(capsys):
    code = cli.main(["sensitivity", "--claim", "monorma.all_zero_keeps_delta", "--fault", "all_zero_resets_delta",
                     "--workers", "1", "--json", "-"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["faults"]["all_zero_resets_delta"]["turned_false"] == ["monorma.all_zero_keeps_delta"]


def test_an_unknown_fault_is_a_usage_error(capsys):
    assert cli.main(["sensitivity", "--fault", "no_such_fault"]) == 2
    assert "--fault must name a planted fault" in capsys.readouterr().err
