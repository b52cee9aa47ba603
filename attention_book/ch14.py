"""The functions chapter 14 teaches (14_generation.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import ctypes
import glob
import math
import time
from attention_book.ch13 import attention, feed_forward, layer_norm, merge_heads, relu, softmax, split_heads
from attention_book.ch10 import blas_threads


# Defined in chapter 14, 14_generation.ipynb (cell c14-006)
def multi_head_attention(X, p, h, mask=None, memory=None, g=None):
    """Multi-head attention, h query heads. Queries from X (..., n_q, d_model); keys and
    values from `memory` (..., n_k, d_model): cross-attention; or, if None, from X.

    g: key/value heads (default h); the h query heads share them in g groups, query
    head k using group k // (h/g). W_K, W_V have g·d_k columns. Biases are optional.
    mask: broadcastable to (..., n_q, n_k), True = may attend, the same for every head.
    Returns (O (..., n_q, d_model), A (..., h, n_q, n_k)).
    """
    Z = X if memory is None else memory
    g = h if g is None else g
    Q = split_heads(X @ p["W_Q"] + p.get("b_Q", 0), h)          # (..., h, n_q, d_k)
    K = split_heads(Z @ p["W_K"] + p.get("b_K", 0), g)          # (..., g, n_k, d_k)
    V = split_heads(Z @ p["W_V"] + p.get("b_V", 0), g)
    K, V = np.repeat(K, h // g, axis=-3), np.repeat(V, h // g, axis=-3)   # one per query head
    if mask is not None:
        mask = np.expand_dims(mask, -3)                         # one mask for all heads
    O_heads, A = attention(Q, K, V, mask)
    return merge_heads(O_heads) @ p["W_O"] + p.get("b_O", 0), A


# Defined in chapter 14, 14_generation.ipynb (cell c14-006)
def causal_mask(n):
    """(n, n) boolean: position i may attend to positions j <= i."""
    return np.tril(np.ones((n, n), dtype=bool))


# Defined in chapter 14, 14_generation.ipynb (cell c14-008)
def init_decoder_block(d_model, d_ff, rng, dtype=np.float64):
    """Random parameters of one decoder block: p["self"], p["cross"] (each W_Q, W_K, W_V,
    W_O and biases), the feed-forward W_1, b_1, W_2, b_2, and three layer norms."""
    def W(n_in, n_out):
        return (rng.standard_normal((n_in, n_out)) / math.sqrt(n_in)).astype(dtype)

    def attention_weights():
        return ({name: W(d_model, d_model) for name in ("W_Q", "W_K", "W_V", "W_O")}
                | {name: np.zeros(d_model, dtype) for name in ("b_Q", "b_K", "b_V", "b_O")})
    p = {"self": attention_weights(), "cross": attention_weights(),
         "W_1": W(d_model, d_ff), "b_1": np.zeros(d_ff, dtype),
         "W_2": W(d_ff, d_model), "b_2": np.zeros(d_model, dtype)}
    for k in (1, 2, 3):
        p[f"gamma_{k}"], p[f"beta_{k}"] = np.ones(d_model, dtype), np.zeros(d_model, dtype)
    return p


# Defined in chapter 14, 14_generation.ipynb (cell c14-009)
def decoder_block(Y, H, p, h, norm_first=False, tgt_mask=None, memory_mask=None):
    """One Transformer decoder block: target Y (..., n_tgt, d_model), encoder output
    H (..., n_src, d_model) -> (..., n_tgt, d_model). No dropout (evaluation).

    tgt_mask: for the self-attention (n_tgt, n_tgt), usually causal (and padding);
    memory_mask: for the cross-attention (..., n_tgt or 1, n_src), the source's padding.
    """
    def ln(Z, k):
        return layer_norm(Z, p[f"gamma_{k}"], p[f"beta_{k}"])

    def self_attention(Z):
        return multi_head_attention(Z, p["self"], h, tgt_mask)[0]

    def cross_attention(Z):
        return multi_head_attention(Z, p["cross"], h, memory_mask, memory=H)[0]

    if norm_first:                                            # pre-norm
        Y = Y + self_attention(ln(Y, 1))
        Y = Y + cross_attention(ln(Y, 2))
        return Y + feed_forward(ln(Y, 3), p)
    Y = ln(Y + self_attention(Y), 1)                          # post-norm
    Y = ln(Y + cross_attention(Y), 2)
    return ln(Y + feed_forward(Y, p), 3)
