"""Write ``proofs_check/unit_costs.json`` (milliseconds per instance asked of each claim's search) from a ``verify --json``
report, preferably of ``verify --profile thorough``: the costs by which a pool receives the units costliest first
(``proofs_check.units.expected_seconds``). Only the order of submission depends on it, never a result.

    python -m tools.unit_costs REPORT.json
"""
from __future__ import annotations

import argparse
import json

from proofs_check import profiles, units


def costs(report: dict) -> dict:
    """Claim -> milliseconds per instance the profile asks for (two significant digits; a claim found false stops
    early and is cheap), in the report's order."""
    asked = profiles.PROFILES[report["profile"]]["max_examples"]
    return {verdict["claim"]: float(f"{1000 * verdict['seconds'] / asked:.2g}") for verdict in report["verdicts"]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a verify --json report")
    args = parser.parse_args(argv)
    with open(args.report, encoding="utf-8") as handle:
        table = costs(json.load(handle))
    units.UNIT_COSTS.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{units.UNIT_COSTS}: {len(table)} claims")


if __name__ == "__main__":
    main()
