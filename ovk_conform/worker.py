"""The implementation's process for ``WorkerHost``: ``python .../ovk_conform/worker.py MODULE[:ATTR]``.

It runs as a script, beside the implementation and nothing of the oracle but ``protocol.py`` and
``hexfloats.py`` (standard library and NumPy): it only executes. It imports the implementation, says on its
protocol channel (the original stdout; the implementation's prints go to stderr, its stdin is empty) which
algorithms it offers and the scope it declares, then for every line ``{"request": path, "result": path}`` on
stdin calls the algorithm on the case file and writes the result file (``wire.py``), answering
``{"done": true, "seconds": s}``. Everything it writes is the implementation's answer: the oracle, in its own
process, decides what the answer means (a pass, a failure, an answer outside the declared scope), so an
implementation that replaces this loop's functions changes only its own answers. The process ends when its
parent, the oracle, is gone.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

import numpy as np

if __package__:
    from ovk_conform import hexfloats, protocol
else:   # run as a script: load the two modules beside this file, not the oracle's package
    import importlib.util

    def _beside(name: str):
        spec = importlib.util.spec_from_file_location(f"_ovk_conform_{name}",
                                                      os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    hexfloats, protocol = _beside("hexfloats"), _beside("protocol")

#: seconds between two checks that the oracle is still there
PARENT_WATCH = 0.5


def call_function(function, algorithm: str, X, Y, arguments: dict) -> dict:
    """Call ``function(X, Y, **arguments)`` on read-only copies of the inputs: ``{"fields": {name: array}}`` or
    ``{"error": message}``, with ``"mutated"`` (the inputs it modified in place, making them writeable again)
    and ``"seconds"``."""
    X_in, Y_in = X.copy(), Y.copy()
    X_in.flags.writeable = Y_in.flags.writeable = False
    started = time.perf_counter()
    try:
        # floating-point warnings (overflow, 0/0) are not a verdict: the values they produce are compared
        with np.errstate(all="ignore"):
            result = function(X_in, Y_in, **arguments)
    except Exception as error:  # the implementation's failure is the finding
        return {"error": f"raised {type(error).__name__}: {error}", "seconds": time.perf_counter() - started}
    seconds = time.perf_counter() - started
    fields = {}
    try:
        for name in protocol.ROUND_FIELDS[algorithm] + protocol.FINAL_FIELDS[algorithm]:
            value = protocol.result_field(algorithm, result, name)
            if value is not None:
                fields[name] = value
    except Exception as error:  # a result whose fields cannot be read is the implementation's failure
        return {"error": f"returned a result whose fields cannot be read ({type(error).__name__}: {error})",
                "seconds": seconds}
    mutated = [name for name, original, given in (("X", X, X_in), ("Y", Y, Y_in))
               if given.shape != original.shape or not np.array_equal(given, original, equal_nan=True)]
    return {"fields": fields, "mutated": mutated, "seconds": seconds}


def encode_field(values):
    """A returned field as JSON: float.hex strings, ints for counts, ``{"real", "imag"}`` for complex arrays."""
    array = np.asarray(values)
    if np.iscomplexobj(array):
        return {"real": hexfloats.encode_floats(array.real), "imag": hexfloats.encode_floats(array.imag)}
    if array.dtype.kind in "iub":
        return array.tolist()
    return hexfloats.encode_floats(array)


def answer(functions: dict, request: dict) -> dict:
    """The result file's content for one request file's content."""
    algorithm = request["algorithm"]
    if algorithm not in functions:
        return {"error": f"offers no {algorithm} function", "seconds": 0.0}
    X = hexfloats.decode_floats(request["inputs"]["X"])
    Y = hexfloats.decode_floats(request["inputs"]["Y"])
    result = call_function(functions[algorithm], algorithm, X.reshape(len(X), -1), Y.reshape(len(Y), -1),
                           protocol.call_arguments(request["arguments"], len(X)))
    if "fields" in result:
        try:
            result["fields"] = {name: encode_field(value) for name, value in result["fields"].items()}
        except (TypeError, ValueError) as error:
            result = {"error": f"returned a field that is not an array of numbers ({error})", "seconds": result["seconds"]}
    return result


def _watch_parent(parent: int) -> None:
    """End this process and its group once the oracle that started it is gone (killed, even by SIGKILL)."""
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH)
    try:
        os.killpg(os.getpgid(0), signal.SIGKILL)   # the worker leads its own process group
    finally:
        os._exit(1)


def serve(spec: str) -> int:
    # the protocol keeps private copies of stdin and stdout; the implementation's prints go to stderr and its
    # reads of stdin see an empty file
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    requests = os.fdopen(os.dup(0), "r")
    os.dup2(2, 1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    try:
        implementation = protocol.load_implementation(spec)
    except (ValueError, TypeError) as error:
        send({"usage": str(error)})
        return 2
    functions = protocol.offered(implementation)
    declaration = {"offers": sorted(functions)}
    try:
        declaration["scope"] = protocol.declared_scope(implementation)
        json.dumps(declaration)
    except Exception as error:  # the declaration is the implementation's code: its failure is reported
        declaration = {"offers": sorted(functions), "scope_error": f"{type(error).__name__}: {error}"}
    send(declaration)
    for line in requests:
        paths = json.loads(line)
        with open(paths["request"]) as file:
            content = answer(functions, json.load(file))
        with open(paths["result"], "w") as file:
            json.dump(content, file)
        send({"done": True, "seconds": content["seconds"]})
    return 0


if __name__ == "__main__":
    # run as a script, Python puts this file's folder first on sys.path: the implementation is looked for in
    # the current directory (and PYTHONPATH) instead, as ``python -m`` would
    sys.path[0] = os.getcwd()
    if len(sys.argv) != 2:
        print("usage: python worker.py MODULE[:ATTR]", file=sys.stderr)
        sys.exit(2)
    sys.exit(serve(sys.argv[1]))
