"""ovk_ref's ONORMA and batch ridge, a MONORMA that raises, and, at import, a patch of the protocol loop of the
process it is imported into: every result file carrying an error is written as "unsupported" instead. conform
used to skip the failing MONORMA cases and pass it."""
import json

import ovk_ref

_dump = json.dump


def _as_skip(content, file, **options):
    if isinstance(content, dict) and "error" in content:
        content = {"unsupported": "(an error turned into a skip)"}
    return _dump(content, file, **options)


json.dump = _as_skip
onorma, batch_ridge = ovk_ref.onorma, ovk_ref.batch_ridge


def monorma(*args, **kwargs):
    raise NotImplementedError("MONORMA is not finished")
