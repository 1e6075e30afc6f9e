"""The stored golden vectors: equal to a fresh generation, versioned, small, every row of a stream stored or
recomputed from ovk_ref's checkpoints, covering every kernel, loss, truncation and edge stream."""
import json

import numpy as np

import ovk_ref
from ovk_conform import checkpoints, generate, load_cases, run
from ovk_conform.checkpoints import CHECKPOINT_EVERY
from ovk_conform.regimes import ALL_ROUNDS_UP_TO, REGIMES, stored_rounds
from ovk_conform.vectors import (
    ALGORITHMS,
    VECTORS_DIR,
    VECTORS_VERSION,
    read_vector_file,
    regime_path,
    vector_path,
)
from ovk_ref import closeness, tolerances


def test_stored_vectors_equal_a_fresh_generation():
    for algorithm in ALGORITHMS:
        fresh = generate.render(generate.vector_file(algorithm))
        assert vector_path(algorithm).read_text() == fresh, (
            f"{algorithm}.json differs from a fresh generation: run python -m ovk_conform.generate, "
            f"bump vectors/VERSION and add a CHANGELOG line")


def test_generate_check_mode_reports_a_changed_file(tmp_path, monkeypatch, capsys):
    for algorithm in ALGORITHMS:
        (tmp_path / f"{algorithm}.json").write_text(vector_path(algorithm).read_text())
    path = tmp_path / "batch_ridge.json"
    path.write_text(path.read_text().replace('"referenceDigits": 50', '"referenceDigits": 49'))
    monkeypatch.setattr(generate, "vector_path", lambda algorithm: tmp_path / f"{algorithm}.json")
    assert generate.main(["--check", "--quick"]) == 1
    assert "batch_ridge.json" in capsys.readouterr().err


def test_files_carry_the_version_and_the_changelog_has_a_line_for_it():
    for algorithm in ALGORITHMS:
        stored = json.loads(vector_path(algorithm).read_text())
        assert stored["vectorsVersion"] == VECTORS_VERSION
        assert stored["numberOfCases"] == len(stored["cases"])
    assert f"## {VECTORS_VERSION} " in (VECTORS_DIR / "CHANGELOG.md").read_text()


def test_vectors_are_small():
    files = [vector_path(algorithm) for algorithm in ALGORITHMS] + [regime_path(regime) for regime in REGIMES]
    assert sum(path.stat().st_size for path in files) < 4_000_000


def test_no_tolerance_is_stored_in_the_data_and_every_reference_has_a_reason():
    for path in [vector_path(algorithm) for algorithm in ALGORITHMS] + [regime_path(regime) for regime in REGIMES]:
        content = read_vector_file(path)
        assert "tolerances are not data" in content["tolerance"]
        for case in content["cases"]:
            assert "tolerance" not in case and "rtol" not in json.dumps(case), case["id"]
            assert len(case["reference"]["reason"]) > 40, case["id"]


def test_case_ids_are_unique():
    names = [case.name for case in load_cases()]
    assert len(names) == len(set(names))


def _cases(algorithm):
    return {case.id: case for case in load_cases((algorithm,))}


def test_onorma_cases_cover_kernels_losses_schedules_and_dimensions():
    cases = _cases("onorma")
    kernel_types = {ovk_ref.as_kernel(case.arguments["kernel"]).to_dict()["type"] for case in cases.values()}
    assert {"gaussian_separable", "linear_quadratic", "feature", "sum"} <= kernel_types
    assert {ovk_ref.as_loss(case.arguments["loss"]).name for case in cases.values()} == {
        "squared", "norm", "huber", "epsilon_insensitive", "hinge", "softmax"}
    truncations = [case.arguments.get("truncation") for case in cases.values()]
    assert None in truncations
    assert {spec["type"] for spec in truncations if spec} == {"window", "theorem2"}
    assert {case.Y.shape[1] for case in cases.values()} >= {1, 2, 3}


def test_truncation_cases_actually_drop_coefficients():
    for case in _cases("onorma").values():
        if "truncation" in case.arguments:
            rounds = np.arange(1, len(case.X) + 1)
            assert np.any(case.expected["support_sizes"] < rounds), case.id


