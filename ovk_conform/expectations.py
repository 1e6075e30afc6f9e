"""Known deviations (``--expectations FILE``), in the manner of test262's and array-api-tests' expectation
files: a JSON object mapping a case name (``algorithm:id``, shell-style wildcards allowed) to the reason the
implementation deviates there (schema ``schemas/expectations.schema.json``)::

    {"onorma:window-1000-t1500": "truncation is not implemented (tracked in our issue 12)",
     "batch_ridge:*": "our solver minimises another objective"}

A listed case that fails is a known deviation ("xfail": it does not fail the run); a listed case that passes
is reported ("xpass": remove it from the file); an entry that matches no case of the run is reported too.
"""
from __future__ import annotations

import fnmatch
import json

from ovk_ref import input_file


def _read(path) -> str:
    try:
        return input_file.read_text(path, "--expectations")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--expectations {path} cannot be read as JSON: {error}") from None


class Expectations:
    def __init__(self, entries: dict, source: str = ""):
        if not isinstance(entries, dict) or not all(
                isinstance(key, str) and key and isinstance(value, str) and value.strip()
                for key, value in entries.items()):
            raise ValueError(f"expectations {source} must be a JSON object mapping case names (algorithm:id, "
                             f"wildcards allowed) to non-empty reasons")
        self.entries = entries
        self.used = set()

    @classmethod
    def read(cls, path) -> Expectations:
        text = _read(path)
        try:
            return cls(json.loads(text), str(path))
        except json.JSONDecodeError as error:
            raise ValueError(f"--expectations {path} cannot be read as JSON: {error}") from None

    def reason(self, name: str) -> str | None:
        """The reason listed for case ``name`` (the first matching entry), None when it is not listed."""
        for pattern, reason in self.entries.items():
            if fnmatch.fnmatchcase(name, pattern):
                self.used.add(pattern)
                return reason
        return None

    def unused(self) -> list:
        return [pattern for pattern in self.entries if pattern not in self.used]
