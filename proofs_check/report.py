"""The verify table (text and Markdown) and its JSON form, from a list of ``Verdict``."""
from __future__ import annotations

import json
import math

from proofs_check import profiles
from proofs_check.claims import CLAIMS
from proofs_check.margins import shown as shown_margin
from proofs_check.runner import INFORMATIVE_FLOOR


def verdict_text(verdict) -> str:
    """``holds on N informative instances of M drawn`` / ``false`` / ``open (...)`` / ``not applicable`` / ``error``."""
    if verdict.verdict == "false" and verdict.known:
        return "false (known counterexample)"
    if verdict.verdict == "holds":
        return f"holds on {verdict.informative} informative instances of {verdict.instances} drawn"
    if verdict.verdict == "open" and getattr(verdict, "proved", ""):
        return f"proved for {verdict.proved}; open elsewhere (no counterexample in {verdict.informative} informative of {verdict.instances})"
    if verdict.verdict == "open":
        return f"open (no counterexample in {verdict.informative} informative of {verdict.instances})"
    return verdict.verdict


def mark_text(verdict) -> str:
    """What makes a verdict fail the run: a verdict other than the expected one, or too few informative instances."""
    if not verdict.as_expected:
        return f" (! expected {verdict.expected})"
    if not verdict.meets_floor:
        return f" (! below the floor: {verdict.floor} informative, {INFORMATIVE_FLOOR:.0%} of the examples asked for)"
    return ""


def margin_text(verdict) -> str:
    """The margin ``(bound - observed)/scale`` (``scale`` the bound's own size) of the counterexample printed beside it
    for a false verdict, else of the tightest informative instance (``shown_margin``: a tie prints as 0)."""
    if verdict.verdict == "false" and verdict.counterexample_margin is not None:
        return f"{verdict.counterexample_margin:.3g}"
    if verdict.verdict == "not applicable" or math.isinf(verdict.worst_margin):
        return "-"
    return shown_margin(verdict.worst_margin)


def counterexample_text(verdict) -> str:
    if verdict.verdict == "error":
        return verdict.error
    if verdict.counterexample is None:
        return ""
    return json.dumps(verdict.counterexample, separators=(",", ":"))


def table(verdicts, *, markdown: bool = False, statement_width: int = 60) -> str:
    """One row per verdict: claim, statement, verdict, worst relative margin, counterexample; ``!`` marks a
    verdict that differs from the expected one or rests on too few informative instances."""
    header = ("claim", "statement", "verdict", "worst margin", "counterexample")
    rows = []
    for verdict in verdicts:
        statement = CLAIMS[verdict.claim].statement
        if not markdown and len(statement) > statement_width:
            statement = statement[: statement_width - 3] + "..."
        rows.append((verdict.claim, statement, verdict_text(verdict) + mark_text(verdict), margin_text(verdict), counterexample_text(verdict)))
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        code = (1, 4)   # statement and counterexample as code spans (GFM: a pipe in a cell is escaped even there)
        lines += ["| " + " | ".join(f"`{cell}`".replace("|", "\\|") if i in code and cell else cell for i, cell in enumerate(row)) + " |"
                  for row in rows]
        return "\n".join(lines)
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) if i < 4 else 0 for i in range(5)]
    lines = ["  ".join(f"{cell:{widths[i]}s}" for i, cell in enumerate(header)).rstrip()]
    lines += ["  ".join(f"{cell:{widths[i]}s}" for i, cell in enumerate(row)).rstrip() for row in rows]
    return "\n".join(lines)


def chain_text(verdict) -> str:
    """The claim's proof on the instance its verdict names (``Verdict.chain``): the first step that fails, or the
    tightest step, with its margin and round; ``""`` without a chain."""
    chain = verdict.chain
    if not chain:
        return ""
    if chain.get("error"):
        return f"chain not evaluated: {chain['error']}"
    steps = {step["name"]: step for step in chain["steps"]}
    proved = sum(step["symbolic"] is not None for step in chain["steps"])
    refuted = sum(step.get("refuted") is not None for step in chain["steps"])
    counts = f"{len(steps)} steps, {proved} proved by sympy" + (f", {refuted} refuted by sympy" if refuted else "")
    if chain["first_failing"]:
        step = steps[chain["first_failing"]]
        verdict = " (refuted by sympy)" if step.get("refuted") else ""
        return (f"fails at {step['name']}{verdict} (round {chain['first_failing_round']}, margin {shown_margin(chain['first_failing_margin'])}): "
                f"{step['statement']} [{counts}]")
    if chain["tightest"]:
        step = steps[chain["tightest"]]
        proof = ", proved by sympy" if step["symbolic"] else ""
        return f"tightest {step['name']} ({step['status']}{proof}, margin {shown_margin(step['margin'])}): {step['statement']} [{counts}]"
    return f"[{counts}]"


def chains_table(verdicts) -> str:
    """One line per claim with a proof chain (proofs_check.proofs): the step the verdict's instance makes fail, or
    the tightest step."""
    rows = [(verdict.claim, verdict.verdict, chain_text(verdict)) for verdict in verdicts if verdict.chain]
    if not rows:
        return ""
    width = max(len(row[0]) for row in rows)
    lines = [("proof chains (the proof's first failing step on the counterexample, else its tightest step on the tightest "
              "instance; `ovk-check explain CLAIM` prints every step):")]
    lines += [f"  {claim:{width}s}  {verdict:6s}  {text}" for claim, verdict, text in rows]
    return "\n".join(lines)


def received(plan, verdicts) -> dict:
    """Claim id -> what a run gave it: its units, the informative instances they asked for, the instances drawn
    and informative, the seconds."""
    asked = {}
    for unit in plan:
        count = unit.examples or profiles.PROFILES[unit.profile]["max_examples"]
        units, examples = asked.get(unit.claim, (0, 0))
        asked[unit.claim] = (units + 1, examples + count)
    return {verdict.claim: {"units": asked[verdict.claim][0], "asked": asked[verdict.claim][1],
                            "drawn": verdict.instances, "informative": verdict.informative,
                            "worst_margin": None if math.isinf(verdict.worst_margin) else verdict.worst_margin,
                            "seconds": round(verdict.seconds, 2)} for verdict in verdicts}


def received_table(plan, verdicts) -> str:
    """``received`` as a text table, one row per claim."""
    rows = received(plan, verdicts)
    lines = [f"{'claim':36s} {'units':>5s} {'asked':>7s} {'drawn':>7s} {'informative':>11s} {'seconds':>8s}"]
    lines += [f"{claim_id:36s} {row['units']:5d} {row['asked']:7d} {row['drawn']:7d} {row['informative']:11d} "
              f"{row['seconds']:8.1f}" for claim_id, row in rows.items()]
    return "\n".join(lines)


def to_json(verdicts, **metadata) -> str:
    return json.dumps({**metadata, "verdicts": [verdict.to_dict() for verdict in verdicts]}, indent=2, default=float)
