"""Theorem 2's certificate (proofs_check.proofs.theorem2_certificate): the integer schedule is ovk_ref's, the block
and tail bounds enclose the exact sums (and their planted wrong variants do not), and a few points of the stored
table are re-derived (a few certificates, under a second each)."""
import math
import sys

import mpmath
import pytest

import ovk_ref
from ovk_cli.cli import main
from ovk_ref import tolerances
from proofs_check.proofs import theorem2_certificate as certificate
from proofs_check.runner import run_claim

flint = pytest.importorskip("flint")


@pytest.mark.parametrize("t0, epsilon", [(1, "0.1"), (7, "0.25"), (3, "0.4"), (40, "0.45")])
def test_the_integer_schedule_is_ovk_refs(t0, epsilon):
    """Including the exact powers, e.g. (t - t0) = 32 with epsilon = 0.1: 32^0.6 = 8 (spec 5.3)."""
    schedule, reference = certificate.Schedule(t0, epsilon), ovk_ref.theorem2_schedule(t0, float(epsilon))
    assert all(schedule.window(t) == reference(t) for t in range(1, 3000))
    assert certificate.Schedule(1, "0.1").floor_power(32) == 8 and certificate.Schedule(1, "0.1").floor_power(31) == 7


def _exact_block(schedule, rho, a, b):
    """The block's sum from the exact products (balls), term by term."""
    products = certificate._products(rho, b)
    arb = flint.arb
    total = arb(0)
    for t in range(a + 1, b + 1):
        i = schedule.cut(t)
        if i > schedule.cut(t - 1):
            total += (arb(t) / i).sqrt() * products[t] / products[i]
    return total


#: (rho, epsilon, t0, blocks): blocks of 1 %, 10 % and 100 % of their start, right after t0 and far from it
CASES = [("0.5", "0.25", 1, [(100, 101), (1000, 1100), (2000, 4000), (9000, 18000)]),
         ("0.9", "0.4", 1, [(50, 100), (5000, 5050), (8000, 16000)]),
         ("0.2", "0.1", 100, [(101, 300), (300, 330), (1000, 2000), (4000, 8000)]),
         ("0.7", "0.45", 30, [(31, 62), (500, 550), (3000, 6000)])]


@pytest.mark.parametrize("rho, epsilon, t0, blocks", CASES)
def test_the_block_bounds_enclose_the_exact_sums(rho, epsilon, t0, blocks):
    schedule = certificate.Schedule(t0, epsilon)
    r = flint.arb(rho)
    for a, b in blocks:
        upper, lower = certificate.block_bounds(schedule, r, a, b)
        exact = _exact_block(schedule, rho, a, b)
        assert lower <= exact.lower() and exact.upper() <= upper, (a, b, lower, exact, upper)


def _block_bounds_exponent_at_last_window(schedule, r, a, b):
    """Planted: the exponent with ``s_b`` (the largest window of the block) in place of ``s_{a+1}``."""
    upper, lower = certificate.block_bounds(schedule, r, a, b)
    arb = certificate.flint_library().arb
    return upper * (-r * (schedule.window(b) - schedule.window(a + 1)) / arb(b + 1).sqrt()).exp(), lower


def _block_bounds_without_ratio(schedule, r, a, b):
    """Planted: ``sqrt(t/i_t)`` bounded by 1."""
    upper, lower = certificate.block_bounds(schedule, r, a, b)
    arb = certificate.flint_library().arb
    return upper / (arb(b) / (schedule.cut(a) + 1)).sqrt(), lower


def _block_bounds_lower_with_first_window(schedule, r, a, b):
    """Planted: the lower bound's exponent with ``s_{a+1}`` (the smallest window) in place of ``s_b``."""
    upper, lower = certificate.block_bounds(schedule, r, a, b)
    if not lower > 0:
        return upper, lower
    arb = certificate.flint_library().arb
    c_first = schedule.cut(a + 1)
    shift = r * (schedule.window(b) - schedule.window(a + 1)) / (arb(c_first).sqrt() * (1 - r / arb(c_first + 1).sqrt()))
    return upper, lower * shift.exp()


