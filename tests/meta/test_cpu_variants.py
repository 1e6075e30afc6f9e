"""Results hold on other CPUs: the pasted outputs, the checkpoints and the golden vectors under two of OpenBLAS's
kernel sets and numpy's SIMD paths restricted (tools/cpu_variants.py runs every variant, the whole suite if asked).

Each variant runs in a subprocess (the kernels are chosen when numpy loads). Two cheap parts: the tests of stored
files (checkpoints, golden vectors) pass there, and the claims whose reports flickered between CPUs (a tie margin's
last digits, the tightest step among equal margins) print there exactly what they print here.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("cpu_variants", ROOT / "tools" / "cpu_variants.py")
cpu_variants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_variants)
#: two variants far from each other and from an AVX-512 machine's own kernels
VARIANTS = ("Haswell", "SandyBridge+numpy-baseline")
#: the claims whose pasted chains differed between SkylakeX and Haswell/SandyBridge kernels (issue 34)
FLICKERED = ("monorma.delta_homogeneous", "batch.commuting_shortcut", "thm1.predictor", "thm2.any_truncation",
             "prop1.ii")
STORED_FILES = ("tests/ref/test_ref_learner_state.py", "tests/conformance/test_conformance_vectors.py",
                "-k", "version_1 or fresh_generation or another_cpu or checkpoint_are_the_stored_rows")
PASTED_CHAINS = ("import sys; from ovk_cli.cli import main; sys.exit(main(['verify', '--profile', 'ci', '--workers', '1', "
                 "'--markdown', " + ", ".join(f"'--claim', '{claim}'" for claim in FLICKERED) + "]))")


def verify_output(settings: dict) -> str:
    done = subprocess.run([sys.executable, "-c", PASTED_CHAINS], cwd=ROOT, env=cpu_variants.environment(settings),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return "\n".join(line for line in done.stdout.splitlines() if "profile ci, seed 0" not in line)   # its seconds


@pytest.fixture(scope="module")
def here() -> str:
    return verify_output({})


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_stored_checkpoints_and_golden_vectors_hold_under_other_kernels(variant):
    settings = cpu_variants.variants()[variant]
    status, summary, _ = cpu_variants.run(settings, list(STORED_FILES))
    assert status == 0, f"{variant} (OpenBLAS took {cpu_variants.probe(settings)['openblas']}): {summary}"


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_reports_print_the_same_under_other_kernels(variant, here):
    assert verify_output(cpu_variants.variants()[variant]) == here, variant


def test_numpy_baseline_turns_every_dispatched_target_off():
    assert cpu_variants.probe(cpu_variants.variants()["numpy-baseline"])["numpy"] == []
