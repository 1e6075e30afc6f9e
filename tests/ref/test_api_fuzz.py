"""Fuzz test of the public API: random kernel and loss dicts, shapes, dtypes and values.

Whatever goes in, only the documented outcomes come out: a result, a ValueError or TypeError (bad input;
exactly these classes), for a run that stops being finite a DivergenceWarning, or with
``on_divergence="raise"`` a DivergenceError (never a numpy RuntimeWarning, a RecursionError, an IndexError,
a LinAlgError...).
"""
import warnings

import numpy as np
from hypothesis import event, given
from hypothesis import strategies as st

import ovk_fast
import ovk_ref

DOCUMENTED = (ValueError, TypeError)

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.text(max_size=3) | st.complex_numbers(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6) | st.integers(0, 2), inner, max_size=3),
    max_leaves=8)
numbers = st.floats(-1e3, 1e3) | st.sampled_from([0.0, -1.0, 1e-300, 1e300, np.nan, np.inf, 2, True, "1", None])


def matrices(rows, columns):
    return st.lists(st.lists(numbers, min_size=columns, max_size=columns), min_size=rows, max_size=rows)


@st.composite
def kernel_dicts(draw, d, depth=0):
    kind = draw(st.sampled_from(["gaussian_separable", "linear_separable", "polynomial_separable",
                                 "constant_separable", "linear_quadratic", "feature", "sum", "junk"]))
    if kind == "junk":
        return draw(junk)
    if kind == "linear_quadratic":
        spec = {"type": kind, "mu": draw(numbers), "d": draw(st.sampled_from([d, d, 0, 1.5, "2"]))}
    elif kind == "feature":
        p = draw(st.integers(0, 3))
        spec = {"type": kind, "M": draw(st.lists(matrices(d, 2), min_size=p + 1, max_size=p + 1))}
    elif kind == "sum":
        terms = [{"weight": draw(numbers), "kernel": draw(kernel_dicts(d, depth + 1)) if depth < 2 else draw(junk)}
                 for _ in range(draw(st.integers(0, 2)))]
        spec = {"type": kind, "terms": terms}
    else:
        spec = {"type": kind, "B": draw(st.sampled_from([np.eye(d).tolist(), (-np.eye(d)).tolist()]) | matrices(d, d))}
        spec.update({"gaussian_separable": {"mu": draw(numbers)}, "polynomial_separable": {"degree": draw(numbers)},
                     "constant_separable": {"c": draw(numbers)}}.get(kind, {}))
    if draw(st.integers(0, 9)) == 0:   # an extra or a missing field
        spec[draw(st.text(max_size=4))] = draw(junk)
    return spec


losses = st.sampled_from(["squared", "norm", "hinge", "softmax", "huber", "cubic"]) | \
    st.fixed_dictionaries({"type": st.sampled_from(["huber", "epsilon_insensitive", "squared"]) | junk},
                          optional={"delta": numbers, "epsilon": numbers}) | junk
dtypes = st.sampled_from([float, int, complex, object, str, bool, np.float32])


@st.composite
def arrays(draw, rows, columns):
    values = np.array(draw(matrices(rows, columns)), dtype=object)
    dtype = draw(dtypes)
    try:
        with np.errstate(over="ignore", invalid="ignore"):   # float32 of 1e300 is inf: fine, one more input
            array = values.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        array = values
    shape = draw(st.sampled_from(["as drawn", "as drawn", "flat", "list"]))
    return array.ravel() if shape == "flat" else array.tolist() if shape == "list" else array


@st.composite
def calls(draw):
    d = draw(st.integers(1, 3))
    n, p = draw(st.integers(0, 4)), draw(st.integers(1, 3))
    kernel = draw(kernel_dicts(d))
    options = {"lam": draw(numbers), "eta": draw(numbers)}
    if draw(st.booleans()):
        options.update(lam=0.1, eta=draw(st.sampled_from([0.5, 5.0])))   # mostly valid, to reach the rounds
    X, Y = draw(arrays(n, p)), draw(arrays(n, draw(st.sampled_from([d, d, d + 1]))))
    target = draw(st.sampled_from(["onorma", "monorma", "batch_ridge", "learner", "from_dict"]))
    engine = draw(st.sampled_from([ovk_ref, ovk_fast]))
    if target == "onorma":
        options.update(loss=draw(losses), truncation=draw(st.none() | st.integers(-1, 3) | junk))
    if target == "monorma":
        options.update(loss=draw(losses), r=draw(numbers))
        kernel = [kernel, draw(kernel_dicts(d))] if draw(st.booleans()) else draw(junk)
    if target == "learner" and draw(st.integers(0, 3)) == 0:
        options["p"] = draw(st.integers(-1, 4) | junk)
    if target != "batch_ridge" and draw(st.integers(0, 4)) == 0:
        options.update(on_divergence=draw(st.sampled_from(["warn", "raise", "ignore", None])),
                       divergence_bound=draw(numbers))
    return target, engine, kernel, X, Y, options