def _tail_bound_without_inverse_epsilon(schedule, r, N):
    """Planted: the substitution's ``1/eps`` forgotten."""
    tail = certificate.tail_bound(schedule, r, N)
    return None if tail is None else tail * (certificate.flint_library().arb(schedule.epsilon.numerator) / schedule.epsilon.denominator)


#: planted faults of the certificate's bounds (each caught below)
WRONG_BLOCK_BOUNDS = {"exponent_at_last_window": _block_bounds_exponent_at_last_window,
                      "ratio_bounded_by_one": _block_bounds_without_ratio,
                      "lower_with_first_window": _block_bounds_lower_with_first_window}
WRONG_TAIL_BOUNDS = {"without_inverse_epsilon": _tail_bound_without_inverse_epsilon}


@pytest.mark.parametrize("name", sorted(WRONG_BLOCK_BOUNDS))
def test_a_wrong_block_bound_misses_an_exact_sum(name):
    wrong = WRONG_BLOCK_BOUNDS[name]
    missed = []
    for rho, epsilon, t0, blocks in CASES:
        schedule = certificate.Schedule(t0, epsilon)
        for a, b in blocks:
            upper, lower = wrong(schedule, flint.arb(rho), a, b)
            exact = _exact_block(schedule, rho, a, b)
            missed.append(upper < exact or lower > exact)
    assert any(missed)


def _lemma_integral(schedule, rho, N):
    """The tail lemma's integral, by quadrature: sqrt2 int_N^inf exp(-c (x+1)^eps) dx, c = rho 2^-beta."""
    eps, beta = float(schedule.epsilon), float(schedule.beta)
    c = float(rho) * 2 ** -beta
    with mpmath.workdps(30):
        return float(math.sqrt(2) * mpmath.quad(lambda y: mpmath.exp(-c * y**eps), [N + 1, 10 * (N + 1), mpmath.inf]))


@pytest.mark.parametrize("rho, epsilon, t0, N", [("0.9", "0.4", 1, 20200), ("0.5", "0.25", 1, 103507)])
def test_the_tail_bound_is_its_integral(rho, epsilon, t0, N):
    """The closed form (an incomplete Gamma function) against quadrature of the lemma's majorant; a planted wrong
    closed form differs."""
    schedule = certificate.Schedule(t0, epsilon)
    closed = certificate.tail_bound(schedule, flint.arb(rho), N)
    integral = _lemma_integral(schedule, rho, N)
    assert closed is not None and math.isclose(float(closed.mid()), integral, rel_tol=tolerances.FLOAT64_VS_MPMATH_RTOL)
    for wrong in WRONG_TAIL_BOUNDS.values():
        assert not math.isclose(float(wrong(schedule, flint.arb(rho), N).mid()), integral, rel_tol=tolerances.FLOAT64_VS_MPMATH_RTOL)


def test_the_tail_bound_is_above_the_exact_terms_past_n():
    """The majorant of lemma T at every round past N, on the exact terms (balls) up to a horizon."""
    schedule, rho, N, horizon = certificate.Schedule(1, "0.4"), "0.3", 20200, 40000
    products, arb = certificate._products(rho, horizon), flint.arb
    c = arb(rho) * arb(2) ** (-arb(9) / 10)
    for t in range(N + 1, horizon + 1):
        i = schedule.cut(t)
        if i > schedule.cut(t - 1):
            term = (arb(t) / i).sqrt() * products[t] / products[i]
            assert term < arb(2).sqrt() * (-c * arb(t + 1) ** (arb(2) / 5)).exp()


def test_the_tail_lemma_needs_its_conditions():
    schedule = certificate.Schedule(1000, "0.25")
    assert certificate.tail_bound(schedule, flint.arb("0.5"), 1500) is None     # N < 2 t0 + 1


