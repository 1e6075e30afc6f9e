"""Each vocabulary is defined once, on the thing itself (a scalar kernel family, a loss, a truncation kind), and every
place derived from it agrees with the definitions: the conformance scope's axes and JSON Schemas, the fresh cases'
kernels and losses, the claims' strategies, ovk_fast's dispatch; an unknown name raises where it is met."""
import inspect
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ovk_ref
from ovk_conform import fresh, vocabulary
from ovk_conform.scope import AXES
from ovk_fast import kernel_rows
from ovk_ref import truncation
from ovk_ref.kernels import portable
from ovk_ref.kernels.scalar import SCALAR_KERNELS, ScalarKernel, symbol
from ovk_ref.losses import LOSSES
from proofs_check import closed_forms, constants, strategies

SCALARS = list(SCALAR_KERNELS.values())


def test_the_schema_files_hold_what_the_definitions_derive():
    """``python -m tools.regenerate_schemas`` rewrites them after a definition changed."""
    for name, schema in vocabulary.derived_schemas().items():
        assert json.loads((vocabulary.SCHEMAS / name).read_text()) == schema, f"{name}: python -m tools.regenerate_schemas"


def test_the_scope_axes_are_the_definitions():
    assert portable.family_names() == vocabulary.KERNEL_FAMILIES == AXES["onorma"]["kernels"] == AXES["batch_ridge"]["kernels"]
    assert tuple(LOSSES) == vocabulary.LOSSES == AXES["monorma"]["losses"]
    assert truncation.kind_names() == vocabulary.TRUNCATIONS == AXES["onorma"]["truncations"]
    assert [name for name, loss in LOSSES.items() if loss.one_hot_targets] == list(fresh.CLASS_LOSSES)


@pytest.mark.parametrize("family", SCALARS, ids=[family.name for family in SCALARS])
def test_a_scalar_family_declares_everything_once(family):
    parameters = inspect.signature(family).parameters
    assert list(family.fields) == list(parameters), "fields are the constructor's parameters"
    assert set(family.parameter_strategies()) == set(family.fields)
    fields = family.fresh_fields(np.random.default_rng(0), 1.0)
    assert set(family.required()) <= set(fields) <= set(family.fields)
    assert family(**fields).params().keys() == family.fields.keys()
    assert {str(s) for s in family.sup_on_box().free_symbols} <= {"p", *family.fields}
    if family.vectorised is not None:
        assert family.intermediate_bound is not ScalarKernel.intermediate_bound, "a vectorised form comes with its bound"


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_scalar_familys_vectorised_form_its_exact_form_and_its_sup_agree_with_its_code(data):
    family = data.draw(st.sampled_from(SCALARS))
    scalar = data.draw(strategies.scalar_kernels().filter(lambda k: type(k) is family))
    p = data.draw(st.integers(1, 3))
    X, Z = (data.draw(strategies.unit_interval_arrays((3, p))) for _ in range(2))
    literal = np.array([[scalar(x, z) for z in Z] for x in X], dtype=float)
    if family.vectorised is not None:
        # ovk_fast's round-off is relative to the largest value (a Gaussian's exponents come from a GEMM)
        np.testing.assert_allclose(kernel_rows.scalar_matrix(scalar, X, Z), literal, rtol=1e-13,
                                   atol=1e-13 * np.max(np.abs(literal)))
    exact = closed_forms._scalar(family.name, scalar.params(), list(X[0]), list(Z[0]))
    np.testing.assert_allclose(closed_forms.numeric(exact), literal[0, 0], rtol=1e-13, atol=1e-300)
    sup = constants.evaluate(family.sup_on_box(), p=p, **scalar.params()) if family.sup_on_box().free_symbols else 1
    assert scalar(np.ones(p), np.ones(p)) <= float(sup) * (1 + 1e-14)


