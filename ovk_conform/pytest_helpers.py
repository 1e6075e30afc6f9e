"""One-line helpers for a third party's own test suite (after sklearn's ``check_estimator`` and
``parametrize_with_checks``)::

    from ovk_conform import assert_conforms
    def test_my_engine_conforms():
        assert_conforms(my_engine)

    from ovk_conform import parametrize_with_vectors
    @parametrize_with_vectors(my_engine)          # one test per golden vector, ids "onorma:<case id>"
    def test_my_engine(implementation, check):
        check(implementation)
"""
from __future__ import annotations

import functools

from ovk_conform.manifest import load_cases
from ovk_conform.protocol import offered
from ovk_conform.runner import check_case, run
from ovk_conform.vectors import ALGORITHMS, Case


def assert_conforms(implementation, algorithms=ALGORITHMS, *, level: str = "quick", seed: int = 0) -> None:
    """AssertionError listing every failing case (and its first diverging round) unless all offered cases of
    ``level`` (and its fresh cases drawn from ``seed``) pass."""
    report = run(implementation, algorithms, level=level, seed=seed)
    if not report.passed:
        raise AssertionError("implementation does not conform to the golden vectors:\n" + report.text(verbose=True))


def _assert_case(case: Case, implementation) -> None:
    function = offered(implementation).get(case.algorithm)
    if function is None:
        raise AssertionError(f"{case.name}: the implementation offers no {case.algorithm}")
    outcome = check_case(function, case)
    if outcome.status != "pass":
        raise AssertionError(f"{case.name} ({case.comment}): {outcome.line()}\n{outcome.message}")


def parametrize_with_vectors(implementation, algorithms=None):
    """``pytest.mark.parametrize`` over ``(implementation, check)``, one check per case of the offered algorithms."""
    import pytest

    algorithms = algorithms or tuple(name for name in ALGORITHMS if name in offered(implementation))
    cases = load_cases(algorithms)
    return pytest.mark.parametrize(("implementation", "check"),
                                   [(implementation, functools.partial(_assert_case, case)) for case in cases],
                                   ids=[case.name for case in cases])
