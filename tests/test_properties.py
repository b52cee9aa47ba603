"""Properties every correct attention must have, checked with hypothesis on the
functions the chapters define (chapter 5's softmax and attention, chapter 9's
tiled attention), and clear errors for input that does not fit."""
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nbload import namespace

settings.register_profile("book", max_examples=60, deadline=None)
settings.load_profile("book")

ch5 = namespace("05_self_attention")
softmax, attention, attention_loops = ch5["softmax_safe"], ch5["attention"], ch5["attention_loops"]

dims = st.integers(1, 12)
finite32 = st.floats(-1e4, 1e4, width=32, allow_nan=False, allow_infinity=False)
unit = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def qkv(draw, dtype=np.float64, same_n=False):
    n_q, n_k, d_k, d_v = draw(dims), draw(dims), draw(dims), draw(dims)
    n_k = n_q if same_n else n_k
    Q = draw(arrays(dtype, (n_q, d_k), elements=unit))
    K = draw(arrays(dtype, (n_k, d_k), elements=unit))
    V = draw(arrays(dtype, (n_k, d_v), elements=unit))
    return Q, K, V


@given(arrays(np.float32, st.tuples(dims, dims), elements=finite32))
def test_softmax_rows_are_distributions_even_for_huge_scores(S):
    A = softmax(S)
    assert np.all(np.isfinite(A)), "softmax of finite float32 scores gave nan or inf"
    assert np.all(A >= 0)
    np.testing.assert_allclose(A.sum(axis=-1), 1, rtol=1e-5)


@given(arrays(np.float64, st.tuples(dims, dims), elements=unit),
       arrays(np.float64, st.tuples(dims, st.just(1)), elements=st.floats(-100, 100)))
def test_softmax_ignores_a_constant_added_to_a_row(S, c):
    c = np.resize(c, (S.shape[0], 1))
    np.testing.assert_allclose(softmax(S + c), softmax(S), atol=1e-12)


@given(qkv(same_n=True), st.randoms(use_true_random=False))
def test_permuting_the_sequence_permutes_the_output(data, rnd):
    Q, K, V = data                         # one sequence: n_q = n_k = n, no positions
    p = list(range(Q.shape[0]))
    rnd.shuffle(p)
    O, _ = attention(Q, K, V)
    O_p, _ = attention(Q[p], K[p], V[p])
    np.testing.assert_allclose(O_p, O[p], atol=1e-12)


@given(qkv(), st.floats(0.1, 10))
def test_scaling_q_by_c_is_a_temperature_of_one_over_c(data, c):
    Q, K, V = data
    _, A = attention(c * Q, K, V)
    S = Q @ K.T / math.sqrt(Q.shape[1])
    tau = 1 / c
    np.testing.assert_allclose(A, softmax(S / tau), atol=1e-12)


@given(qkv(), st.data())
def test_masked_keys_get_exactly_zero_weight(data, draw):
    Q, K, V = data
    mask = draw.draw(arrays(bool, (Q.shape[0], K.shape[0])))
    O, A = attention(Q, K, V, mask=mask)
    assert np.all(A[~mask] == 0)
    rows = mask.any(axis=1)
    np.testing.assert_allclose(A[rows].sum(axis=1), 1, rtol=1e-12)
    assert np.all(A[~rows] == 0) and np.all(O[~rows] == 0)


@given(qkv())
def test_loops_and_matrix_form_agree(data):
    Q, K, V = data
    O_loops, A_loops = attention_loops(Q, K, V)
    O, A = attention(Q, K, V)
    np.testing.assert_allclose(O_loops, O, atol=1e-12)
    np.testing.assert_allclose(A_loops, A, atol=1e-12)


def tiled():
    try:
        return namespace("09_exact_attention_linear_memory")["tiled_attention"]
    except (StopIteration, KeyError):
        pytest.skip("chapter 9 (tiled_attention) is not in the book yet")


@given(qkv(np.float32, same_n=True), st.integers(1, 20), st.booleans())
def test_tiled_equals_plain_for_any_block_size(data, block, causal):
    Q, K, V = data
    expected, _ = attention(Q, K, V, causal=causal)
    np.testing.assert_allclose(tiled()(Q, K, V, block_size=block, causal=causal), expected, atol=1e-5)


# --- input that does not fit gets a ValueError that names it -----------------
rng = np.random.default_rng(0)
Q, K, V = rng.standard_normal((4, 8)), rng.standard_normal((6, 8)), rng.standard_normal((6, 3))


@pytest.mark.parametrize("args,kwargs,names", [
    ((Q, rng.standard_normal((6, 5)), V), {}, [r"\(4, 8\)", r"\(6, 5\)"]),          # d_k differs
    ((Q, K, rng.standard_normal((5, 3))), {}, [r"\(6, 8\)", r"\(5, 3\)"]),          # n_k differs
    ((Q, K, V), {"mask": np.ones((4, 5), bool)}, [r"\(4, 5\)", r"\(4, 6\)"]),       # mask shape
    ((np.where(np.eye(4, 8) > 0, np.nan, Q), K, V), {}, ["Q", "nan"]),             # non-finite
    ((Q, K, np.full((6, 3), np.inf)), {}, ["V", "inf"]),
], ids=["d_k mismatch", "V rows", "mask shape", "nan in Q", "inf in V"])
def test_bad_input_is_named_in_a_value_error(args, kwargs, names):
    with pytest.raises(ValueError) as err:
        attention(*args, **kwargs)
    for pattern in names:
        assert re.search(pattern, str(err.value)), f"{pattern!r} not in: {err.value}"