def test_every_scalar_family_is_drawn_by_the_claims_strategies():
    drawn = set()

    @settings(max_examples=200, deadline=None, database=None)
    @given(strategies.scalar_kernels())
    def collect(scalar):
        drawn.add(type(scalar))
    collect()
    assert drawn == set(SCALARS)
    assert set(strategies.REGRESSION_LOSSES) | set(strategies.CLASSIFICATION_LOSSES) == set(LOSSES)


@pytest.mark.parametrize("loss", list(LOSSES.values()), ids=list(LOSSES))
def test_a_loss_declares_everything_once(loss):
    assert list(loss.fields) == list(inspect.signature(loss).parameters)
    assert set(loss.fresh_fields()) == set(loss.fields)
    assert {"type": loss.name, **loss.fresh_fields()} in fresh.LOSSES
    assert ovk_ref.as_loss({"type": loss.name, **loss.fresh_fields()}).to_dict() == {"type": loss.name, **loss.fresh_fields()}


@pytest.mark.parametrize("family", portable.family_names())
def test_fresh_cases_draw_every_family_as_its_definition_reads_it(family):
    spec = fresh._kernel(np.random.default_rng(1), family, 2, 2, 1.0, portable.family_names())
    kernel = ovk_ref.as_kernel(spec)
    assert kernel.to_dict()["type"] == family and portable.family_fields(family)[1] == tuple(
        name for name in portable.family_fields(family)[1] if name in spec)


def test_an_unknown_name_raises_where_it_is_met():
    with pytest.raises(ValueError, match="unknown kernel family 'laplacian_separable'"):
        fresh._kernel(np.random.default_rng(0), "laplacian_separable", 2, 2, 1.0, ())
    with pytest.raises(ValueError, match="unknown kernel type 'laplacian_separable'"):
        ovk_ref.as_kernel({"type": "laplacian_separable", "B": [[1.0]]})
    with pytest.raises(ValueError, match="unknown kernel type"):
        portable.family_fields("laplacian_separable")
    with pytest.raises(ValueError, match="unknown loss 'logistic'"):
        ovk_ref.as_loss("logistic")
    with pytest.raises(ValueError, match="unknown truncation type 'sliding'"):
        truncation.from_dict({"type": "sliding", "s": 2})
    with pytest.raises(ValueError, match="kernel type must be one of spec 3's"):
        closed_forms.kernel_block({"type": "laplacian_separable", "B": [[1.0]]}, [0.0], [1.0])
    with pytest.raises(ValueError, match="loss type must be one of spec 4's"):
        closed_forms.loss_value({"type": "logistic"}, [0.0], [1.0])


class _Undeclared(ovk_ref.Gaussian):
    """A Gaussian whose family says it has no vectorised form."""

    vectorised = None


def test_ovk_fast_takes_a_familys_vectorised_form_or_says_it_has_none():
    X = np.random.default_rng(2).uniform(size=(5, 2))
    declared = kernel_rows.KernelRows(ovk_ref.Separable(ovk_ref.Gaussian(0.5), np.eye(2)), X, X)
    undeclared = kernel_rows.KernelRows(ovk_ref.Separable(_Undeclared(0.5), np.eye(2)), X, X)
    assert declared.separable_form() is not None and undeclared.separable_form() is None    # explicit blocks
    np.testing.assert_allclose(undeclared.dense(), declared.dense(), rtol=1e-14)


def test_the_symbols_of_the_constants_are_those_the_families_declare():
    assert (constants.p, constants.offset, constants.degree) == (symbol("p"), symbol("offset"), symbol("degree"))
    assert constants.LINEAR_QUADRATIC_KAPPA2 == ovk_ref.LinearQuadratic.kappa2_on_box()


def test_planted_fault_a_definition_changed_without_regenerating_the_schemas_is_caught(monkeypatch):
    monkeypatch.setattr(ovk_ref.Gaussian, "fields", {"mu": {"type": "number", "minimum": 1}})   # a rule changed
    stale = [name for name, schema in vocabulary.derived_schemas().items()
             if json.loads((vocabulary.SCHEMAS / name).read_text()) != schema]
    assert stale == ["request.schema.json"]