def test_the_stored_table_covers_the_grid():
    rows = certificate.stored_table()
    certified = [row for row in rows if row["t0"] is not None]
    assert len(certified) >= 12
    assert any(float(row["rho"]) <= 0.2 for row in certified)
    assert any(row["rho"] == "0.1" and row["epsilon"] == "0.1" for row in certified)


@pytest.mark.parametrize("rho, epsilon", [("0.1", "0.1"), ("0.2", "0.4"), ("0.5", "0.25"), ("0.1", "0.4")])
def test_stored_points_are_re_derived(rho, epsilon):
    """The stored t0 certifies again; the stored failing t0 below it fails again, as stored."""
    row = next(row for row in certificate.stored_table() if (row["rho"], row["epsilon"]) == (rho, epsilon))
    assert certificate.certify(rho, epsilon, row["t0"]).status == "certified"
    if row["below"] is not None:
        assert certificate.certify(rho, epsilon, row["below"]["t0"]).status == row["below"]["status"] != "certified"


def test_a_refuted_certificate_names_an_n_where_it_fails():
    """rho = 0.1, epsilon = 0.1, t0 = 1: round 3 drops i = 1 (s_3 = 2), S_3 = sqrt(3) (1 - 0.1/sqrt2)(1 - 0.1/sqrt3)
    = 1.519 > 8 * 0.1 * sqrt(3) = 1.386 (by hand)."""
    result = certificate.certify("0.1", "0.1", 1)
    assert result.status == "refuted" and result.n == 3
    expected = math.sqrt(3) * (1 - 0.1 / math.sqrt(2)) * (1 - 0.1 / math.sqrt(3)) / (0.8 * math.sqrt(3))
    assert math.isclose(result.ratio, expected, rel_tol=tolerances.IDENTITY_RTOL)


def test_verify_reports_theorem2_as_proved_by_the_formula():
    verdict = run_claim("thm2.exists_t0", "ci")
    assert verdict.verdict == "proved" and verdict.as_expected
    assert verdict.proved.startswith("for every rho in (0, 1), eps in (0, 1/2)")


def test_the_command_certifies_a_point(tmp_path, capsys):
    out = tmp_path / "table.json"
    assert main(["certify-theorem2", "--rho", "0.9", "--epsilon", "0.4", "--workers", "1", "--table", str(out)]) == 0
    assert "| 0.9 | 0.4 | 1 |" in capsys.readouterr().out and out.exists()
    assert main(["certify-theorem2", "--rho", "1.5", "--workers", "1", "--table", str(out)]) == 2
    assert main(["certify-theorem2", "--epsilon", "abc", "--workers", "1", "--table", str(out)]) == 2
    assert "--epsilon decimals in (0, 1/2)" in capsys.readouterr().err


def test_the_command_without_table_writes_nothing_and_leaves_the_packaged_table_alone(tmp_path, monkeypatch, capsys):
    """A new user's ``certify-theorem2 --rho 0.5 --epsilon 0.1`` rewrote the package's table (18 rows became 1, and
    ``verify`` then said "proved for 1 (rho, eps)"): without ``--table`` the table is printed, not written."""
    stored = certificate.TABLE.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["certify-theorem2", "--rho", "0.9", "--epsilon", "0.4", "--workers", "1"]) == 0
    assert "| 0.9 | 0.4 | 1 |" in capsys.readouterr().out
    assert certificate.TABLE.read_bytes() == stored and list(tmp_path.iterdir()) == []


def test_the_command_without_the_proofs_extra_names_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "flint", None)     # import flint raises ImportError
    assert main(["certify-theorem2", "--rho", "0.9", "--epsilon", "0.4", "--workers", "1",
                 "--table", str(tmp_path / "t.json")]) == 2
    assert "optional extra 'proofs'" in capsys.readouterr().err and not (tmp_path / "t.json").exists()
