"""Rewrite the JSON Schemas of the ``ovk-conform-1`` protocol whose parts are derived from ovk_ref's definitions
(the kernel families, losses and truncation kinds: ``ovk_conform.vocabulary.derived_schemas``).

    python -m tools.regenerate_schemas            rewrite ovk_conform/schemas/{scope,request}.schema.json
    python -m tools.regenerate_schemas --check    exit 1, naming the files, if one differs from what it should hold

tests/conformance/test_conformance_vocabulary.py fails when a file is not regenerated after a definition changed.
"""
from __future__ import annotations

import argparse
import json
import sys

from ovk_conform.vocabulary import SCHEMAS, derived_schemas


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file differs")
    args = parser.parse_args(argv)
    stale = []
    for name, schema in derived_schemas().items():
        path = SCHEMAS / name
        if json.loads(path.read_text()) == schema:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(json.dumps(schema, indent=1) + "\n")
    if stale:
        print(f"{'stale' if args.check else 'rewritten'}: {', '.join(stale)}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