wide = st.floats(-1e3, 1e3) | st.sampled_from([0.0, 1e-200, 1e150, -1e200, 1e300])


@st.composite
def near_valid_calls(draw):
    """A valid call (values of every size: the kernel may overflow, the run may diverge) with at most one
    argument replaced by something else."""
    d, n, p = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 3))
    kernel = draw(st.sampled_from([ovk_ref.gaussian_separable(1.0, d).to_dict(),
                                   {"type": "linear_quadratic", "mu": 0.3, "d": d},
                                   {"type": "polynomial_separable", "degree": 3, "offset": 1.0, "B": np.eye(d).tolist()},
                                   ovk_ref.random_feature(p, d, 2, seed=0).to_dict()]))
    X = np.array(draw(st.lists(st.lists(wide, min_size=p, max_size=p), min_size=n, max_size=n)))
    Y = np.array(draw(st.lists(st.lists(wide, min_size=d, max_size=d), min_size=n, max_size=n)))
    target = draw(st.sampled_from(["onorma", "monorma", "batch_ridge", "learner"]))
    options = {"lam": 0.01, "eta": draw(st.sampled_from([0.5, 5.0, 90.0]))}
    if target in ("onorma", "learner"):
        options.update(loss=draw(st.sampled_from(["squared", "norm", "huber", "epsilon_insensitive"])),
                       truncation=draw(st.none() | st.integers(1, 3)))
    if target == "monorma":
        options.update(r=draw(st.sampled_from([0.5, 2.0])), all_zero=draw(st.sampled_from(["keep", "literal"])))
        kernel = [kernel, kernel]
    if n <= 3 and draw(st.integers(0, 9)) == 0:   # the 50-digit path of ovk_ref (ovk_fast refuses it)
        options["precision"] = 50
    if target != "batch_ridge":
        options.update(on_divergence=draw(st.sampled_from(["warn", "raise"])),
                       divergence_bound=draw(st.none() | st.sampled_from([1.0, 1e6])))
    replaced = draw(st.sampled_from([None, None, "X", "Y", "kernel", *options]))
    if replaced == "X":
        X = draw(arrays(n, p))
    elif replaced == "Y":
        Y = draw(arrays(n, d))
    elif replaced == "kernel":
        kernel = draw(kernel_dicts(d))
    elif replaced is not None:
        options[replaced] = draw(junk | numbers)
    return target, draw(st.sampled_from([ovk_ref, ovk_fast])), kernel, X, Y, options


@given(calls() | near_valid_calls())
def test_only_documented_exceptions_and_warnings_escape(call):
    target, engine, kernel, X, Y, options = call
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if target == "from_dict":
                ovk_ref.kernel_from_dict(kernel)
            elif target == "batch_ridge":
                engine.batch_ridge(X, Y, kernel, lam=options["lam"], precision=options.get("precision"))
            elif target == "learner":
                learner = ovk_ref.ONORMA(kernel, **options)
                for x, y in zip(np.asarray(X, dtype=object), np.asarray(Y, dtype=object)):
                    learner.predict_one(x)
                    learner.learn_one(x, y)
            else:
                getattr(engine, target)(X, Y, kernel, **options)
            event(f"{target}: a result")
        except DOCUMENTED as error:
            # exactly these classes: a subclass such as numpy's LinAlgError is an unexplained failure
            assert type(error) in DOCUMENTED, f"{type(error).__name__}: {error}"
            event(f"{target}: {type(error).__name__}")
        except ovk_ref.DivergenceError:
            assert options.get("on_divergence") == "raise"
            event(f"{target}: DivergenceError")
    unexpected = [w for w in caught if not issubclass(w.category, ovk_ref.DivergenceWarning)]
    assert not unexpected, [str(w.message) for w in unexpected]
