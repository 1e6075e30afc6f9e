"""Does the verdict column of ``ovk-check verify --profile ci`` depend on the Hypothesis release? Run on demand.

Hypothesis releases change what a seed draws, so the counterexamples and margins of a report may differ from one
release to another; the verdicts must not. For each release named (default: the lowest the project accepts,
pyproject's ``hypothesis>=...``, one in the middle and the one ``constraints.txt`` locks), this installs that release
alone into a folder of its own (``pip install --no-deps --target``), runs ``ovk-check verify --profile ci --json`` with
the folder first on ``PYTHONPATH`` (everything else from the current environment), and compares the verdicts claim
by claim. It writes ``tools/hypothesis_releases.json``: the releases, the range they span, each run's verdicts and
versions, and whether the verdicts agree; ``tests/docs/test_reproducibility.py`` checks that the installed Hypothesis
lies within that span. If they differ, narrow ``hypothesis>=...`` in pyproject.toml until they agree.

    python -m tools.compare_hypothesis_releases                      # about one verify --profile ci per release
    python -m tools.compare_hypothesis_releases 6.100.0 6.135.0 6.170.17
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "tools" / "hypothesis_releases.json"
MIDDLE_RELEASE = "6.135.0"
RUN = ("import sys; from importlib.metadata import entry_points; "
       "sys.exit(entry_points(group='console_scripts')['ovk-check'].load()(sys.argv[1:]))")


def declared_range() -> str:
    """The ``hypothesis`` requirement of pyproject.toml, e.g. ``>=6.100``."""
    match = re.search(r'"hypothesis([^"]*)"', (ROOT / "pyproject.toml").read_text())
    return match.group(1)


def locked_release() -> str:
    return re.search(r"^hypothesis==(\S+)$", (ROOT / "constraints.txt").read_text(), flags=re.MULTILINE).group(1)


def release_key(release: str) -> tuple:
    return tuple(int(part) for part in release.split("."))


def default_releases() -> list[str]:
    lowest = re.match(r">=([\d.]+)", declared_range()).group(1)
    lowest = lowest if lowest.count(".") == 2 else lowest + ".0"
    return sorted({lowest, MIDDLE_RELEASE, locked_release()}, key=release_key)


def verify_with(release: str, folder: Path) -> dict:
    """``verify --profile ci --json`` with Hypothesis ``release`` first on the path: its exit status and report."""
    target = folder / release
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    f"hypothesis=={release}"], check=True, capture_output=True)
    report = folder / f"verify-{release}.json"
    environment = {key: value for key, value in os.environ.items() if key not in ("CI", "HYPOTHESIS_PROFILE")}
    environment["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT)])
    done = subprocess.run([sys.executable, "-c", RUN, "verify", "--profile", "ci", "--json", str(report)],
                          cwd=folder, env=environment, capture_output=True, text=True, check=False)
    if not report.exists():
        raise RuntimeError(f"Hypothesis {release}: verify wrote no report (exit {done.returncode}):\n{done.stderr[-3000:]}")
    content = json.loads(report.read_text())
    if content["versions"]["hypothesis"] != release:
        raise RuntimeError(f"the run used Hypothesis {content['versions']['hypothesis']}, not {release}")
    return {"exit": done.returncode, "versions": content["versions"],
            "verdicts": {verdict["claim"]: verdict["verdict"] for verdict in content["verdicts"]},
            "counterexamples": {verdict["claim"]: verdict.get("counterexample") for verdict in content["verdicts"]}}


def compare(runs: dict) -> dict:
    """Claim -> {release: verdict} for the claims whose verdict differs; and how many counterexamples differ."""
    releases = list(runs)
    claims = sorted({claim for run in runs.values() for claim in run["verdicts"]})
    differing = {claim: {release: runs[release]["verdicts"].get(claim) for release in releases} for claim in claims
                 if len({runs[release]["verdicts"].get(claim) for release in releases}) > 1}
    counterexamples = sum(len({json.dumps(runs[release]["counterexamples"].get(claim), sort_keys=True)
                               for release in releases}) > 1 for claim in claims)
    return {"differing_verdicts": differing, "claims_whose_counterexample_differs": counterexamples}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.compare_hypothesis_releases", description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="*", help="Hypothesis releases (default: lowest accepted, 6.135.0, locked)")
    args = parser.parse_args(argv)
    releases = sorted(args.releases or default_releases(), key=release_key)
    runs = {}
    with tempfile.TemporaryDirectory() as folder:
        for release in releases:
            print(f"Hypothesis {release}: verify --profile ci ...", file=sys.stderr, flush=True)
            runs[release] = verify_with(release, Path(folder))
    comparison = compare(runs)
    result = {"command": "ovk-check verify --profile ci --json FILE", "declared_range": declared_range(),
              "releases": releases, "lowest": releases[0], "highest": releases[-1],
              "verdicts_agree": not comparison["differing_verdicts"], **comparison,
              "runs": {release: {key: run[key] for key in ("exit", "versions", "verdicts")} for release, run in runs.items()}}
    RESULT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"releases {', '.join(releases)}: verdicts {'agree' if result['verdicts_agree'] else 'DIFFER'}; "
          f"{comparison['claims_whose_counterexample_differs']} claims found another counterexample; "
          f"exit statuses {[run['exit'] for run in runs.values()]}; written to {RESULT.relative_to(ROOT)}")
    return 0 if result["verdicts_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
