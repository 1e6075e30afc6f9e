"""Run tests as they run on other CPUs: under each OpenBLAS kernel set and with numpy's SIMD paths restricted.

A float64 result differs in its last bits from one CPU to another: OpenBLAS picks its kernels by CPU
(``OPENBLAS_CORETYPE`` forces a set: SandyBridge's AVX, Haswell's AVX2 + FMA, SkylakeX's AVX-512, Prescott's SSE3),
and numpy dispatches SIMD loops by CPU (``NPY_DISABLE_CPU_FEATURES`` turns its dispatched targets off, down to its
baseline). This machine can imitate older CPUs' kernels, not newer ones: a core type the CPU lacks falls back (the
table prints the kernel set OpenBLAS really took, from threadpoolctl).

    python -m tools.cpu_variants                          # the CPU-sensitive tests (CPU_SENSITIVE) under every variant
    python -m tools.cpu_variants --variant Haswell numpy-baseline -- tests/ref -x   # chosen variants and tests
    python -m tools.cpu_variants --list                   # the variants and their environments

Exit status: 0 when every variant passed, 1 otherwise. tests/meta/test_cpu_variants.py runs two variants of the
pasted-output, checkpoint and golden-vector tests.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: OpenBLAS kernel sets a user's x86-64 CPU may select (DYNAMIC_ARCH names; an unknown one falls back to the CPU's)
CORE_TYPES = ("SandyBridge", "Haswell", "SkylakeX", "Zen", "Prescott")
#: the tests whose values were stored or pasted on another machine: pasted outputs, checkpoints, golden vectors
CPU_SENSITIVE = ("tests/docs/test_pasted_outputs.py", "tests/ref/test_ref_learner_state.py",
                 "tests/ref/test_ref_checkpoint.py", "tests/conformance/test_conformance_vectors.py")
#: what a child prints about itself: the kernel set OpenBLAS took and numpy's dispatched targets still on
PROBE = ("import json, numpy\n"
         "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__\n"
         "from threadpoolctl import threadpool_info\n"
         "blas = [info.get('architecture') for info in threadpool_info() if info.get('internal_api') == 'openblas']\n"
         "print(json.dumps({'openblas': blas[0] if blas else None,\n"
         "                  'numpy': [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]}))\n")


def numpy_dispatch_targets() -> list[str]:
    """numpy's dispatched SIMD targets (``X86_V3 X86_V4 AVX512_ICL AVX512_SPR`` for numpy 2.4 on x86-64): the names
    ``NPY_DISABLE_CPU_FEATURES`` accepts (its baseline cannot be disabled: numpy refuses to start)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__
    return list(__cpu_dispatch__)


def variants() -> dict[str, dict[str, str]]:
    """Variant name -> the environment variables it sets: ``native``, one per OpenBLAS core type, numpy at its
    baseline, and the oldest kernels with numpy at its baseline."""
    baseline = {"NPY_DISABLE_CPU_FEATURES": " ".join(numpy_dispatch_targets())}
    return {"native": {}, **{core: {"OPENBLAS_CORETYPE": core} for core in CORE_TYPES},
            "numpy-baseline": baseline, "SandyBridge+numpy-baseline": {"OPENBLAS_CORETYPE": "SandyBridge", **baseline}}


def environment(settings: dict[str, str]) -> dict[str, str]:
    """This process's environment with a variant's settings, and without settings of another variant."""
    inherited = {key: value for key, value in os.environ.items()
                 if key not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
    return {**inherited, **settings}


def probe(settings: dict[str, str]) -> dict:
    """What a process with ``settings`` really runs: OpenBLAS's kernel set and numpy's targets still on."""
    done = subprocess.run([sys.executable, "-c", PROBE], env=environment(settings), capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"a process with {settings} does not start: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def run(settings: dict[str, str], pytest_arguments: list[str]) -> tuple[int, str, float]:
    """``python -m pytest -q PYTEST_ARGUMENTS`` in ROOT with ``settings``: exit status, last line, seconds."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_arguments],
                          cwd=ROOT, env=environment(settings), capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or [""]
    if done.returncode not in (0, 5):
        sys.stderr.write(done.stdout[-6000:] + done.stderr[-2000:])
    return done.returncode, lines[-1], time.monotonic() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cpu_variants", description=__doc__.split("\n")[0])
    parser.add_argument("--variant", nargs="+", metavar="NAME", help="the variants to run (default: all of --list)")
    parser.add_argument("--list", action="store_true", help="print the variants and their environments, run nothing")
    parser.add_argument("pytest_arguments", nargs="*", help="after --: what to pass to pytest (default: CPU_SENSITIVE)")
    args = parser.parse_args(argv)
    known = variants()
    if args.list:
        for name, settings in known.items():
            print(f"{name:28s} {' '.join(f'{key}={value!r}' for key, value in settings.items()) or '(this CPU)'}")
        return 0
    unknown = [name for name in args.variant or () if name not in known]
    if unknown:
        parser.error(f"--variant takes names of --list ({', '.join(known)}), got {', '.join(unknown)}")
    failed = 0
    print(f"{'variant':28s} {'OpenBLAS kernels':16s} {'numpy targets on':36s} {'seconds':>8s}  result")
    for name in args.variant or known:
        took = probe(known[name])
        status, summary, seconds = run(known[name], args.pytest_arguments or list(CPU_SENSITIVE))
        failed += status not in (0, 5)
        print(f"{name:28s} {took['openblas'] or '-':16s} {' '.join(took['numpy']) or '(baseline)':36s} "
              f"{seconds:8.1f}  {summary}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
