"""Whose fault a failure is (``ovk_cli.errors``): exit 2 only for a ``UsageError`` (bad input found at the front
door, before any work); anything else that escapes a command is an internal error of ovk, said in one line with
where its traceback is, exit ``errors.INTERNAL``. The internal bugs here are planted: a ValueError raised by the
work itself (not by the input's checks) must not pass for the user's mistake."""
from pathlib import Path

import pytest

import ovk_ref
from ovk_cli import cli, errors

DEMO = ["demo", "-n", "12", "--seed", "0"]


def planted_bug(*args, **kwargs):
    raise ValueError("planted internal bug")


def test_a_bad_parameter_before_the_work_is_a_usage_error(capsys):
    assert cli.main(["demo", "-n", "0"]) == errors.USAGE == 2
    err = capsys.readouterr().err
    assert err.startswith("ovk-check demo: error: ") and err.count("\n") == 1 and "internal" not in err


def test_a_value_error_raised_by_the_work_is_an_internal_error_with_its_traceback_in_a_file(capsys, monkeypatch,
                                                                                            tmp_path):
    monkeypatch.setattr(ovk_ref, "batch_ridge", planted_bug)     # the demo's third learner, after two have run
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert cli.main(DEMO) == errors.INTERNAL == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("ovk-check demo: internal error, please report: ValueError: planted internal bug "
                          "(traceback in ")
    (written,) = tmp_path.glob("ovk-check-internal-error-*.txt")
    assert str(written) in err and "--debug" in err
    assert "planted_bug" in written.read_text() and "ValueError: planted internal bug" in written.read_text()


def test_debug_prints_the_traceback_instead(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(ovk_ref, "batch_ridge", planted_bug)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert cli.main(["--debug", *DEMO]) == errors.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "planted_bug" in err and err.rstrip().endswith("(traceback printed above)")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("error", [KeyError("planted"), RuntimeError("planted"), TypeError("planted")])
def test_any_other_exception_of_the_work_is_internal(error, capsys, monkeypatch, tmp_path):
    def planted(*args, **kwargs):
        raise error
    monkeypatch.setattr(ovk_ref, "batch_ridge", planted)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert cli.main(DEMO) == errors.INTERNAL
    assert f"internal error, please report: {type(error).__name__}: " in capsys.readouterr().err


def test_front_door_turns_the_layers_bad_input_into_a_usage_error_and_nothing_else():
    with pytest.raises(errors.UsageError, match="n must be") as raised, errors.front_door():
        ovk_ref.synthetic(0, p=2, d=1, seed=0)
    assert isinstance(raised.value.__cause__, ValueError)
    with pytest.raises(RuntimeError), errors.front_door():
        raise RuntimeError("not bad input")


def test_the_exit_statuses_are_documented_beside_the_others():
    text = Path(cli.__file__).read_text()
    assert "2 a usage error (``errors.UsageError``" in text and "70 an internal error" in text


@pytest.mark.parametrize("arguments", [
    ["conform", "ovk_fast", "--level", "quick", "--expectations", "{file}"],
    ["conform", "ovk_fast", "--level", "quick", "--replay", "{file}"],
    ["explain", "prop2.iv", "--instance", "@{file}"],
    ["conform", "ovk_fast", "--level", "quick", "--scope", "{file}"],
    ["conform", "ovk_fast", "--level", "quick", "--require", "{file}"]],
    ids=["expectations", "replay", "instance", "scope", "require"])
def test_an_input_file_larger_than_the_limit_is_refused_naming_the_option(arguments, capsys, monkeypatch, tmp_path):
    """``/dev/zero`` given as such a file grew the process to 23.5 GB; here the limit is lowered to 1 KiB and the file
    holds 2 KiB: exit 2 before any work, naming the option."""
    from ovk_ref import input_file
    monkeypatch.setattr(input_file, "LIMIT_BYTES", 1024)
    big = tmp_path / "big.json"
    big.write_text("x" * 2048)
    assert cli.main([argument.format(file=big) for argument in arguments]) == errors.USAGE
    message = capsys.readouterr().err
    assert "holds more than 1024 bytes" in message and arguments[-2] in message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_as_an_expectations_file_is_refused():
    from ovk_ref import input_file
    with pytest.raises(ValueError, match="--expectations /dev/zero holds more than 67108864 bytes"):
        input_file.read_text("/dev/zero", "--expectations")
