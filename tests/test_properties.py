"""Properties every correct attention must have, checked with hypothesis on the
functions the chapters define (chapter 5's softmax and attention, chapter 11's
plain, tiled and online-softmax code, chapter 12's convolution): what each
docstring promises, batch dimensions included, and clear errors for input
that does not fit.

The chapters run lazily, once per session (tests/nbload.py): a chapter that
fails to run, or no longer defines a function tested here, fails the tests
that use it (never skips them), and only those."""
import math
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nbload import Saved

settings.register_profile("book", max_examples=60, deadline=None)
settings.load_profile("book")

ch5 = Saved("05")
ch11 = Saved("11")
ch12 = Saved("12")


def softmax(S):
    return ch5["softmax_safe"](S)


def attention(*args, **kwargs):
    return ch5["attention"](*args, **kwargs)


def attention_loops(*args, **kwargs):
    return ch5["attention_loops"](*args, **kwargs)

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
    """Chapter 11's tiled_attention; a chapter that fails to run or lacks it fails the test."""
    return ch11["tiled_attention"]


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


# --- batch dimensions broadcast, as the docstrings promise ----------------------
def reference(Q, K, V, mask=None, causal=False):
    """softmax(Q Kᵀ / √d_k) V by plain numpy broadcasting (einsum), in float64.

    mask: boolean, True = may attend; a query with no allowed key gets output 0."""
    Q, K, V = (X.astype(np.float64) for X in (Q, K, V))
    S = np.einsum("...id,...jd->...ij", Q, K) / np.sqrt(Q.shape[-1])
    allowed = np.ones(S.shape[-2:], bool)
    if causal:
        allowed = np.tril(allowed)
    if mask is not None:
        allowed = allowed & mask
    S = np.where(allowed, S, -np.inf)
    top = S.max(axis=-1, keepdims=True)
    E = np.exp(S - np.where(np.isneginf(top), 0, top))
    total = E.sum(axis=-1, keepdims=True)
    return np.einsum("...ij,...jd->...id", E / np.where(total > 0, total, 1), V)


def tolerance(dtype):
    return {"atol": 1e-5} if dtype == np.float32 else {"atol": 1e-12}


