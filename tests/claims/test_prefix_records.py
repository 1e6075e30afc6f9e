"""Every iterate f_t of a run from one pass (``ovk_ref.run_prefixes``, ``claims.common.prefix_records``).

The checks that need ``f_t`` for every t (Theorems 1-2, Prop. 1-2's norm bounds, MONORMA's norm steps) ran the
implementation once per prefix ``X[:t]``; ovk_ref (and every learner fault's implementation) now gives the same
records from one run. Shown here: the records are those of the runs on each prefix, bit for bit, at float64 and at
50 digits, with and without truncation, for both algorithms; the checks give the same outcomes by either path; and
a wrong shortcut (``f_t`` read off the last run, its coefficients cut to t rows) is told apart: by the same comparison,
and, for ONORMA, by the claims themselves.
"""
from __future__ import annotations

import dataclasses
import types
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import ovk_ref
from proofs_check import runner, strategies
from proofs_check.claims import CLAIMS, common
from proofs_check.mutants import MUTANTS

#: ovk_ref's runs, without ``*_prefixes``: ``prefix_records`` then runs each prefix on its own (the former path)
PER_PREFIX = types.SimpleNamespace(onorma=ovk_ref.onorma, monorma=ovk_ref.monorma, batch_ridge=ovk_ref.batch_ridge)

#: the claims whose checks read every prefix of a run
PREFIX_CLAIMS = ("thm1.phi_sum", "thm1.descent", "thm2.dropped_norm", "thm2.any_truncation", "prop1.ii", "prop1.ii_from_f0",
                 "monorma.norm_prop1_factor", "monorma.norm_prop2_factor")


def _cut_to_the_last_run(records: list) -> list:
    """The wrong shortcut: every prefix's coefficients read off the last run (``alpha_{i,n}`` for ``alpha_{i,t}``)."""
    return [dataclasses.replace(record, coefficients=records[-1].coefficients[:t]) for t, record in enumerate(records, 1)]


WRONG_SHORTCUT = types.SimpleNamespace(
    onorma=ovk_ref.onorma, monorma=ovk_ref.monorma, batch_ridge=ovk_ref.batch_ridge,
    onorma_prefixes=lambda *arguments, **options: _cut_to_the_last_run(ovk_ref.onorma_prefixes(*arguments, **options)),
    monorma_prefixes=lambda *arguments, **options: _cut_to_the_last_run(ovk_ref.monorma_prefixes(*arguments, **options)))


def _bits(value) -> str:
    """Every number of a record field, exactly (mpf and float64 alike)."""
    array = np.asarray(value)
    if array.dtype == object:
        return repr([mpmath.mpf(v)._mpf_ if isinstance(v, mpmath.mpf) else v for v in array.ravel()]) + repr(array.shape)
    return array.tobytes().hex() + repr(array.shape) + array.dtype.str


def _same_records(one, other) -> bool:
    return all(_bits(one[name]) == _bits(other[name]) for name in one.to_dict()) and one.diverged_at == other.diverged_at


def _matches_runs_on_each_prefix(impl, algorithm: str, X, Y, *arguments, **options) -> bool:
    records = common.prefix_records(impl, algorithm, X, Y, *arguments, **options)
    return len(records) == len(X) and all(
        _same_records(record, getattr(impl, algorithm)(X[:t], Y[:t], *arguments, **options))
        for t, record in enumerate(records, 1))


def _onorma_case(instance):
    X, Y = common.arrays(instance)
    return X, Y, instance["kernel"], dict(lam=instance["lam"], eta=instance["eta"], loss=instance["loss"],
                                          truncation=common.schedule(instance))


def _monorma_case(instance):
    X, Y = common.arrays(instance)
    return X, Y, instance["kernels"], dict(lam=instance["lam"], eta=instance["eta"], r=instance["r"], loss=instance["loss"])


