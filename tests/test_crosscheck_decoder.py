"""Chapter 14's Transformer decoder block against torch.nn.TransformerDecoderLayer.

Loads `decoder_block`, `init_decoder_block`, `causal_mask` and
`multi_head_attention` from notebooks/14_generation by running the notebook's
code (once per session, on first use: tests/nbload.py; a chapter that fails to
run or no longer defines them fails these tests), copies the numpy weights into
a PyTorch layer (batch_first=True, dropout 0, evaluation mode, ReLU) and
compares the outputs: post-norm and pre-norm (norm_first), with no mask, the
causal mask, the target's and the source's padding masks, and all of them; in
float32 (PyTorch's attention tolerances) and float64. Grouped-query attention
(the chapter's `g`) is compared with torch.nn.functional.scaled_dot_product_attention
(enable_gqa=True). Without torch these tests are skipped with the reason; under
CI=true a missing torch is an error (CI installs requirements-torch.txt).
"""
import numpy as np
import pytest

from nbload import Saved
from torch_or_skip import FLOAT32_TOL, import_torch

torch, pytestmark = import_torch("the Transformer decoder cross-checks")

TOL = {np.float32: FLOAT32_TOL, np.float64: dict(atol=1e-12, rtol=1e-12)}
TORCH_DTYPE = {np.float32: torch.float32, np.float64: torch.float64}
DTYPES = [np.float32, np.float64]
SIZES = [  # (batch, n_tgt, n_src, d_model, h, d_ff)
    (1, 1, 1, 4, 1, 8), (3, 6, 7, 16, 4, 32), (2, 9, 4, 32, 8, 128), (4, 5, 5, 24, 3, 40)]
MASKS = ["none", "causal", "tgt-padding", "src-padding", "causal+both-padding"]


@pytest.fixture(scope="module")
def ch14():
    return Saved("14")   # attention_book.ch14, imported


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def torch_layer(p, h, norm_first, dtype):
    """A TransformerDecoderLayer holding the numpy parameters p (X @ W layout)."""
    d_model, d_ff = p["W_1"].shape
    layer = torch.nn.TransformerDecoderLayer(d_model, h, dim_feedforward=d_ff, dropout=0.0,
                                             batch_first=True, norm_first=norm_first,
                                             dtype=TORCH_DTYPE[dtype]).eval()
    with torch.no_grad():
        for attn, q in ((layer.self_attn, p["self"]), (layer.multihead_attn, p["cross"])):
            attn.in_proj_weight.copy_(t(np.concatenate([q["W_Q"].T, q["W_K"].T, q["W_V"].T])))
            attn.in_proj_bias.copy_(t(np.concatenate([q["b_Q"], q["b_K"], q["b_V"]])))
            attn.out_proj.weight.copy_(t(q["W_O"].T))
            attn.out_proj.bias.copy_(t(q["b_O"]))
        for module, W, b in [(layer.linear1, "W_1", "b_1"), (layer.linear2, "W_2", "b_2"),
                             (layer.norm1, "gamma_1", "beta_1"), (layer.norm2, "gamma_2", "beta_2"),
                             (layer.norm3, "gamma_3", "beta_3")]:
            module.weight.copy_(t(p[W].T if p[W].ndim == 2 else p[W]))
            module.bias.copy_(t(p[b]))
    return layer


def random_parameters(ch14, d_model, d_ff, dtype, seed):
    """init_decoder_block's parameters, with biases, gammas and betas made non-trivial."""
    rng = np.random.default_rng(seed)
    p = ch14["init_decoder_block"](d_model, d_ff, rng, dtype=dtype)
    for attn in ("self", "cross"):
        for name in ("b_Q", "b_K", "b_V", "b_O"):
            p[attn][name] = (0.3 * rng.standard_normal(d_model)).astype(dtype)
    for name in ("b_1", "b_2", "beta_1", "beta_2", "beta_3"):
        p[name] = (0.3 * rng.standard_normal(p[name].shape)).astype(dtype)
    for name in ("gamma_1", "gamma_2", "gamma_3"):
        p[name] = rng.uniform(0.5, 1.5, p[name].shape).astype(dtype)
    return p


