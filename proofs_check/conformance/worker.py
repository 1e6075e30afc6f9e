"""The worker process of ``WorkerHost``: ``python -m proofs_check.conformance.worker MODULE[:ATTR]``.

It imports the implementation, says on its protocol channel (the original stdout; the implementation's own
prints go to stderr, its stdin is empty) which algorithms it offers, then for every line ``{"request": path, "result": path}`` on
stdin calls the algorithm on the case file and writes the result file (``wire.py``), answering
``{"done": true, "seconds": s}``. Inputs are handed over read-only and compared afterwards.
"""
from __future__ import annotations

import json
import os
import sys

from proofs_check.conformance import wire
from proofs_check.conformance.hosts import call_function
from proofs_check.conformance.protocol import load_implementation, offered
from proofs_check.conformance.vectors import decode_floats, truncation_argument


def _arguments(request: dict) -> dict:
    arguments = dict(request["arguments"])
    if "truncation" in arguments:
        arguments["truncation"] = truncation_argument(arguments["truncation"])
    return arguments


def serve(spec: str) -> int:
    # the protocol keeps private copies of stdin and stdout; the implementation's prints go to stderr and its
    # reads of stdin see an empty file
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    requests = os.fdopen(os.dup(0), "r")
    os.dup2(2, 1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        functions = offered(load_implementation(spec))
    except (ValueError, TypeError) as error:
        send({"usage": str(error)})
        return 2
    send({"offers": sorted(functions)})
    for line in requests:
        paths = json.loads(line)
        with open(paths["request"]) as file:
            request = json.load(file)
        algorithm = request["algorithm"]
        X, Y = decode_floats(request["inputs"]["X"]), decode_floats(request["inputs"]["Y"])
        X, Y = X.reshape(len(X), -1), Y.reshape(len(Y), -1)
        result = call_function(functions[algorithm], algorithm, X, Y, _arguments(request))
        try:
            content = ({"error": result.error} if result.error is not None
                       else {"fields": {name: wire.encode_field(value) for name, value in result.fields.items()}})
        except (TypeError, ValueError) as error:
            content = {"error": f"returned a field that is not an array of numbers ({error})"}
        content["mutated"] = result.mutated
        with open(paths["result"], "w") as file:
            json.dump(content, file)
        send({"done": True, "seconds": result.seconds})
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m proofs_check.conformance.worker MODULE[:ATTR]", file=sys.stderr)
        sys.exit(2)
    sys.exit(serve(sys.argv[1]))
