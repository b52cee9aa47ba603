"""The functions chapter 14 teaches (14_generation.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import copy
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
    if h % g or p["W_K"].shape[1] * h != p["W_Q"].shape[1] * g:
        raise ValueError(f"h = {h} query heads need g dividing h and W_K with g·d_k columns: g = {g}, "
                         f"W_Q {p['W_Q'].shape}, W_K {p['W_K'].shape}")
    Q = split_heads(X @ p["W_Q"] + p.get("b_Q", 0), h)          # (..., h, n_q, d_k)
    K = split_heads(Z @ p["W_K"] + p.get("b_K", 0), g)          # (..., g, n_k, d_k)
    V = split_heads(Z @ p["W_V"] + p.get("b_V", 0), g)
    K, V = np.repeat(K, h // g, axis=-3), np.repeat(V, h // g, axis=-3)   # one per query head
    if mask is not None:                                        # one mask for all heads
        mask = np.expand_dims(np.atleast_2d(mask), -3)
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


# Defined in chapter 14, 14_generation.ipynb (cell c14-039)
def start_cache(m, H, g):
    """A sentence's cache: the source's keys and values for the cross-attention (computed
    once) and the target's for the self-attention, which grow by one row per step."""
    d_k = m["self"]["W_K"].shape[1] // g
    return {"K_src": split_heads(H @ m["cross"]["W_K"], g), "V_src": split_heads(H @ m["cross"]["W_V"], g),
            "K": np.zeros((g, 0, d_k), dtype=H.dtype), "V": np.zeros((g, 0, d_k), dtype=H.dtype)}


# Defined in chapter 14, 14_generation.ipynb (cell c14-039)
def attend(y, p, K, V, g):
    """One new query row y (d_model,) against keys and values K, V (g, t, d_k)."""
    h = p["W_Q"].shape[1] // K.shape[-1]
    q = split_heads(y[None] @ p["W_Q"], h)                              # (h, 1, d_k)
    O, A = attention(q, np.repeat(K, h // g, axis=0), np.repeat(V, h // g, axis=0))
    return merge_heads(O)[0] @ p["W_O"], A[:, 0]                        # (d_model,), (h, t)


# Defined in chapter 14, 14_generation.ipynb (cell c14-039)
def decode_step(m, token, t, cache, g):
    """Step t with a KV cache: the token at position t goes in, ONE new key and value are
    appended; returns the logits of the next word and the cross-attention weights."""
    if (g, t) != cache["K"].shape[:2] or not 0 <= token < len(m["E_tgt"]):
        raise ValueError(f"step t = {t}, g = {g}, token {token}: the cache holds {cache['K'].shape[1]} "
                         f"tokens of {cache['K'].shape[0]} key/value heads, the vocabulary {len(m['E_tgt'])}")
    y0 = m["E_tgt"][token] + m["P_tgt"][t]                              # the new position only
    k, v = split_heads(y0[None] @ m["self"]["W_K"], g), split_heads(y0[None] @ m["self"]["W_V"], g)
    cache["K"] = np.concatenate([cache["K"], k], axis=1)                # (g, t + 1, d_k)
    cache["V"] = np.concatenate([cache["V"], v], axis=1)
    y1 = y0 + attend(y0, m["self"], cache["K"], cache["V"], g)[0]
    M, A = attend(y1, m["cross"], cache["K_src"], cache["V_src"], g)
    return (y1 + M) @ m["W_out"] + m["b_out"], A


# Defined in chapter 14, 14_generation.ipynb (cell c14-043)
def fastest(f, repeat):
    """The fastest of `repeat` runs of f(), in seconds."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


# Defined in chapter 14, 14_generation.ipynb (cell c14-047)
def cache_bytes(layers, heads, d_k, t, bytes_per_number=8):
    """Bytes of a KV cache: a key and a value of d_k numbers per layer, head and token."""
    return 2 * layers * heads * d_k * t * bytes_per_number
