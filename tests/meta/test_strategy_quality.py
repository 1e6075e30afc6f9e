"""A claim's strategy draws informative instances (what its check requires to test the claim at all) at least 80% of
the time: measured once here on DRAWS seeded draws per claim, where a verify run only counts its informative instances
(runner.INFORMATIVE_FLOOR). A strategy aimed elsewhere than its claim fails this test before it thins a verdict."""
import functools

import pytest

from ovk_cli.parallel import map_ordered
from proofs_check import CLAIMS
from proofs_check.runner import INFORMATIVE_FLOOR, informative_share

#: draws per claim: a share near 80% is then measured to about +-3 points (one standard deviation)
DRAWS = 200

#: every claim whose verdict rests on a floor of informative instances, but those informative by construction (their
#: check marks every instance informative: the share is 1 whatever the strategy draws)
MEASURED = [claim_id for claim_id, claim in CLAIMS.items()
            if claim.expected != "false" and not claim.informative.startswith("every instance")]


def low_shares(claim_ids, draws=DRAWS, workers=2) -> dict:
    """claim id -> (informative, drawn) for the claims whose informative share is below INFORMATIVE_FLOOR."""
    shares = map_ordered(functools.partial(informative_share, count=draws), claim_ids, workers=workers)
    return {claim_id: share for claim_id, share in zip(claim_ids, shares) if share[0] < INFORMATIVE_FLOOR * share[1]}


@pytest.mark.slow
def test_every_strategy_draws_at_least_four_informative_instances_in_five():
    """~45 claims x 200 draws, on 2 worker processes (about a minute and a half on 2 quiet cores)."""
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
    assert drawn > 150 and informative < 0.6 * drawn
