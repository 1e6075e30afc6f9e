"""Whether an output folder of ``ovk-check reproduce`` is complete (what the fault and experiment tests ask)."""
from __future__ import annotations

import json
from pathlib import Path

from ovk_experiments.output.atomic import MANIFEST
from ovk_ref import atomic_file


def is_complete(folder) -> bool:
    """True when ``folder`` holds a manifest and exactly the files it lists, with their recorded sha256."""
    folder = Path(folder)
    try:
        files = json.loads((folder / MANIFEST).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    present = {entry.name for entry in folder.iterdir()} - {MANIFEST}
    return present == set(files) and all(atomic_file.sha256(folder / name) == digest for name, digest in files.items())
