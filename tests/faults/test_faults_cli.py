"""Every condition a user causes on the CLI ends with its documented exit status and one line, never a traceback.

Here the usage errors, in process (an exception escaping ``cli.main`` would be the traceback); the conditions
that need a real process are driven elsewhere in this folder: a full disk or ``/dev/full`` (exit 4,
test_faults_full_disk), Ctrl-C and SIGTERM (130, 143, test_faults_kills); a closed pipe (141) and output paths
checked before the work (2) in tests/cli/test_cli_behaviour.py.
"""
import pytest

from ovk_cli import cli

QUICK = ["reproduce", "--quick", "--no-progress"]
CASES = [
    (["verify", "--claim", "no.such.claim"], "--claim must be a registered id"),
    (["verify", "--workers", "0"], "--workers must be a whole number of processes >= 1"),
    (["verify", "--split", "0"], "--split must be a whole number of instances >= 1"),
    (["verify", "--budget", "banana"], "--budget must be a time"),
    (["verify", "--scheduler", "banana"], "missing port number"),
    ([*QUICK, "--r", "1e-4"], "r must lie in the usable range [0.05, 1e+03] for 3 kernels in float64"),
    ([*QUICK, "--r", "1e20"], "r must lie in the usable range"),
    ([*QUICK, "--r", "nan"], "r must be finite"),
    ([*QUICK, "--r", "-1"], "r must be > 0"),
    ([*QUICK, "--workers", "0"], "--workers must be a whole number of processes >= 1"),
    ([*QUICK, "--datasets", "nope"], "datasets must be among"),
    ([*QUICK, "--max-examples", "3"], "max_examples must be None or >= 4 * folds"),
    (["notebooks", "--out", "{tmp}/html", "--source", "{tmp}"], "holds no notebook named"),
]


@pytest.mark.parametrize("argv, message", CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_a_usage_error_is_exit_2_in_one_line(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # reproduce's default --out lands here if the check lets it through
    argv = [part.format(tmp=tmp_path) for part in argv]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    assert sorted(path.name for path in tmp_path.iterdir()) == []       # nothing written


@pytest.mark.parametrize("argv", [["verify", "--seed", "x"], ["reproduce", "--batch-lams", "a,b"], ["nope"]],
                         ids=["verify --seed x", "reproduce --batch-lams a,b", "unknown command"])
def test_an_unparsable_option_is_exit_2_with_the_usage(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    assert "usage: ovk-check" in capsys.readouterr().err


def test_no_command_prints_the_help_and_exit_2(capsys):
    assert cli.main([]) == 2
    assert "usage: ovk-check" in capsys.readouterr().out
