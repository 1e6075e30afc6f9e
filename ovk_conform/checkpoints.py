"""Every row of a stored stream, compared: rows drawn per run for the streams too long to store in full.

The vector files store every row of every stream up to ``regimes.ALL_ROUNDS_UP_TO`` rounds. The 140000-round
underflow stream would take 4 MB that way: its file stores the rows ``regimes.stored_rounds`` lists (block
boundaries and checkpoints), every final coefficient, and ovk_ref's whole state (``ovk_ref.checkpoint``)
after every ``CHECKPOINT_EVERY``-th round. Each run draws segments of it from its fresh-case seed and
recomputes the ``CHECKPOINT_EVERY`` rounds after each drawn checkpoint with ovk_ref (``with_drawn_rows``),
before any case is sent: the rows compared change from run to run, so no fixed pattern of unchecked rows
exists for a fault to hide in. ovk_ref resumes bit for bit, so the recomputed rows are the rows an
uninterrupted run gives (``tests/conformance/test_conformance_vectors.py``).
"""
from __future__ import annotations

import dataclasses
import json
import zlib

import numpy as np

import ovk_ref
from ovk_conform.protocol import truncation_argument
from ovk_conform.vectors import EXACT_FIELDS, ROUND_FIELDS
from ovk_ref.checkpoint import learner_from_json, learner_to_json

#: rounds between two stored states of a long stream, and the length of a drawn segment
CHECKPOINT_EVERY = 256


def _record(learner) -> dict:
    """The round fields of the round the learner has just run (as ``ovk_ref.onorma.run_stream`` records them)."""
    return {"predictions": learner.last_prediction, "new_coefficients": learner.last_new_coefficient,
            "rkhs_norm2": learner.norm2, "kernel_evaluations": learner.last_kernel_evaluations,
            "support_sizes": len(learner.alphas)}


def states(X, Y, arguments: dict) -> list:
    """ovk_ref ONORMA's checkpoints (parsed JSON) after rounds CHECKPOINT_EVERY, 2 CHECKPOINT_EVERY, ... of the stream."""
    parameters = dict(arguments, truncation=truncation_argument(arguments.get("truncation")))
    learner = ovk_ref.ONORMA(parameters.pop("kernel"), **parameters)
    saved = []
    for t in range(len(X)):
        learner.learn_one(X[t], Y[t])
        if (t + 1) % CHECKPOINT_EVERY == 0 and t + 1 < len(X):
            saved.append(json.loads(learner_to_json(learner)))
    return saved


def rows_after(state: dict, X, Y) -> dict:
    """Round fields of the CHECKPOINT_EVERY rounds after ``state`` (or up to the end of the stream), as arrays."""
    learner = learner_from_json(json.dumps(state))
    start = learner.t
    rows = []
    for t in range(start, min(start + CHECKPOINT_EVERY, len(X))):
        learner.learn_one(X[t], Y[t])
        rows.append(_record(learner))
    return {name: np.array([row[name] for row in rows], dtype=int if name in EXACT_FIELDS else float)
            for name in ROUND_FIELDS["onorma"]}


def with_drawn_rows(case, seed: int, segments: int):
    """``case`` with the rows of ``segments`` of its checkpoints' segments (drawn from ``seed``) added to the
    rows compared; the case itself when it stores every row or no checkpoint."""
    if case.rounds is None or not case.checkpoints or segments <= 0:
        return case
    rng = np.random.default_rng([seed, zlib.crc32(case.name.encode())])
    chosen = sorted(rng.choice(len(case.checkpoints), size=min(segments, len(case.checkpoints)), replace=False))
    rows = {int(case.rounds[i]): {name: case.expected[name][i] for name in ROUND_FIELDS[case.algorithm]
                                  if name in case.expected} for i in range(len(case.rounds))}
    for index in chosen:
        state = case.checkpoints[index]
        computed = rows_after(state, case.X, case.Y)
        first = state["state"]["t"] + 1
        for offset in range(len(computed["predictions"])):
            rows.setdefault(first + offset, {name: values[offset] for name, values in computed.items()})
    rounds = np.array(sorted(rows))
    expected = dict(case.expected)
    for name in ROUND_FIELDS[case.algorithm]:
        if name in case.expected:
            expected[name] = np.array([rows[t][name] for t in rounds], dtype=case.expected[name].dtype)
    drawn = len(rounds) - len(case.rounds)
    return dataclasses.replace(case, rounds=rounds, expected=expected,
                               comment=f"{case.comment}; {drawn} rows recomputed for this run from {len(chosen)} "
                                       f"checkpoints drawn from seed {seed}")
