"""The functions chapter 6 teaches (06_positions_and_heads.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import math
from attention_book.ch05 import apply_masks, attention, softmax_safe, validate_mask, validate_qkv


# Defined in chapter 6, 06_positions_and_heads.ipynb (cell 9550e80e)
def positional_encoding(n, d_model):
    """Sinusoidal positional encodings (n, d_model): sin in even, cos in odd columns."""
    p = np.arange(n)[:, None]                                  # positions 0 … n−1
    omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)  # d_model/2 frequencies
    PE = np.zeros((n, d_model))
    PE[:, 0::2] = np.sin(p * omega)
    PE[:, 1::2] = np.cos(p * omega)
    return PE


# Defined in chapter 6, 06_positions_and_heads.ipynb (cell 9f463249)
def split_heads(M, h):
    """(..., n, d_model) -> (..., h, n, d_k): head k gets columns k*d_k … (k+1)*d_k − 1."""
    *batch, n, d_model = M.shape
    return np.swapaxes(M.reshape(*batch, n, h, d_model // h), -2, -3)


# Defined in chapter 6, 06_positions_and_heads.ipynb (cell 9f463249)
def merge_heads(M):
    """(..., h, n, d_k) -> (..., n, h*d_k): the heads' outputs side by side."""
    M = np.swapaxes(M, -2, -3)
    return M.reshape(*M.shape[:-2], M.shape[-2] * M.shape[-1])


# Defined in chapter 6, 06_positions_and_heads.ipynb (cell b8bdad46)
def validate_mha(X_q, X_kv, W_Q, W_K, W_V, W_O, h):
    """Raise ValueError, naming the shapes, if the inputs of multi_head_attention do not fit."""
    d_model = X_q.shape[-1]
    if X_q.ndim < 2 or X_kv.ndim < 2 or X_kv.shape[-1] != d_model:
        raise ValueError(f"X_q and X_kv must be (..., n, d_model) with the same d_model: X_q {X_q.shape}, X_kv {X_kv.shape}")
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O)):
        if W.shape != (d_model, d_model):
            raise ValueError(f"{name} must have shape (d_model, d_model) = {(d_model, d_model)}, got {W.shape}")
        if not np.all(np.isfinite(W)):
            raise ValueError(f"{name} holds non-finite values (nan or inf)")
    if not (isinstance(h, (int, np.integer)) and h > 0 and d_model % h == 0):
        raise ValueError(f"h must be a positive whole number dividing d_model = {d_model}, got h = {h}")
    for name, M in (("X_q", X_q), ("X_kv", X_kv)):
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} holds non-finite values (nan or inf)")


# Defined in chapter 6, 06_positions_and_heads.ipynb (cell 35d0430b)
def multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, h, mask=None, causal=False):
    """Multi-head attention of X_q (..., n_q, d_model) over X_kv (..., n_kv, d_model).

    W_Q, W_K, W_V, W_O: (d_model, d_model), used as X @ W (rows = input
    features, columns = output features; the transpose of PyTorch's storage:
    W_Q = in_proj_weight[:d_model].T, …, W_O = out_proj.weight.T).
    h: number of heads; head k uses columns k*d_k … (k+1)*d_k − 1 of the
    projections, d_k = d_model // h (the layout of torch.nn.MultiheadAttention).
    mask, causal: as in `attention` (True = may attend), the same for every
    head; mask broadcastable to (..., n_q, n_kv).
    Self-attention: multi_head_attention(X, X, ...).
    Returns (O (..., n_q, d_model), A_per_head (..., h, n_q, n_kv)).
    """
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    W_Q, W_K, W_V, W_O = (np.asarray(W) for W in (W_Q, W_K, W_V, W_O))
    validate_mha(X_q, X_kv, W_Q, W_K, W_V, W_O, h)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 3:                     # (..., n_q, n_kv) -> (..., 1, n_q, n_kv): one mask for all heads
            mask = np.expand_dims(mask, -3)
    Q = split_heads(X_q @ W_Q, h)              # (..., h, n_q, d_k)
    K = split_heads(X_kv @ W_K, h)             # (..., h, n_kv, d_k)
    V = split_heads(X_kv @ W_V, h)             # (..., h, n_kv, d_k)
    O_heads, A = attention(Q, K, V, mask=mask, causal=causal)
    return merge_heads(O_heads) @ W_O, A