def test_onorma_edge_streams():
    cases = _cases("onorma")
    assert len(cases["single-example"].X) == 1
    assert np.all(cases["repeated-inputs"].X == cases["repeated-inputs"].X[0])
    zero = cases["zero-targets"]
    assert np.all(zero.Y == 0) and np.all(zero.expected["predictions"] == 0)


def test_monorma_cases_cover_m_r_and_degenerate_weights():
    cases = _cases("monorma")
    assert {len(case.arguments["kernels"]) for case in cases.values()} == {2, 3}
    assert len({case.arguments["r"] for case in cases.values()}) >= 3
    all_zero = cases["all-zero-gamma"]
    assert np.all(all_zero.expected["gamma"][0] == 0)
    assert np.all(all_zero.expected["weights"][0] == 0.5)        # delta_1 = delta_0 = 1/m kept (E22)
    assert np.all(cases["absorbing-zero"].expected["weights"][:, 0] == 0)   # delta^1 = 0 for ever (6.3)


def test_batch_cases_cover_separable_non_separable_and_general_kernels():
    types = {ovk_ref.as_kernel(case.arguments["kernel"]).to_dict()["type"] for case in _cases("batch_ridge").values()}
    assert {"gaussian_separable", "linear_quadratic", "feature", "sum"} <= types


def test_stored_regime_inputs_and_arguments_are_those_of_regimes_py():
    for regime, (_, build) in REGIMES.items():
        stored = {case.name: case for case in load_cases(ALGORITHMS, (regime,), basic=False)}
        defined = build()
        assert len(stored) == len(defined), regime
        for algorithm, case in defined:
            kept = stored[f"{algorithm}:{case['id']}"]
            assert np.array_equal(kept.X, case["X"]) and np.array_equal(kept.Y, case["Y"]), kept.name
            assert kept.arguments == json.loads(json.dumps(case["arguments"])), kept.name
            assert kept.reference == "float64" and kept.regime == regime


def test_ovk_ref_passes_a_regime_it_computes_in_a_second():
    """The float64 reference reproduces its own stored values (the other regimes take minutes: by hand)."""
    report = run(ovk_ref, cases=load_cases(ALGORITHMS, ("strong-shrink",), basic=False))
    assert report.passed and report.regimes == ["strong-shrink"]


def test_every_row_of_streams_up_to_5000_rounds_is_stored():
    long = [case for case in load_cases(ALGORITHMS, tuple(REGIMES), basic=False) if case.algorithm != "batch_ridge"]
    for case in long:
        if len(case.X) <= ALL_ROUNDS_UP_TO:
            assert case.rounds is None and case.checkpoints is None, case.name
            assert all(len(values) == len(case.X) for values in case.expected.values()), case.name
    assert max(len(case.X) for case in long if case.rounds is None) == 4096


def _underflow_stream():
    return next(case for case in load_cases(("onorma",), ("shrink-underflow",), basic=False))


def test_the_140000_round_stream_stores_the_boundary_rounds_every_coefficient_and_checkpoints():
    case = _underflow_stream()
    assert len(case.X) == 140_000 and np.array_equal(case.rounds, stored_rounds(140_000))
    assert case.expected["predictions"].shape == (len(case.rounds), 1)
    assert case.expected["coefficients"].shape == (140_000, 1)          # final fields in full
    assert [state["state"]["t"] for state in case.checkpoints] == list(
        range(CHECKPOINT_EVERY, 140_000, CHECKPOINT_EVERY))


