"""A claim's strategy draws informative instances (what its check requires to test the claim at all) at least 80% of
the time: measured once here on up to DRAWS seeded draws per claim in LOOKS stages, where a verify run only counts its
informative instances (runner.INFORMATIVE_FLOOR). A strategy aimed elsewhere than its claim fails this test before it
thins a verdict."""
import functools
import types

import pytest
from scipy import stats

from ovk_cli.parallel import map_ordered
from proofs_check import CLAIMS, runner
from proofs_check.runner import INFORMATIVE_FLOOR

#: draws per claim: a share near 80% is then measured to about +-3 points (one standard deviation)
DRAWS = 200

#: stages of DRAWS / LOOKS draws: a share that a one-sided binomial test at level SHARE_LOOK_ALPHA already
#: places above (or below) the floor after a stage stops there (most strategies draw 95% informative instances or
#: more, and stop after 50 draws); a share near the floor is measured on all DRAWS
LOOKS = 4

#: level of the one-sided binomial test that lets ``informative_share`` decide at an earlier look: each early look
#: changes the outcome of one fixed-size measurement on every draw with probability at most this much
SHARE_LOOK_ALPHA = 1e-3

#: every claim whose verdict rests on a floor of informative instances, but those informative by construction (their
#: check marks every instance informative: the share is 1 whatever the strategy draws)
MEASURED = [claim_id for claim_id, claim in CLAIMS.items()
            if claim.expected != "false" and not claim.informative.startswith("every instance")]


def informative_share(claim_id: str, count: int, seed: int = 0, looks: int = 1) -> tuple:
    """``(informative, drawn)``: the informative share of the claim's strategy on up to ``count`` distinct seeded
    draws, measured with enough draws once (the tests), where a verify run only counts its informative instances.

    The draws come in ``looks`` stages of ``count // looks`` (``sample``, shards 0, 1, ...). After each stage but the
    last the counts so far stop the measurement when a one-sided binomial test already places the share above
    ``INFORMATIVE_FLOOR`` (or below it) at level ``SHARE_LOOK_ALPHA``; the last stage compares the share with the floor
    as a fixed-size measurement does. A strategy at or below the floor is thus passed at most
    ``(looks - 1) * SHARE_LOOK_ALPHA`` more often than by one measurement on all the draws (and one above it failed at
    most that much more often), while a strategy far from the floor stops after a stage."""
    claim, seen, informative = CLAIMS[claim_id], [], 0
    for shard in range(looks):
        instances = [instance for instance in runner.sample(claim_id, count // looks, seed, shard) if instance not in seen]
        seen.extend(instances)
        informative += sum(bool(runner.evaluate(claim, instance)[1].informative) for instance in instances)
        drawn = len(seen)
        if shard < looks - 1 and min(stats.binom.sf(informative - 1, drawn, INFORMATIVE_FLOOR),
                                     stats.binom.cdf(informative, drawn, INFORMATIVE_FLOOR)) <= SHARE_LOOK_ALPHA:
            break
    return informative, drawn


def low_shares(claim_ids, draws=DRAWS, workers=2) -> dict:
    """claim id -> (informative, drawn) for the claims whose informative share is below INFORMATIVE_FLOOR."""
    shares = map_ordered(functools.partial(informative_share, count=draws, looks=LOOKS), claim_ids, workers=workers)
    return {claim_id: share for claim_id, share in zip(claim_ids, shares) if share[0] < INFORMATIVE_FLOOR * share[1]}


@pytest.mark.slow
def test_every_strategy_draws_at_least_four_informative_instances_in_five():
    """~50 claims x 50 to 200 draws, on 2 worker processes."""
    assert low_shares(MEASURED) == {}


def test_a_strategy_aimed_elsewhere_fails(monkeypatch):
    """The planted fault of this test: a check that finds only instances of 4 points or more informative (a strategy
    that draws 1 to 6 points misses half the time) is caught by ``low_shares``, in this process."""
    check = CLAIMS["def1.psd"].check

    def picky(instance, impl=None, precision=None):
        outcome = check(instance, impl, precision)
        outcome.informative = outcome.informative and len(instance["X"]) >= 4
        return outcome
    monkeypatch.setattr(CLAIMS["def1.psd"], "check", picky)
    informative, drawn = low_shares(["def1.psd"], draws=DRAWS, workers=1)["def1.psd"]
    assert drawn >= 40 and informative < 0.6 * drawn


def staged_share(monkeypatch, informative_per_stage, stage=DRAWS // LOOKS) -> tuple:
    """``informative_share`` of a stand-in strategy whose stage ``k`` draws ``stage`` distinct instances, the first
    ``informative_per_stage[k]`` of them informative."""
    monkeypatch.setattr(runner, "sample", lambda claim_id, count, seed, shard: [(shard, i) for i in range(count)])
    monkeypatch.setattr(runner, "evaluate", lambda claim, instance: (
        False, types.SimpleNamespace(informative=instance[1] < informative_per_stage[instance[0]]), False))
    return informative_share("def1.psd", count=DRAWS, looks=LOOKS)


@pytest.mark.parametrize("stages, expected", [
    ((50, 0, 0, 0), (50, 50)),          # 50 of 50: P(Bin(50, 0.8) >= 50) = 1.4e-5, above the floor: stops
    ((49, 0, 0, 0), (49, 50)),          # P(Bin(50, 0.8) >= 49) = 1.9e-4: stops
    ((48, 48, 0, 0), (96, 100)),        # P(Bin(50, 0.8) >= 48) = 1.3e-3 goes on; P(Bin(100, 0.8) >= 96) = 3.7e-6
    ((25, 50, 50, 50), (25, 50)),       # P(Bin(50, 0.8) <= 25) = 2.1e-6, below the floor: stops
    ((42, 38, 40, 30), (150, 200)),     # 84%, 80%, 80% after the early stages is no evidence: 75% on all 200
])
def test_an_early_look_stops_only_on_evidence_beyond_the_floor(monkeypatch, stages, expected):
    """The binomial tails at the floor 0.8 decide an early stop, not the share so far: the planted fault, a rule that
    stops once the share is above the floor, passes the last strategy (42 of 50) that has 75% on all its draws."""
    assert staged_share(monkeypatch, stages) == expected
