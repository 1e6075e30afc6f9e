"""``verify`` gives the same JSON (verdicts, counts, margins, counterexamples) from an editable and a wheel install,
from any working directory and under any hash seed."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proofs_check.runner import search_seed

ROOT = Path(__file__).resolve().parents[2]
#: a claim that holds, one found false (its counterexample shrunk), a MONORMA identity
CLAIM_IDS = ["def1.reproducing", "prop2.i_without_lam", "monorma.copies"]
RUN = ("import sys, proofs_check; from ovk_cli.cli import main; "
       "print(proofs_check.__file__, file=sys.stderr); sys.exit(main(sys.argv[1:]))")


def _verify(cwd: Path, report: Path, hash_seed: str, pythonpath: str = "") -> tuple[list, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": pythonpath}
    env.pop("HYPOTHESIS_PROFILE", None)
    arguments = [sys.executable, "-c", RUN, "verify", "--profile", "ci", "--json", str(report)]
    for claim_id in CLAIM_IDS:
        arguments += ["--claim", claim_id]
    done = subprocess.run(arguments, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = [{key: value for key, value in verdict.items() if key != "seconds"}
                for verdict in json.loads(report.read_text())["verdicts"]]
    return verdicts, done.stderr.splitlines()[0]


@pytest.mark.slow
def test_editable_and_wheel_installs_give_the_same_report(tmp_path):
    wheels, site = tmp_path / "wheels", tmp_path / "wheel-install" / "site-packages"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                    str(next(wheels.glob("ovk-*.whl")))], check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    editable, editable_module = _verify(ROOT, tmp_path / "editable.json", hash_seed="0")
    wheel, wheel_module = _verify(elsewhere, tmp_path / "wheel.json", hash_seed="12345", pythonpath=str(site))

    assert Path(editable_module).is_relative_to(ROOT) and Path(wheel_module).is_relative_to(site)
    assert [verdict["claim"] for verdict in wheel] == CLAIM_IDS
    assert wheel == editable


def test_search_seeds_depend_on_the_claim_and_the_run_seed_only():
    assert search_seed("prop2.iv", 0) == search_seed("prop2.iv", 0)
    assert len({search_seed(claim_id, seed) for claim_id in CLAIM_IDS for seed in range(3)}) == 3 * len(CLAIM_IDS)


PROBE = "\n".join(f"CONSTANT_{k} = {value!r}" for k, value in enumerate([0.123456789, 0.987654321, 0.31415926, 0.2718281828,
                                                                          0.577215664, 0.6180339887, 0.7071067811, 0.4142135623]))
SEARCH = ("import dataclasses, json; from proofs_check.runner import run_claim; "
          "print(json.dumps({k: v for k, v in dataclasses.asdict(run_claim('def1.reproducing', 'ci')).items() if k != 'seconds'}))")


@pytest.mark.slow
def test_a_search_sees_no_local_constants_whatever_the_process_has_loaded_or_other_threads_do(tmp_path, monkeypatch):
    """Hypothesis draws, now and then, numbers read from the process's own modules. Here the process loads a module
    full of numbers in [0, 1] and another thread runs searches of its own (each switching local constants off and
    on) during the search: it must still draw what a fresh process draws."""
    fresh = subprocess.run([sys.executable, "-c", SEARCH], cwd=tmp_path, capture_output=True, text=True, check=True)
    expected = json.loads(fresh.stdout)

    (tmp_path / "ovk_probe_constants.py").write_text(PROBE + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__("ovk_probe_constants")
    from hypothesis.internal.conjecture import providers  # noqa: PLC0415 -- the feature under test is internal
    assert providers._get_local_constants().floats, "the probe module should give Hypothesis local constants"

    import dataclasses
    import threading

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from proofs_check import runner
    stop, errors = threading.Event(), []

    @settings(max_examples=20, database=None, deadline=None)
    @given(st.floats(0.0, 1.0))
    def other_search(x):
        pass     # draws only: a claim's check would also use mpmath, whose precision is one global setting

    def other_searches():
        try:
            while not stop.is_set():
                with runner._without_local_constants():
                    other_search()
        except Exception as error:   # noqa: BLE001 -- reported below
            errors.append(error)

    other = threading.Thread(target=other_searches)
    other.start()
    try:
        got = {k: v for k, v in dataclasses.asdict(runner.run_claim("def1.reproducing", "ci")).items() if k != "seconds"}
    finally:
        stop.set()
        other.join()
    assert not errors
    assert got == expected


@pytest.mark.slow
def test_a_search_draws_the_same_instances_whenever_the_garbage_collector_would_run():
    """The cyclic garbage collector runs when allocation counters cross thresholds, at moments set by all the
    process did before. Before the search fixed those moments, a collection at another point changed the instances
    of a seed: the CI run whose serial and parallel reports
    differed; here the thresholds 30, 100, 150 and 200 each changed this unit's report without the fix."""
    import dataclasses
    import gc

    from proofs_check.runner import run_claim

    def report():
        verdict = run_claim("monorma.copies", "ci", seed=0, shard=3, examples=40)
        return {key: value for key, value in dataclasses.asdict(verdict).items() if key != "seconds"}

    expected = report()
    thresholds = gc.get_threshold()
    try:
        for first_generation in (30, 100, 150, 200):
            gc.set_threshold(first_generation, 10, 10)
            assert report() == expected, f"gc threshold {first_generation}"
    finally:
        gc.set_threshold(*thresholds)


def test_a_search_that_still_draws_a_local_constant_is_an_error_not_a_silent_verdict(monkeypatch):
    """Planted fault: the per-thread switch stops working (the providers see local constants again, numbers in
    [0, 1] that the search's floats may take). The search's exit check must report it as an error verdict."""
    from hypothesis.internal.conjecture import providers

    from proofs_check import runner
    local = providers.Constants()
    local.floats.update([0.123456789, 0.987654321, 0.31415926])
    monkeypatch.setattr(providers.HypothesisProvider, "_local_constants", property(lambda self: local))
    verdict = runner.run_claim("def1.reproducing", "ci")
    assert verdict.verdict == "error" and "LocalConstantsLeak" in verdict.error
