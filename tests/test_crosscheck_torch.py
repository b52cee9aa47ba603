"""The book's attention, as the notebooks define it, against PyTorch on the CPU.

Loads `attention` from chapter 5, `multi_head_attention` from chapter 6,
`tiled_attention` from chapter 11 and `conv_same` from chapter 12 by running the
notebooks' code (once per session, on first use: tests/nbload.py; a chapter that
fails to run or no longer defines the function fails the tests that use it), and compares them with
torch.nn.functional.scaled_dot_product_attention, torch.nn.MultiheadAttention
and torch.nn.functional.conv2d(padding='same'). Tolerances are PyTorch's own
for attention.
Without torch these tests are skipped with the reason; under CI=true a
missing torch is an error (CI installs requirements-torch.txt).
"""
import numpy as np
import pytest

from nbload import Saved
from torch_or_skip import FLOAT32_TOL, import_torch

torch, pytestmark = import_torch("the cross-checks")
F = torch.nn.functional

TOL = {np.float32: FLOAT32_TOL, np.float64: dict(atol=1e-7, rtol=1e-7)}
SHAPES = [  # (batch, n_q, n_k, d_k, d_v)
    ((), 1, 1, 1, 1), ((), 5, 7, 8, 3), ((), 16, 16, 64, 64), ((2,), 4, 9, 16, 5),
    ((2, 3), 6, 6, 8, 8), ((3,), 33, 17, 24, 12), ((), 128, 300, 64, 32),
]
DTYPES = [np.float32, np.float64]


@pytest.fixture(scope="module")
def ch5():
    return Saved("05")   # attention_book.ch05: the chapter's own functions, imported


@pytest.fixture(scope="module")
def ch6():
    return Saved("06")


def draw(shape, dtype, seed):
    batch, n_q, n_k, d_k, d_v = shape
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((*batch, n_q, d_k)).astype(dtype)
    K = rng.standard_normal((*batch, n_k, d_k)).astype(dtype)
    V = rng.standard_normal((*batch, n_k, d_v)).astype(dtype)
    return Q, K, V