@st.composite
def batched(draw, with_mask=True):
    """Q, K, V (and a boolean mask or None), each with its own leading batch
    dimensions: any of them may lack some or all of them, or have size 1 where
    the others do not. The mask broadcasts to the batch of Q, K and V."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    elements = st.floats(-3, 3, width=np.finfo(dtype).bits)
    n_q, n_k, d_k, d_v = (draw(st.integers(1, 6)) for _ in range(4))

    def own(batch):   # a shape that broadcasts to `batch`: a suffix, some sizes set to 1
        kept = batch[len(batch) - draw(st.integers(0, len(batch))):]
        return tuple(draw(st.sampled_from([b, 1])) for b in kept)

    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    Q = draw(arrays(dtype, own(batch) + (n_q, d_k), elements=elements))
    K = draw(arrays(dtype, own(batch) + (n_k, d_k), elements=elements))
    V = draw(arrays(dtype, own(batch) + (n_k, d_v), elements=elements))
    if not with_mask:
        return Q, K, V
    qkv_batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    mask = draw(st.none() | arrays(bool, own(qkv_batch) + (n_q, n_k)))
    return Q, K, V, mask


@given(batched(), st.booleans())
def test_chapter5_attention_broadcasts_batch_dimensions(data, causal):
    Q, K, V, mask = data
    O, A = attention(Q, K, V, mask=mask, causal=causal)
    assert O.dtype == Q.dtype
    np.testing.assert_allclose(O, reference(Q, K, V, mask, causal), **tolerance(Q.dtype))


@given(batched(with_mask=False), st.booleans())
def test_chapter10_attention_broadcasts_batch_dimensions(data, causal):
    Q, K, V = data
    O = ch11["attention"](Q, K, V, causal)
    np.testing.assert_allclose(O, reference(Q, K, V, causal=causal), **tolerance(Q.dtype))


@given(batched(with_mask=False), st.integers(1, 8), st.booleans())
def test_tiled_attention_broadcasts_batch_dimensions(data, block, causal):
    Q, K, V = data
    O = tiled()(Q, K, V, block_size=block, causal=causal)
    assert O.dtype == Q.dtype
    np.testing.assert_allclose(O, reference(Q, K, V, causal=causal), **tolerance(Q.dtype))


# --- K that does not fit V (or Q) is refused, not silently cut -----------------
def assert_refused(name, Q, K, V, named):
    """attention_loops or tiled_attention raises a ValueError naming the shapes `named`."""
    function = attention_loops if name == "attention_loops" else tiled()
    with pytest.raises(ValueError) as err:
        function(Q, K, V)
    for shape in named:
        assert str(shape) in str(err.value), f"{shape} not in: {err.value}"


@pytest.mark.parametrize("name", ["attention_loops", "tiled_attention"])
@given(n_q=dims, n_k=dims, n_v=dims, d_k=dims, d_v=dims)
def test_k_and_v_with_different_numbers_of_rows_are_refused(name, n_q, n_k, n_v, d_k, d_v):
    n_v += n_k == n_v
    K, V = np.ones((n_k, d_k)), np.ones((n_v, d_v))
    assert_refused(name, np.ones((n_q, d_k)), K, V, named=(K.shape, V.shape))


@pytest.mark.parametrize("name", ["attention_loops", "tiled_attention"])
@given(n_q=dims, n_k=dims, d_q=dims, d_k=dims, d_v=dims)
def test_q_and_k_with_different_d_k_are_refused(name, n_q, n_k, d_q, d_k, d_v):
    d_k += d_q == d_k
    Q, K = np.ones((n_q, d_q)), np.ones((n_k, d_k))
    assert_refused(name, Q, K, np.ones((n_k, d_v)), named=(Q.shape, K.shape))


# --- the online softmax: blocks that are all −inf (masked) ----------------------
@st.composite
def rows_with_minus_inf(draw):
    """Score rows S (rows, n) and a block size; some entries −inf, and some rows
    start with whole blocks of −inf (or are −inf everywhere)."""
    block, rows = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    n = draw(st.integers(1, 20))
    S = draw(arrays(np.float64, (rows, n), elements=st.one_of(unit, st.just(-np.inf))))
    for r in range(rows):
        S[r, :block * draw(st.integers(0, 4))] = -np.inf     # leading blocks all −inf
    return S, block


@given(rows_with_minus_inf())
@example((np.array([[-np.inf, -np.inf, 1.0, 2.0, 0.5]]), 2))
@example((np.full((1, 5), -np.inf), 2))
def test_online_stats_survive_blocks_that_are_all_minus_inf(data):
    S, block = data
    ns = ch11
    M, L = ns["online_stats"](S, block)
    for r, s in enumerate(S):
        ms, ls = ns["online_softmax_stats"](s, block)
        for t, end in enumerate(range(block, len(s) + block, block)):
            seen = s[:end]                 # the keys read after block t
            m = np.max(seen)
            l = np.exp(seen - m).sum() if m > -np.inf else 0.0   # nothing allowed yet: 0
            assert ms[t] == M[t, r] == m
            np.testing.assert_allclose([ls[t], L[t, r]], l, rtol=1e-12)
            if m > -np.inf:                # m + log l is the log-sum-exp of the row
                np.testing.assert_allclose(m + np.log(ls[t]), np.logaddexp.reduce(seen), atol=1e-12)


# --- chapter 12: a 'same' convolution keeps the size, for any kernel size -----
def conv_reference(x, kernel):
    """Correlation of x (c, H, W) with kernel (c, k, k), zero outside x, by loops.

    Output (i, j) is centred on pixel (i, j): the window starts (k - 1) // 2
    rows above and columns left of it (for even k it reaches one further
    down and right, as PyTorch's padding='same')."""
    c, H, W = x.shape
    k = kernel.shape[-1]
    before = (k - 1) // 2
    out = np.zeros((H, W))
    for i, j, ch, a, b in np.ndindex(H, W, c, k, k):
        y, z = i + a - before, j + b - before
        if 0 <= y < H and 0 <= z < W:
            out[i, j] += x[ch, y, z] * kernel[ch, a, b]
    return out


@given(st.integers(1, 3), st.integers(1, 8), st.integers(1, 8), st.integers(1, 6), st.data())
def test_conv_same_keeps_the_size_for_odd_and_even_kernels(c, H, W, k, data):
    conv_same = ch12["conv_same"]
    x = data.draw(arrays(np.float64, (c, H, W), elements=unit))
    kernel = data.draw(arrays(np.float64, (c, k, k), elements=unit))
    out = conv_same(x, kernel)
    assert out.shape == (H, W)
    np.testing.assert_allclose(out, conv_reference(x, kernel), atol=1e-12)