QUICK = settings(max_examples=10, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


@QUICK
@given(strategies.onorma_instances(truncation=True, min_n=2, max_n=6))
def test_onorma_prefixes_are_the_runs_on_each_prefix_bit_for_bit(instance):
    X, Y, kernel, options = _onorma_case(instance)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert _matches_runs_on_each_prefix(ovk_ref, "onorma", X, Y, kernel, **options)
        with mpmath.workdps(50):
            assert _matches_runs_on_each_prefix(ovk_ref, "onorma", X, Y, kernel, precision=50, **options)


@QUICK
@given(strategies.monorma_instances(min_n=2, max_n=5))
def test_monorma_prefixes_are_the_runs_on_each_prefix_bit_for_bit(instance):
    X, Y, kernels, options = _monorma_case(instance)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert _matches_runs_on_each_prefix(ovk_ref, "monorma", X, Y, kernels, **options)
        with mpmath.workdps(50):
            assert _matches_runs_on_each_prefix(ovk_ref, "monorma", X, Y, kernels, precision=50, **options)


def test_theorem2_schedule_prefixes_drop_terms_as_the_runs_on_each_prefix():
    """Theorem 2's schedule with t0 = 1 drops terms from round 3 on: every prefix's coefficients have their zeros."""
    rng = np.random.default_rng(3)
    X, Y = rng.uniform(size=(9, 2)), rng.uniform(-1, 1, size=(9, 2))
    options = dict(lam=0.5, eta=1.0, loss="squared", truncation=ovk_ref.theorem2_schedule(1, 0.2))
    records = ovk_ref.onorma_prefixes(X, Y, ovk_ref.gaussian_separable(1.0, 2), **options)
    assert np.count_nonzero(np.all(records[-1].coefficients == 0, axis=1)) > 0
    assert _matches_runs_on_each_prefix(ovk_ref, "onorma", X, Y, ovk_ref.gaussian_separable(1.0, 2), **options)


@pytest.mark.parametrize("mutant", ["shrink_skipped", "eta_next_index", "truncation_keeps_one_more", "monorma_weights_on_simplex",
                                    "monorma_prediction_without_weights"])
def test_a_learner_fault_reaches_every_prefix_as_it_reaches_each_run(mutant):
    """A mutant's ``*_prefixes`` carry its fault: the same records as its runs on each prefix."""
    impl = MUTANTS[mutant]
    instance = runner.sample("thm2.dropped_norm" if hasattr(impl, "onorma") else "monorma.norm_prop1_factor", 3)[-1]
    algorithm = "onorma" if hasattr(impl, "onorma") else "monorma"
    X, Y, first, options = (_onorma_case if algorithm == "onorma" else _monorma_case)(instance)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert _matches_runs_on_each_prefix(impl, algorithm, X, Y, first, **options)


@pytest.mark.parametrize("claim_id", PREFIX_CLAIMS)
def test_checks_give_the_same_outcomes_by_one_run_and_by_a_run_per_prefix(claim_id):
    claim = CLAIMS[claim_id]
    for instance in runner.sample(claim_id, 4):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for precision in (None, 50):
                with mpmath.workdps(50 if precision else mpmath.mp.dps):
                    one_run = claim.check(instance, ovk_ref, precision=precision)
                    per_prefix = claim.check(instance, PER_PREFIX, precision=precision)
                assert repr(one_run.__dict__) == repr(per_prefix.__dict__)


def test_a_wrong_shortcut_is_told_apart_from_the_runs_on_each_prefix():
    onorma_instance = runner.sample("thm2.dropped_norm", 4)[-1]
    monorma_instance = runner.sample("monorma.norm_prop1_factor", 4)[-1]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        X, Y, kernel, options = _onorma_case({**onorma_instance, "truncation": None})
        assert not _matches_runs_on_each_prefix(WRONG_SHORTCUT, "onorma", X, Y, kernel, **options)
        X, Y, kernels, options = _monorma_case(monorma_instance)
        assert not _matches_runs_on_each_prefix(WRONG_SHORTCUT, "monorma", X, Y, kernels, **options)


@pytest.mark.parametrize("claim_id", ["thm1.descent", "thm2.dropped_norm"])
def test_the_claims_catch_onorma_iterates_read_off_the_last_run(claim_id):
    verdict = runner.run_claim(claim_id, "ci", impl=WRONG_SHORTCUT, shrink=False)
    assert verdict.verdict == "false"
    assert runner.run_claim(claim_id, "ci", shrink=False).verdict == CLAIMS[claim_id].expected