def sdpa(Q, K, V, **kw):
    with torch.no_grad():
        return F.scaled_dot_product_attention(torch.from_numpy(Q), torch.from_numpy(K),
                                              torch.from_numpy(V), **kw).numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_plain(ch5, shape, dtype):
    Q, K, V = draw(shape, dtype, 0)
    O, A = ch5["attention"](Q, K, V)
    assert O.dtype == dtype
    np.testing.assert_allclose(O, sdpa(Q, K, V), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_causal(ch5, shape, dtype):
    Q, K, V = draw(shape, dtype, 1)
    O, _ = ch5["attention"](Q, K, V, causal=True)
    np.testing.assert_allclose(O, sdpa(Q, K, V, is_causal=True), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES[1:], ids=str)
def test_boolean_mask(ch5, shape, dtype):
    Q, K, V = draw(shape, dtype, 2)
    rng = np.random.default_rng(3)
    mask = rng.random((*shape[0], shape[1], shape[2])) < 0.7
    mask[..., 0] = True                         # every query keeps at least one key
    O, A = ch5["attention"](Q, K, V, mask=mask)
    np.testing.assert_allclose(O, sdpa(Q, K, V, attn_mask=torch.from_numpy(mask)), **TOL[dtype])
    assert np.all(A[~np.broadcast_to(mask, A.shape)] == 0), "a masked key got weight"


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES[1:], ids=str)
def test_additive_mask(ch5, shape, dtype):
    Q, K, V = draw(shape, dtype, 4)
    rng = np.random.default_rng(5)
    mask = rng.standard_normal((shape[1], shape[2])).astype(dtype)   # broadcast over batch
    mask[rng.random(mask.shape) < 0.3] = -np.inf
    mask[:, 0] = 0.0
    O, _ = ch5["attention"](Q, K, V, mask=mask)
    np.testing.assert_allclose(O, sdpa(Q, K, V, attn_mask=torch.from_numpy(mask)), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_fully_masked_rows_give_zeros_like_pytorch(ch5, dtype):
    Q, K, V = draw(((2,), 5, 6, 8, 4), dtype, 6)
    mask = np.ones((5, 6), dtype=bool)
    mask[[1, 3]] = False                        # queries 1 and 3 may attend to nothing
    O, A = ch5["attention"](Q, K, V, mask=mask)
    expected = sdpa(Q, K, V, attn_mask=torch.from_numpy(mask))
    assert np.all(O[:, [1, 3]] == 0) and np.all(A[:, [1, 3]] == 0)
    np.testing.assert_allclose(O, expected, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("d_model,h,n_q,n_kv,causal", [
    (8, 1, 5, 5, False), (16, 4, 7, 7, True), (32, 8, 6, 11, False), (64, 2, 20, 20, True)])
def test_multi_head_matches_torch_multihead_attention(ch6, dtype, d_model, h, n_q, n_kv, causal):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True,
                                      dtype=torch.float32 if dtype == np.float32 else torch.float64)
    rng = np.random.default_rng(7)
    X_q = rng.standard_normal((3, n_q, d_model)).astype(dtype)
    X_kv = X_q if causal else rng.standard_normal((3, n_kv, d_model)).astype(dtype)
    W = mha.in_proj_weight.detach().numpy()
    W_Q, W_K, W_V = W[:d_model].T, W[d_model:2 * d_model].T, W[2 * d_model:].T
    W_O = mha.out_proj.weight.detach().numpy().T
    O, A = ch6["multi_head_attention"](X_q, X_kv, W_Q, W_K, W_V, W_O, h, causal=causal)
    kw = {}
    if causal:   # torch's boolean attn_mask means the opposite: True = may NOT attend
        kw["attn_mask"] = torch.from_numpy(~np.tril(np.ones((n_q, n_q), dtype=bool)))
    with torch.no_grad():
        O_t, A_t = mha(torch.from_numpy(X_q), torch.from_numpy(X_kv), torch.from_numpy(X_kv),
                       need_weights=True, average_attn_weights=False, **kw)
    np.testing.assert_allclose(O, O_t.numpy(), **TOL[dtype])
    np.testing.assert_allclose(A, A_t.numpy(), **TOL[dtype])


def tiled():
    """Chapter 11's tiled_attention; a chapter that fails to run or lacks it fails the test."""
    return Saved("11")["tiled_attention"]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("n,d_k,block", [(1, 8, 4), (37, 16, 8), (256, 64, 64), (1000, 64, 128)])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_attention_matches_torch(n, d_k, block, causal, dtype):
    Q, K, V = draw(((), n, n, d_k, d_k), dtype, 8)
    O = tiled()(Q, K, V, block_size=block, causal=causal)
    assert O.dtype == dtype
    np.testing.assert_allclose(O, sdpa(Q, K, V, is_causal=causal), **TOL[dtype])


BATCHES = [  # leading dimensions of (Q, K, V): on any of them, broadcast against each other
    ((), (), (2,)), ((2,), (), ()), ((), (2,), ()), ((2,), (2,), ()), ((3, 1), (2,), ()),
    ((), (1, 2), (3, 1)), ((2, 1, 3), (), (4, 1)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("batches", BATCHES, ids=str)
@pytest.mark.parametrize("causal", [False, True])
def test_batch_dimensions_on_any_input_broadcast_like_torch(ch5, batches, causal, dtype):
    rng = np.random.default_rng(9)
    (b_q, b_k, b_v), (n_q, n_k, d_k, d_v) = batches, (5, 7, 8, 3)
    Q = rng.standard_normal((*b_q, n_q, d_k)).astype(dtype)
    K = rng.standard_normal((*b_k, n_k, d_k)).astype(dtype)
    V = rng.standard_normal((*b_v, n_k, d_v)).astype(dtype)
    expected = sdpa(Q, K, V, is_causal=causal)
    for O in (ch5["attention"](Q, K, V, causal=causal)[0],
              tiled()(Q, K, V, block_size=3, causal=causal)):
        assert O.shape == expected.shape and O.dtype == dtype
        np.testing.assert_allclose(O, expected, **TOL[dtype])


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # torch pads a copy
@pytest.mark.parametrize("H,W", [(9, 11), (3, 4)])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7])
def test_conv_same_matches_torch_padding_same(k, H, W):
    conv_same = Saved("12")["conv_same"]
    rng = np.random.default_rng(10 + k)
    x, kernel = rng.standard_normal((2, H, W)), rng.standard_normal((2, k, k))
    with torch.no_grad():
        expected = F.conv2d(torch.from_numpy(x)[None], torch.from_numpy(kernel)[None],
                            padding="same")[0, 0].numpy()
    out = conv_same(x, kernel)
    assert out.shape == (H, W)
    np.testing.assert_allclose(out, expected, **TOL[np.float64])
