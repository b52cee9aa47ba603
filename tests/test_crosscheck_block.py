"""Chapter 13's Transformer encoder block against torch.nn.TransformerEncoderLayer.

Loads `encoder_block` and `init_block` from notebooks/13_transformer_block by
running the notebook's code (once per session, on first use: tests/nbload.py; a
chapter that fails to run or no longer defines them fails these tests), copies the numpy weights into a PyTorch layer
(batch_first=True, dropout 0, evaluation mode, ReLU) and compares the outputs:
post-norm and pre-norm (norm_first), with no mask, a key padding mask, a
causal mask and both, in float32 (PyTorch's attention tolerances) and float64.
Without torch these tests are skipped with the reason; under CI=true a
missing torch is an error (CI installs requirements-torch.txt).
"""
import numpy as np
import pytest

from nbload import Saved
from torch_or_skip import FLOAT32_TOL, import_torch

torch, pytestmark = import_torch("the Transformer block cross-checks")

TOL = {np.float32: FLOAT32_TOL, np.float64: dict(atol=1e-12, rtol=1e-12)}
TORCH_DTYPE = {np.float32: torch.float32, np.float64: torch.float64}
DTYPES = [np.float32, np.float64]
SIZES = [  # (batch, n, d_model, h, d_ff)
    (1, 1, 4, 1, 8), (3, 7, 16, 4, 32), (2, 12, 32, 8, 128), (4, 5, 24, 3, 40)]
MASKS = ["none", "padding", "causal", "padding+causal"]


@pytest.fixture(scope="module")
def ch13():
    return Saved("13")   # attention_book.ch13, imported


def torch_layer(p, h, norm_first, dtype):
    """A TransformerEncoderLayer holding the numpy parameters p (X @ W layout)."""
    d_model, d_ff = p["W_1"].shape
    layer = torch.nn.TransformerEncoderLayer(d_model, h, dim_feedforward=d_ff, dropout=0.0,
                                             batch_first=True, norm_first=norm_first,
                                             dtype=TORCH_DTYPE[dtype]).eval()
    assert layer.activation_relu_or_gelu == 1, "PyTorch's default activation is no longer ReLU"

    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a))
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(t(np.concatenate([p["W_Q"].T, p["W_K"].T, p["W_V"].T])))
        layer.self_attn.in_proj_bias.copy_(t(np.concatenate([p["b_Q"], p["b_K"], p["b_V"]])))
        for module, W, b in [(layer.self_attn.out_proj, "W_O", "b_O"), (layer.linear1, "W_1", "b_1"),
                             (layer.linear2, "W_2", "b_2"), (layer.norm1, "gamma_1", "beta_1"),
                             (layer.norm2, "gamma_2", "beta_2")]:
            module.weight.copy_(t(p[W].T if p[W].ndim == 2 else p[W]))
            module.bias.copy_(t(p[b]))
    return layer


def random_parameters(ch13, d_model, d_ff, dtype, seed):
    """init_block's parameters, with biases, gammas and betas made non-trivial."""
    rng = np.random.default_rng(seed)
    p = ch13["init_block"](d_model, d_ff, rng, dtype=dtype)
    for name in ("b_Q", "b_K", "b_V", "b_O", "b_1", "b_2", "beta_1", "beta_2"):
        p[name] = (0.3 * rng.standard_normal(p[name].shape)).astype(dtype)
    for name in ("gamma_1", "gamma_2"):
        p[name] = rng.uniform(0.5, 1.5, p[name].shape).astype(dtype)
    return p


def masks(kind, batch, n, seed):
    """(the book's boolean mask, True = may attend, and PyTorch's keyword arguments)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, n + 1, batch)
    lengths[0] = n
    real = np.arange(n)[None, :] < lengths[:, None]            # (batch, n): True = real token
    causal = np.tril(np.ones((n, n), dtype=bool))
    book, kw = None, {}
    if "padding" in kind:
        book = real[:, None, :]                                 # (batch, 1, n): the same for every query
        kw["src_key_padding_mask"] = torch.from_numpy(~real)    # PyTorch: True = ignore
    if "causal" in kind:
        book = causal if book is None else book & causal
        kw["src_mask"] = torch.from_numpy(~causal)
    return book, kw


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_encoder_block_matches_torch_encoder_layer(ch13, size, norm_first, mask_kind, dtype):
    batch, n, d_model, h, d_ff = size
    p = random_parameters(ch13, d_model, d_ff, dtype, seed=d_model + n)
    X = np.random.default_rng(n).standard_normal((batch, n, d_model)).astype(dtype)
    mask, kw = masks(mask_kind, batch, n, seed=batch)
    ours = ch13["encoder_block"](X, p, h, norm_first=norm_first, mask=mask)
    assert ours.dtype == dtype and ours.shape == X.shape
    layer = torch_layer(p, h, norm_first, dtype)
    with torch.no_grad():
        theirs = layer(torch.from_numpy(X), **kw).numpy()
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_dropout_is_off_in_evaluation_and_on_in_training(ch13, norm_first):
    """As in PyTorch: eval() (training=False) ignores the dropout probability; training does not."""
    p = random_parameters(ch13, 16, 32, np.float64, seed=1)
    X = np.random.default_rng(2).standard_normal((2, 5, 16))
    block = ch13["encoder_block"]
    plain = block(X, p, 4, norm_first=norm_first)
    assert np.array_equal(block(X, p, 4, norm_first=norm_first, p_drop=0.5, training=False), plain)
    noisy = block(X, p, 4, norm_first=norm_first, p_drop=0.5, training=True, rng=np.random.default_rng(3))
    assert not np.allclose(noisy, plain)
    layer = torch_layer(p, 4, norm_first, np.float64)
    layer.dropout.p = layer.dropout1.p = layer.dropout2.p = 0.5
    layer.self_attn.dropout = 0.5
    with torch.no_grad():
        np.testing.assert_allclose(layer.eval()(torch.from_numpy(X)).numpy(), plain, **TOL[np.float64])
