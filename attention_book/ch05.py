"""The functions chapter 5 teaches (05_self_attention.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import math
from itertools import product


# Defined in chapter 5, 05_self_attention.ipynb (cell 36fb8ee7)
def attention_loops(Q, K, V):
    """Attention with explicit loops over query positions i and key positions j.

    Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). Returns (O (n_q, d_v), A (n_q, n_k)).
    Raises ValueError if K does not fit Q and V.
    """
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    if K.shape != (n_k, d_k):
        raise ValueError(f"K must have shape (n_k, d_k) = {(n_k, d_k)} to fit Q {Q.shape} "
                         f"and V {V.shape}; K has shape {K.shape}")
    O, A = np.zeros((n_q, d_v)), np.zeros((n_q, n_k))
    for i in range(n_q):                                    # one query at a time
        scores = [sum(Q[i, t] * K[j, t] for t in range(d_k)) / math.sqrt(d_k)
                  for j in range(n_k)]                      # step 2: q_i · k_j / √d_k
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]          # step 2: softmax
        for j in range(n_k):
            A[i, j] = exps[j] / sum(exps)
            O[i] += A[i, j] * V[j]                          # step 3: weighted sum
    return O, A                                             # step 4: one output row per query


# Defined in chapter 5, 05_self_attention.ipynb (cell fc9d5b80)
def softmax_safe(S):
    """Row softmax that gives all-zero weights to a row with no allowed key (all −inf)."""
    top = S.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)               # a fully masked row: subtract 0
    E = np.exp(S - top)                                    # e^(−inf) = 0 for masked keys
    total = E.sum(axis=-1, keepdims=True)
    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)


# Defined in chapter 5, 05_self_attention.ipynb (cell 702632df)
def validate_qkv(Q, K, V):
    """Raise ValueError, naming the shapes or values, if Q, K and V do not fit together.

    Returns the shape of the scores, (..., n_q, n_k).
    """
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if M.ndim < 2:
            raise ValueError(f"{name} must be at least 2-D (..., n, d), got shape {M.shape}")
        if not (np.issubdtype(M.dtype, np.integer) or np.issubdtype(M.dtype, np.floating)):
            raise ValueError(f"{name} must hold real numbers, got dtype {M.dtype}")
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} holds non-finite values (nan or inf): {np.sum(~np.isfinite(M))} of {M.size}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must have the same last dimension d_k: Q has shape {Q.shape}, K has shape {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have the same number of rows n_k: K has shape {K.shape}, V has shape {V.shape}")
    if K.shape[-2] == 0:
        raise ValueError(f"there must be at least one key: K has shape {K.shape}")
    try:
        batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch dimensions of Q {Q.shape}, K {K.shape} and V {V.shape} do not broadcast") from None
    return (*batch, Q.shape[-2], K.shape[-2])


# Defined in chapter 5, 05_self_attention.ipynb (cell 5286a8c6)
def validate_mask(mask, shape):
    """Raise ValueError if mask is neither boolean nor float, holds nan or +inf,
    or does not broadcast to the scores' shape (..., n_q, n_k)."""
    if mask.dtype != bool and not np.issubdtype(mask.dtype, np.floating):
        raise ValueError(f"mask must be boolean (True = may attend) or float (added to the scores), got dtype {mask.dtype}")
    if mask.dtype != bool and np.any(np.isnan(mask) | (mask == np.inf)):
        raise ValueError("a float mask may hold finite values and -inf, not nan or +inf")
    try:
        fits = np.broadcast_shapes(mask.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the scores' shape (..., n_q, n_k) = {shape}")


# Defined in chapter 5, 05_self_attention.ipynb (cell 73e89914)
def apply_masks(S, mask=None, causal=False):
    """The scores S (..., n_q, n_k) with the masks applied: forbidden pairs set to -inf
    (causal, boolean mask), or a float mask added."""
    n_q, n_k = S.shape[-2:]
    if causal:                                   # key j after query i: forbidden
        S = np.where(np.tril(np.ones((n_q, n_k), dtype=bool)), S, -np.inf)
    if mask is not None and mask.dtype == bool:
        S = np.where(mask, S, -np.inf)
    elif mask is not None:
        S = S + mask.astype(S.dtype)
    return S


# Defined in chapter 5, 05_self_attention.ipynb (cell 91ce9e60)
def attention(Q, K, V, mask=None, causal=False):
    """Scaled dot-product attention: softmax(Q Kᵀ / √d_k + mask) V.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v); the leading (batch)
    dimensions broadcast against each other.
    mask: optional, broadcastable to (..., n_q, n_k). Boolean: True where query i
        may attend to key j (as a boolean attn_mask in PyTorch's
        scaled_dot_product_attention). Float: added to the scores
        (0 keeps a pair, -inf removes it).
    causal: if True, query i may not attend to keys j > i (top-left aligned,
        like PyTorch's is_causal); combined with mask by AND.
    A query with no allowed key gets weights 0 and output 0 (PyTorch >= 2.5).
    Computes in the dtype of the inputs (integers are computed in float64).
    Raises ValueError for inputs that do not fit (validate_qkv, validate_mask).
    Returns (O (..., n_q, d_v), A (..., n_q, n_k)).
    """
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    mask = None if mask is None else np.asarray(mask)
    shape = validate_qkv(Q, K, V)
    if mask is not None:
        validate_mask(mask, shape)
    dtype = np.result_type(Q, K, V)
    dtype = dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)
    Q, K, V = Q.astype(dtype, copy=False), K.astype(dtype, copy=False), V.astype(dtype, copy=False)
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)          # scores (..., n_q, n_k)
    A = softmax_safe(apply_masks(S, mask, causal))            # weights (..., n_q, n_k)
    return A @ V, A
