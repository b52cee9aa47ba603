"""The functions chapter 13 teaches (13_transformer_block.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import math


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-005)
def softmax(S):
    """Softmax of each row of S (over the last axis), in the stable form."""
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-005)
def attention(Q, K, V, mask=None):
    """softmax(Q Kᵀ / √d_k) V over the last two axes; returns (O, A).

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v).
    mask: boolean, broadcastable to (..., n_q, n_k), True where query i may
    attend to key j. A query with no allowed key gets weights 0 and output 0.
    Raises ValueError for a mask that is not boolean (an additive 0/−inf mask, say)
    and for Q, K or V with inf or NaN.
    """
    if mask is not None and np.asarray(mask).dtype != bool:
        raise ValueError(f"mask must be boolean (True = may attend), not {np.asarray(mask).dtype}")
    if not all(np.isfinite(M).all() for M in (Q, K, V)):
        raise ValueError("Q, K and V must be finite: an inf or NaN would spread through the weights")
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)          # scores (..., n_q, n_k)
    if mask is not None:
        S = np.where(mask, S, -np.inf)                        # masked pairs: weight 0
    top = S.max(axis=-1, keepdims=True)
    E = np.exp(S - np.where(np.isfinite(top), top, 0))        # stable softmax
    total = E.sum(axis=-1, keepdims=True)
    A = E / np.where(total > 0, total, 1)                     # weights (..., n_q, n_k)
    return A @ V, A


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-007)
def split_heads(M, h):
    """(..., n, d_model) -> (..., h, n, d_k): head k gets columns k*d_k … (k+1)*d_k − 1."""
    *batch, n, d_model = M.shape
    return np.swapaxes(M.reshape(*batch, n, h, d_model // h), -2, -3)


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-007)
def merge_heads(M):
    """(..., h, n, d_k) -> (..., n, h*d_k): the heads' outputs side by side."""
    M = np.swapaxes(M, -2, -3)
    return M.reshape(*M.shape[:-2], M.shape[-2] * M.shape[-1])


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-007)
def multi_head_attention(X, p, h, mask=None):
    """Multi-head self-attention of X (..., n, d_model) with h heads.

    p: the block's parameters; W_Q, W_K, W_V, W_O (d_model, d_model), used as
    X @ W, and biases b_Q, b_K, b_V, b_O (d_model,). mask as in `attention`,
    the same for every head. Returns (O (..., n, d_model), A (..., h, n, n)).
    """
    Q = split_heads(X @ p["W_Q"] + p["b_Q"], h)       # (..., h, n, d_k)
    K = split_heads(X @ p["W_K"] + p["b_K"], h)       # (..., h, n, d_k)
    V = split_heads(X @ p["W_V"] + p["b_V"], h)       # (..., h, n, d_k)
    if mask is not None:
        mask = np.expand_dims(mask, -3)               # one mask for all heads
    O_heads, A = attention(Q, K, V, mask)
    return merge_heads(O_heads) @ p["W_O"] + p["b_O"], A


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-009)
def init_block(d_model, d_ff, rng, dtype=np.float64):
    """Random parameters of one encoder block (names as in the formulas)."""
    def W(n_in, n_out):
        return (rng.standard_normal((n_in, n_out)) / math.sqrt(n_in)).astype(dtype)
    p = {name: W(d_model, d_model) for name in ("W_Q", "W_K", "W_V", "W_O")}
    p |= {name: np.zeros(d_model, dtype) for name in ("b_Q", "b_K", "b_V", "b_O", "b_2", "beta_1", "beta_2")}
    p |= {"W_1": W(d_model, d_ff), "b_1": np.zeros(d_ff, dtype), "W_2": W(d_ff, d_model),
          "gamma_1": np.ones(d_model, dtype), "gamma_2": np.ones(d_model, dtype)}
    return p


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-015)
def layer_norm(X, gamma, beta, eps=1e-5):
    """Normalise each row of X (..., d) to mean 0, variance 1; then scale by gamma, shift by beta."""
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)      # the biased variance, as PyTorch
    return (X - mu) / np.sqrt(var + eps) * gamma + beta


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-019)
def relu(Z):
    return np.maximum(Z, 0)


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-019)
def feed_forward(X, p):
    """The position-wise feed-forward network: relu(X W_1 + b_1) W_2 + b_2, row by row."""
    H = relu(X @ p["W_1"] + p["b_1"])                # hidden layer (..., n, d_ff)
    return H @ p["W_2"] + p["b_2"]                   # back to (..., n, d_model)


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-024)
def dropout(X, p_drop, training, rng=None):
    """Inverted dropout: in training, zero each entry with probability p_drop and
    scale the rest by 1/(1 - p_drop); at evaluation (training=False), return X."""
    if not training or p_drop == 0:
        return X
    keep = rng.random(X.shape) >= p_drop
    return np.where(keep, X / (1 - p_drop), 0)


# Defined in chapter 13, 13_transformer_block.ipynb (cell c12-027)
def encoder_block(X, p, h, norm_first=False, mask=None, p_drop=0.0, training=False, rng=None):
    """One Transformer encoder block: X (..., n, d_model) -> (..., n, d_model).

    norm_first=False: post-norm, X' = LN1(X + MHA(X)), Y = LN2(X' + FFN(X')).
    norm_first=True:  pre-norm,  X' = X + MHA(LN1(X)), Y = X' + FFN(LN2(X')).
    mask: as in `attention` (True = may attend). Dropout with probability
    p_drop on each sublayer's output when training (rng: a numpy Generator).
    """
    def mha(Z):
        return dropout(multi_head_attention(Z, p, h, mask)[0], p_drop, training, rng)

    def ffn(Z):
        return dropout(feed_forward(Z, p), p_drop, training, rng)

    if norm_first:
        X = X + mha(layer_norm(X, p["gamma_1"], p["beta_1"]))
        return X + ffn(layer_norm(X, p["gamma_2"], p["beta_2"]))
    X = layer_norm(X + mha(X), p["gamma_1"], p["beta_1"])
    return layer_norm(X + ffn(X), p["gamma_2"], p["beta_2"])
