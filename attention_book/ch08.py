"""The functions chapter 8 teaches (08_long_range_dependencies.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
from attention_book.ch06 import positional_encoding


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell c75af34a)
def softmax(S):
    """Softmax along the last axis: each row of scores becomes weights summing to 1."""
    S = S - S.max(axis=-1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=-1, keepdims=True)


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell c75af34a)
d_model = 16    # size of every input vector x_t


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell c75af34a)
d_h = 16        # size of the RNN's hidden state


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell c75af34a)
N_MAX = 512     # the longest sequence used


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell d81a9956)
def rnn_weights(scale, seed=0, x_scale=0.5):
    """W_h (d_h, d_h): a random orthogonal matrix times `scale`; W_x (d_model, d_h): random."""
    rng = np.random.default_rng(seed)
    O, _ = np.linalg.qr(rng.standard_normal((d_h, d_h)))
    return scale * O, x_scale * rng.standard_normal((d_model, d_h)) / np.sqrt(d_model)


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell d81a9956)
def rnn(X, W_h, W_x):
    """Run a tanh RNN over X (n, d_model); return all hidden states H (n, d_h)."""
    H = np.empty((len(X), W_h.shape[0]))
    h = np.zeros(W_h.shape[0])
    for t in range(len(X)):               # n steps, each needs the previous one
        h = np.tanh(h @ W_h + X[t] @ W_x)
        H[t] = h
    return H


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell 08768c51)
def attention_weights(d_k, seed=2):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_model), random."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((d_model, d)) / np.sqrt(d_model) for d in (d_k, d_k, d_model)]


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell 08768c51)
def self_attention(X, W_Q, W_K, W_V):
    """One self-attention layer: returns Y (n, d_v) and the weights A (n, n).
    X may also be a batch of sequences (B, n, d_model): then Y is (B, n, d_v), A (B, n, n)."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))   # Kᵀ of each sequence
    return A @ V, A


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell 7f263152)
def dependency_graph(kind, n):
    """For each output ("y", t): the nodes it is computed from. Inputs are ("x", t)."""
    if kind == "rnn":
        return {("y", t): [("x", t)] + ([("y", t - 1)] if t > 0 else []) for t in range(n)}
    return {("y", t): [("x", j) for j in range(n)] for t in range(n)}   # self-attention


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell 7f263152)
def path_length(deps, source, target):
    """Fewest arrows from source to target: breadth-first search backwards from target."""
    frontier, steps, seen = {target}, 0, {target}
    while source not in frontier:
        frontier = {u for v in frontier for u in deps.get(v, [])} - seen
        seen |= frontier
        steps += 1
    return steps


# Defined in chapter 8, 08_long_range_dependencies.ipynb (cell 7f263152)
def sequential_steps(deps, n):
    """Length of the longest chain of outputs that must be computed one after another."""
    level = {}
    for t in range(n):   # every output depends only on earlier outputs, if any
        level[t] = 1 + max((level[u[1]] for u in deps[("y", t)] if u[0] == "y"), default=0)
    return max(level.values())
