"""The functions chapter 11 teaches (11_exact_attention_linear_memory.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import math
import time
import tracemalloc
from attention_book.ch10 import blas_threads


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell 3019ad6f)
def attention(Q, K, V, causal=False):
    """Plain attention softmax(Q Kᵀ / √d_k) V; builds the whole n_q × n_k matrix.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v) -> (..., n_q, d_v).
    """
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)        # scores, n_q × n_k
    if causal:                                              # hide the future: j > i
        S = np.where(np.triu(np.ones(S.shape[-2:], bool), 1), -np.inf, S)
    A = np.exp(S - S.max(axis=-1, keepdims=True))           # stable softmax (chapter 2)
    A = A / A.sum(axis=-1, keepdims=True)                   # rows sum to 1
    return A @ V


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell 23f438d6)
def online_softmax_stats(s, block_size):
    """Running max and running sum of exp(s - max) over blocks of a score row s.

    Returns two lists: m_t and l_t after each block t. Scores may be -inf (a
    masked key): while every score seen is -inf, m = -inf and l = 0 (no key
    allowed yet; weights 0, as in chapter 5's attention).
    """
    m, l = -np.inf, 0.0
    ms, ls = [], []
    for j0 in range(0, len(s), block_size):
        block = s[j0:j0 + block_size]
        m_new = max(m, block.max())
        ref = 0.0 if m_new == -np.inf else m_new         # all -inf so far: subtract 0, not -inf
        l = l * np.exp(m - ref) + np.exp(block - ref).sum()
        m = m_new
        ms.append(m)
        ls.append(l)
    return ms, ls


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell c016ce52)
TILE = 2 ** 19   # entries in one score tile (2 MiB in float32) = query block × block_size


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell c016ce52)
def online_step(m, l, acc, S, V_block):
    """Fold one tile of scores S (queries × keys) into the running state of its queries.

    m, l: running max and running sum, shape (..., queries, 1); acc: running output
    (..., queries, d_v); V_block: the values of the tile's keys. S is overwritten
    (it ends up holding e^(s - m_new)), acc is updated in place. Returns (m, l, acc).
    Every row must have a finite score by its first tile, so that m is finite from
    then on and a row that is all -inf in a later tile never makes -inf - (-inf).
    """
    m_new = np.maximum(m, S.max(axis=-1, keepdims=True))
    S -= m_new
    np.exp(S, out=S)                                   # S now holds e^(s - m_new)
    rescale = np.exp(m - m_new)                        # e^(m_old - m_new), at most 1
    l = l * rescale + S.sum(axis=-1, keepdims=True)
    acc *= rescale
    acc += S @ V_block
    return m_new, l, acc


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell e82b13e0)
def fit_inputs(Q, K, V):
    """Q, K, V in one float dtype (float32 at least), Q broadcast to the batch shape.

    Returns (Q, K, V, batch). Raises ValueError if K does not fit Q and V.
    """
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype, np.float32)
    Q, K, V = (np.asarray(X, dtype) for X in (Q, K, V))
    n_q, d_k = Q.shape[-2:]
    n_k, d_v = V.shape[-2:]
    if K.shape[-2:] != (n_k, d_k):
        raise ValueError(f"K must have shape (..., n_k, d_k) = (..., {n_k}, {d_k}) to fit "
                         f"Q {Q.shape} and V {V.shape}; K has shape {K.shape}")
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    return np.broadcast_to(Q, batch + (n_q, d_k)), K, V, batch   # a view: every tile has the whole batch


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell ab465f4b)
def tiled_attention(Q, K, V, block_size=128, causal=False):
    """Exact attention softmax(Q Kᵀ / √d_k) V without ever making the n_q × n_k matrix.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v), batch dimensions broadcast.
    Keys are read in blocks of `block_size`, queries in blocks of TILE / block_size
    rows: the largest array made is one tile of scores. causal=True: query i sees
    keys j <= i only. Returns O (..., n_q, d_v) in the inputs' float dtype (float32
    stays float32); raises ValueError if K does not fit Q and V.
    """
    Q, K, V, batch = fit_inputs(Q, K, V)
    n_q, n_k, d_v, dtype = Q.shape[-2], K.shape[-2], V.shape[-1], Q.dtype
    scale = dtype.type(1 / math.sqrt(Q.shape[-1]))             # 1 / √d_k in the inputs' dtype
    q_block = max(1, TILE // (block_size * math.prod(batch)))
    O = np.empty(batch + (n_q, d_v), dtype)
    for i0 in range(0, n_q, q_block):
        i1 = min(i0 + q_block, n_q)
        q = Q[..., i0:i1, :] * scale                           # scaled queries of this block
        m = np.full(batch + (i1 - i0, 1), -np.inf, dtype)      # running max, one per query
        l = np.zeros(batch + (i1 - i0, 1), dtype)              # running sum
        acc = np.zeros(batch + (i1 - i0, d_v), dtype)          # running (unnormalised) output
        for j0 in range(0, n_k, block_size):                   # the first tile holds key 0, which
            j1 = min(j0 + block_size, n_k)                     # every query sees: m is then finite
            if causal and j0 >= i1:                            # every key here is in the future
                break
            S = q @ np.swapaxes(K[..., j0:j1, :], -1, -2)      # one tile of scores
            if causal and j1 - 1 > i0:                         # the tile crosses the diagonal
                S[..., np.arange(i0, i1)[:, None] < np.arange(j0, j1)] = -np.inf
            m, l, acc = online_step(m, l, acc, S, V[..., j0:j1, :])
        O[..., i0:i1, :] = acc / l
    return O


# Defined in chapter 11, 11_exact_attention_linear_memory.ipynb (cell eb320a98)
def online_stats(S, block_size):
    """Running max M[t] and running sum L[t] of every row of S after key block t
    (online_softmax_stats for all rows at once; the figure below draws them).

    A row whose scores seen so far are all -inf has m = -inf and l = 0.
    """
    m = np.full(S.shape[0], -np.inf)
    l = np.zeros(S.shape[0])
    M, L = [], []
    for j0 in range(0, S.shape[1], block_size):
        block = S[:, j0:j0 + block_size]
        m_new = np.maximum(m, block.max(axis=1))
        ref = np.where(m_new == -np.inf, 0, m_new)       # rows all -inf so far: subtract 0
        l = l * np.exp(m - ref) + np.exp(block - ref[:, None]).sum(axis=1)
        m = m_new
        M.append(m)
        L.append(l)
    return np.array(M), np.array(L)
