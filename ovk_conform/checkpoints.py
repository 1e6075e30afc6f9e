"""Every row of a stored stream, compared: rows drawn per run for the streams too long to store in full.

The vector files store every row of every stream up to ``regimes.ALL_ROUNDS_UP_TO`` rounds. The 140000-round
underflow stream would take 4 MB that way: its file stores the rows ``regimes.stored_rounds`` lists (block
boundaries and checkpoints), every final coefficient, and ovk_ref's whole state (``ovk_ref.checkpoint``)
after every ``CHECKPOINT_EVERY``-th round. Each run draws segments of it from its fresh-case seed and
recomputes the ``CHECKPOINT_EVERY`` rounds after each drawn checkpoint with ovk_ref (``DrawnRows``),
before any case is sent: the rows compared change from run to run, so no fixed pattern of unchecked rows
exists for a fault to hide in. ovk_ref resumes bit for bit, so the recomputed rows are the rows an
uninterrupted run gives (``tests/conformance/test_conformance_vectors.py``); where a recomputed row is also stored
(the rounds within 3 of each checkpoint: both ends of every segment) the two must be equal bit for bit, or the
oracle disagrees with itself and gives no verdict (``IntegrityError``). The segments are independent: ``DrawnRows``
submits them to a pool of copies of the oracle's process (``reference.computed_on``) and assembles the case.
"""
from __future__ import annotations

import dataclasses
import json
import zlib

import numpy as np

import ovk_ref
from ovk_conform.manifest import IntegrityError
from ovk_conform.protocol import truncation_argument
from ovk_conform.reference import computed_on
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
    parameters = dict(arguments, truncation=truncation_argument(arguments.get("truncation"), len(X)))
    learner = ovk_ref.ONORMA(parameters.pop("kernel"), **parameters)
    saved = []
    for t in range(len(X)):
        learner.learn_one(X[t], Y[t])
        if (t + 1) % CHECKPOINT_EVERY == 0 and t + 1 < len(X):
            saved.append(json.loads(learner_to_json(learner)))
    return saved


def rows_after(state: dict, X, Y) -> dict:
    """Round fields of the rounds after ``state``, as arrays: ``X``, ``Y`` are the inputs of those rounds (row 0:
    round ``t + 1`` of the stream; at most CHECKPOINT_EVERY rows)."""
    learner = learner_from_json(json.dumps(state))
    rows = []
    for x, y in zip(X, Y):
        learner.learn_one(x, y)
        rows.append(_record(learner))
    return {name: np.array([row[name] for row in rows], dtype=int if name in EXACT_FIELDS else float)
            for name in ROUND_FIELDS["onorma"]}


def segment_inputs(case, index: int) -> tuple:
    """``rows_after``'s arguments for the segment after checkpoint ``index`` of ``case``."""
    state = case.checkpoints[index]
    start = state["state"]["t"]
    return state, case.X[start:start + CHECKPOINT_EVERY], case.Y[start:start + CHECKPOINT_EVERY]


class DrawnRows:
    """The segments of ``case`` drawn from ``seed`` (``segments`` of them), recomputed on ``pool`` (None: here,
    now); ``case()`` waits for them and returns the case with their rows (``case`` itself when it stores every row or
    no checkpoint)."""

    def __init__(self, case, seed: int, segments: int, pool=None):
        self.original, self.seed = case, seed
        if case.rounds is None or not case.checkpoints or segments <= 0:
            self.chosen, self.futures = [], []
            return
        rng = np.random.default_rng([seed, zlib.crc32(case.name.encode())])
        self.chosen = sorted(rng.choice(len(case.checkpoints), size=min(segments, len(case.checkpoints)),
                                        replace=False).tolist())
        self.futures = [computed_on(pool, rows_after, *segment_inputs(case, index)) for index in self.chosen]

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()

    def case(self):
        case = self.original
        if not self.chosen:
            return case
        rows = {int(case.rounds[i]): {name: case.expected[name][i] for name in ROUND_FIELDS[case.algorithm]
                                      if name in case.expected} for i in range(len(case.rounds))}
        stored = set(rows)
        for index, future in zip(self.chosen, self.futures):
            computed = future.result()
            first = case.checkpoints[index]["state"]["t"] + 1
            for offset in range(len(computed["predictions"])):
                row = {name: values[offset] for name, values in computed.items()}
                if first + offset in stored:
                    _check_stored_row(case, first + offset, rows[first + offset], row)
                else:
                    rows[first + offset] = row
        rounds = np.array(sorted(rows))
        expected = dict(case.expected)
        for name in ROUND_FIELDS[case.algorithm]:
            if name in case.expected:
                expected[name] = np.array([rows[t][name] for t in rounds], dtype=case.expected[name].dtype)
        drawn = len(rounds) - len(case.rounds)
        return dataclasses.replace(case, rounds=rounds, expected=expected,
                                   comment=f"{case.comment}; {drawn} rows recomputed for this run from "
                                           f"{len(self.chosen)} checkpoints drawn from seed {self.seed}")


def _check_stored_row(case, t: int, stored: dict, recomputed: dict) -> None:
    """A recomputed row that the vectors also store is that row bit for bit (ovk_ref resumes exactly)."""
    for name, value in stored.items():
        if not np.array_equal(np.asarray(value), np.asarray(recomputed[name])):
            raise IntegrityError(f"{case.name}: {name} of round {t} recomputed from a checkpoint is "
                                 f"{np.asarray(recomputed[name]).tolist()}, the vectors store "
                                 f"{np.asarray(value).tolist()}: the reference disagrees with itself")