def masks(ch14, kind, batch, n_tgt, n_src, seed):
    """(the book's tgt_mask and memory_mask, True = may attend; PyTorch's keyword arguments)."""
    rng = np.random.default_rng(seed)
    tgt_len, src_len = rng.integers(1, n_tgt + 1, batch), rng.integers(1, n_src + 1, batch)
    tgt_len[0], src_len[0] = n_tgt, n_src
    tgt_real = np.arange(n_tgt)[None, :] < tgt_len[:, None]          # (batch, n_tgt)
    src_real = np.arange(n_src)[None, :] < src_len[:, None]          # (batch, n_src)
    causal = ch14["causal_mask"](n_tgt)
    tgt_mask, memory_mask, kw = None, None, {}
    if "causal" in kind:
        tgt_mask, kw["tgt_mask"] = causal, t(~causal)
    if "tgt-padding" in kind or "both-padding" in kind:
        pad = tgt_real[:, None, :]
        tgt_mask = pad if tgt_mask is None else tgt_mask & pad
        kw["tgt_key_padding_mask"] = t(~tgt_real)
    if "src-padding" in kind or "both-padding" in kind:
        memory_mask = src_real[:, None, :]
        kw["memory_key_padding_mask"] = t(~src_real)
    return tgt_mask, memory_mask, kw


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_decoder_block_matches_torch_decoder_layer(ch14, size, norm_first, mask_kind, dtype):
    batch, n_tgt, n_src, d_model, h, d_ff = size
    p = random_parameters(ch14, d_model, d_ff, dtype, seed=d_model + n_tgt)
    rng = np.random.default_rng(n_tgt + 10 * n_src)
    Y = rng.standard_normal((batch, n_tgt, d_model)).astype(dtype)
    H = rng.standard_normal((batch, n_src, d_model)).astype(dtype)
    tgt_mask, memory_mask, kw = masks(ch14, mask_kind, batch, n_tgt, n_src, seed=batch)
    ours = ch14["decoder_block"](Y, H, p, h, norm_first=norm_first, tgt_mask=tgt_mask, memory_mask=memory_mask)
    assert ours.dtype == dtype and ours.shape == Y.shape
    layer = torch_layer(p, h, norm_first, dtype)
    with torch.no_grad():
        theirs = layer(t(Y), t(H), **kw).numpy()
    if "tgt-padding" in mask_kind or "both-padding" in mask_kind:
        # a padded target row that may attend to nothing: PyTorch gives NaN, the book 0 weights;
        # only rows with at least one allowed key are compared (a real model never reads the others)
        full = np.broadcast_to(tgt_mask, (batch, n_tgt, n_tgt)).any(axis=-1)
        ours, theirs = ours[full], theirs[full]
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("h,g", [(4, 4), (4, 2), (4, 1), (8, 2), (6, 3)])
@pytest.mark.parametrize("cross", [False, True], ids=["self", "cross"])
def test_grouped_query_attention_matches_torch_sdpa(ch14, h, g, cross, dtype):
    """multi_head_attention with g key/value heads (no biases) against PyTorch's
    scaled_dot_product_attention(enable_gqa=True), causal for self-attention."""
    F = torch.nn.functional
    if "enable_gqa" not in F.scaled_dot_product_attention.__doc__:
        pytest.skip("this PyTorch has no enable_gqa (it came with 2.5)")
    d_k, n_q, n_k, batch = 4, 5, 5 if not cross else 7, 2
    rng = np.random.default_rng(h + 10 * g)
    d_model = h * d_k
    p = {name: (rng.standard_normal((d_model, cols)) / np.sqrt(d_model)).astype(dtype)
         for name, cols in (("W_Q", h * d_k), ("W_K", g * d_k), ("W_V", g * d_k), ("W_O", d_model))}
    X = rng.standard_normal((batch, n_q, d_model)).astype(dtype)
    Z = rng.standard_normal((batch, n_k, d_model)).astype(dtype) if cross else X
    mask = None if cross else ch14["causal_mask"](n_q)
    ours, A = ch14["multi_head_attention"](X, p, h, mask=mask, memory=Z if cross else None, g=g)
    assert A.shape == (batch, h, n_q, n_k)

    def heads(M, k):
        return t(M).reshape(batch, M.shape[1], k, d_k).transpose(1, 2)
    with torch.no_grad():
        O = F.scaled_dot_product_attention(heads(X @ p["W_Q"], h), heads(Z @ p["W_K"], g),
                                           heads(Z @ p["W_V"], g), is_causal=not cross, enable_gqa=True)
        theirs = (O.transpose(1, 2).reshape(batch, n_q, h * d_k).numpy()) @ p["W_O"]
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])
