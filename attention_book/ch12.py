"""The functions chapter 12 teaches (12_channel_spatial_attention.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell 4b4967a4)
def sigmoid(u):
    """The logistic function 1 / (1 + e^(-u)), elementwise."""
    return 1 / (1 + np.exp(-u))


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell 4b4967a4)
def init_se(n, d_r, seed=0):
    """Random initial weights of an SE block for n channels and bottleneck width d_r.

    b1 starts at 1, so that every hidden ReLU unit starts switched on.
    """
    rng = np.random.default_rng(seed)
    return {"W1": rng.standard_normal((d_r, n)) / np.sqrt(n), "b1": np.ones(d_r),
            "W2": rng.standard_normal((n, d_r)) / np.sqrt(d_r), "b2": np.zeros(n)}


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell 4b4967a4)
def excite(z, P):
    """Excitation: gates s (..., n) from channel summaries z (..., n); also the hidden q."""
    q = np.maximum(z @ P["W1"].T + P["b1"], 0)      # the bottleneck, d_r numbers
    return sigmoid(q @ P["W2"].T + P["b2"]), q


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell 4b4967a4)
def se_block(X, P):
    """Squeeze-and-excitation on X (..., n, H, W): returns (reweighted X, gates s)."""
    z = X.mean(axis=(-2, -1))                         # squeeze
    s, _ = excite(z, P)                               # excitation
    return s[..., None, None] * X, s                  # scale


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell ad1fccb6)
def conv_same(x, kernel):
    """2-D convolution (as in deep learning: a correlation) of x (c, H, W) with
    kernel (c, k, k), zero padding, summed over c -> (H, W), for odd and even k.

    Padding: (k - 1) // 2 before and k // 2 after, in each direction; for even k
    the extra row and column go at the bottom and right (PyTorch's padding='same').
    """
    k = kernel.shape[-1]
    pad = ((k - 1) // 2, k // 2)
    xp = np.pad(x, ((0, 0), pad, pad))
    windows = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))
    return np.einsum("chwij,cij->hw", windows, kernel)


# Defined in chapter 12, 12_channel_spatial_attention.ipynb (cell ad1fccb6)
def spatial_attention(F, kernel, bias):
    """CBAM spatial attention map M (H, W) of a feature map F (n, H, W)."""
    pooled = np.stack([F.mean(axis=0), F.max(axis=0)])    # 1. pool over channels
    return sigmoid(conv_same(pooled, kernel) + bias)       # 2. convolve, 3. sigmoid