def test_rows_recomputed_from_a_checkpoint_are_the_stored_rows():
    """ovk_ref resumes exactly: the rows after a checkpoint are those of the uninterrupted run that the file stores,
    within ``ACROSS_MACHINES`` (the file was generated on another CPU: with numpy restricted to its baseline SIMD
    paths, ``python -m tools.cpu_variants --variant numpy-baseline``, round 256's predictions differ in the last bit;
    bit for bit on one machine is tests/ref/test_ref_checkpoint.py's)."""
    case = _underflow_stream()
    stored = {int(t): i for i, t in enumerate(case.rounds)}
    for index in (0, 250, len(case.checkpoints) - 1):
        start = case.checkpoints[index]["state"]["t"]
        rows = checkpoints.rows_after(*checkpoints.segment_inputs(case, index))
        overlap = [t for t in range(start + 1, start + 1 + len(rows["predictions"])) if t in stored]
        assert overlap, start
        for name, values in rows.items():
            recomputed, file = values[[t - start - 1 for t in overlap]], case.expected[name][[stored[t] for t in overlap]]
            _, _, bad = closeness.bad_rows(recomputed, file, tolerances.ACROSS_MACHINES)
            assert bad.size == 0, (start, name, bad[:5])


def test_drawn_rows_change_with_the_seed_and_add_whole_segments():
    case = _underflow_stream()
    one, again, other = (checkpoints.DrawnRows(case, seed, 4).case() for seed in (1, 1, 2))
    assert np.array_equal(one.rounds, again.rounds) and not np.array_equal(one.rounds, other.rounds)
    added = np.setdiff1d(one.rounds, case.rounds)
    assert 4 * CHECKPOINT_EVERY - len(case.rounds) < len(added) <= 4 * CHECKPOINT_EVERY
    assert all(len(values) == len(one.rounds) for name, values in one.expected.items() if name != "coefficients")
    assert checkpoints.DrawnRows(case, 1, 0).case() is case


def test_the_field_lists_are_those_of_ovk_refs_records_and_the_workers_copy_agrees():
    from ovk_conform import protocol, vectors
    assert vectors.ROUND_FIELDS["onorma"] == ("predictions", "new_coefficients", "rkhs_norm2", "kernel_evaluations",
                                              "support_sizes")
    assert vectors.ROUND_FIELDS["monorma"] == ("predictions", "weights", "gamma", "new_coefficients",
                                               "kernel_evaluations")
    assert vectors.EXACT_FIELDS == ("kernel_evaluations", "support_sizes")
    for name in ("ROUND_FIELDS", "FINAL_FIELDS", "EXACT_FIELDS"):
        assert getattr(protocol, name) == getattr(vectors, name), name


def last_bit_changed(value: str) -> str:
    """``value`` (a ``float.hex`` string) one unit in the last place away: what another CPU's kernels may give."""
    return float.hex(np.nextafter(float.fromhex(value), np.inf))


def test_a_regime_generated_on_another_cpu_checks_within_across_machines_and_a_real_change_does_not(tmp_path):
    """``generate --check`` compares a regime's float64 values (ovk_ref float64, summed in another order by another
    CPU's BLAS kernels) within ``ACROSS_MACHINES``, every other field exactly: a last-bit change passes, a change of
    1e-6 of a value or of an id fails."""
    stored = read_vector_file(regime_path("corner-cases"))
    case = stored["cases"][0]
    field = next(name for name, values in case["expected"].items() if isinstance(values[0], str) or
                 isinstance(values[0], list) and isinstance(values[0][0], str))
    values = case["expected"][field]
    first = values[0] if isinstance(values[0], str) else values[0][0]

    def with_first(new: str) -> dict:
        changed = json.loads(json.dumps(stored))
        row = changed["cases"][0]["expected"][field]
        if isinstance(row[0], str):
            row[0] = new
        else:
            row[0][0] = new
        return changed

    assert generate.float64_differences(stored, stored) == []
    assert generate.float64_differences(stored, with_first(last_bit_changed(first))) == []
    moved = float.hex(float.fromhex(first) * (1 + 1e-6) + 1e-6)
    assert generate.float64_differences(stored, with_first(moved)), "a change of 1e-6 passed"
    renamed = json.loads(json.dumps(stored))
    renamed["cases"][0]["id"] += "x"
    assert generate.float64_differences(stored, renamed)
    path = tmp_path / "corner-cases.json.gz"
    path.write_bytes(generate.compress(with_first(last_bit_changed(first))))
    assert generate.same_content(path, generate.compress(stored))
    path.write_bytes(generate.compress(with_first(moved)))
    assert not generate.same_content(path, generate.compress(stored))
