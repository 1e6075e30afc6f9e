"""A --command program that answers every stored case from the vector files shipped inside the installed package
(every row it finds there, zeros for the rows they do not store) and "unsupported" to everything else: conform
used to pass it (64 passed, 30 fresh cases skipped, exit 0)."""
import gzip
import json
import sys
from importlib.util import find_spec
from pathlib import Path

folder = Path(find_spec("ovk_conform").origin).parent / "vectors"
with open(sys.argv[1]) as file:
    request = json.load(file)
result = {"unsupported": "not in the stored vectors"}
for path in [*folder.glob("*.json"), *folder.glob("regimes/*.json.gz")]:
    if path.name == "MANIFEST.json":
        continue
    data = path.read_bytes()
    content = json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)
    for case in content["cases"]:
        if ([case.get("algorithm", content.get("algorithm")), case["inputs"], case["arguments"]]
                == [request.get("algorithm"), request.get("inputs"), request.get("arguments")]):
            n = len(case["inputs"]["X"])
            fields = {}
            for name, rows in case["expected"].items():
                if case.get("rounds") and name != "coefficients":      # only these rows are stored
                    full = [[0.0] * len(rows[0]) if isinstance(rows[0], list) else 0.0 for _ in range(n)]
                    for t, row in zip(case["rounds"], rows):
                        full[t - 1] = row
                    rows = full
                fields[name] = rows
            result = {"fields": fields}
with open(sys.argv[2], "w") as file:
    json.dump(result, file)
