"""The attention playground: softmax(Q Kᵀ / √d_k / T) recomputed in the browser
(attention_book/playground.js) at every slider move."""
from pathlib import Path

import numpy as np

from . import style
from .figures import _md, _printed, widgets
from .i18n import say as print, tr

# The attention playground: softmax(Q Kᵀ / √d_k / T) recomputed in the browser at
# every slider move, live in Jupyter and in the static HTML book alike (an
# anywidget: its JavaScript travels in the widget's state). Q and K are the first
# n rows and d_k columns of two fixed pools of N(0, 1) numbers, stored as int8
# (value = byte / 32) and rotated by the seed; playground_inputs() gives the same
# Q and K in numpy.
try:
    import anywidget
    import traitlets
except ImportError:  # Colab: !pip install anywidget, then restart the session
    anywidget = None

_POOL_ROWS, _POOL_COLS, _POOL_SCALE = 128, 512, 32


def _pools():
    rng = np.random.default_rng(2024)
    return [np.clip(np.round(rng.standard_normal((_POOL_ROWS, _POOL_COLS)) * _POOL_SCALE), -127, 127)
            .astype(np.int8) for _ in "QK"]


def playground_inputs(n, d_k, seed=0):
    """The playground's Q and K (n, d_k) for a setting, as the page computes them."""
    q, k = _pools()
    rq, rk, c0 = 37 * seed % _POOL_ROWS, 53 * seed % _POOL_ROWS, 101 * seed % _POOL_COLS
    cols = (np.arange(d_k) + c0) % _POOL_COLS
    return (q[(np.arange(n) + rq) % _POOL_ROWS][:, cols] / _POOL_SCALE,
            k[(np.arange(n) + rk) % _POOL_ROWS][:, cols] / _POOL_SCALE)


def playground_numbers(n, d_k, T=1.0, causal=False, seed=0):
    """What the playground shows for a setting, computed here with numpy: the
    largest weight, a row's mean entropy (nats), the spread of the scores Q Kᵀ
    before and after ÷ √d_k."""
    Q, K = playground_inputs(n, d_k, seed)
    S = Q @ K.T
    Z = S / np.sqrt(d_k) / T
    if causal:
        Z = np.where(np.tri(n, dtype=bool), Z, -np.inf)
    A = np.exp(Z - Z.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    H = -np.sum(A * np.log(np.where(A > 0, A, 1)), axis=1).mean()
    sd = S[np.tri(n, dtype=bool)].std() if causal else S.std()  # the scores a query may use
    return {"largest": A.max(), "entropy": H, "sd_raw": sd, "sd_scaled": sd / np.sqrt(d_k)}


_PLAYGROUND_JS = Path(__file__).with_name("playground.js")

if anywidget is not None:
    class _Playground(anywidget.AnyWidget):
        _esm = _PLAYGROUND_JS
        q, k = traitlets.Bytes().tag(sync=True), traitlets.Bytes().tag(sync=True)
        scale, rows, cols = (traitlets.Int(_POOL_SCALE).tag(sync=True), traitlets.Int(_POOL_ROWS).tag(sync=True),
                             traitlets.Int(_POOL_COLS).tag(sync=True))
        d_k, n, seed = traitlets.Int(64).tag(sync=True), traitlets.Int(16).tag(sync=True), traitlets.Int(0).tag(sync=True)
        temperature, causal = traitlets.Float(1.0).tag(sync=True), traitlets.Bool(False).tag(sync=True)
        labels = traitlets.Dict().tag(sync=True)

        def __repr__(self):
            return f"attention playground (d_k={self.d_k}, n={self.n})"


def playground(d_k=64, n=16, temperature=1.0, causal=False, seed=0):
    """Show the attention playground: sliders for d_k (1-512), n (2-128), the
    temperature T, a causal mask and a seed; the weights A = softmax(Q Kᵀ / √d_k / T)
    as a heat map, the scores before and after ÷ √d_k, the largest weight and a
    row's mean entropy, all recomputed in the browser (no kernel needed).
    Returns the widget (set w.d_k = 128 from Python), or None without anywidget."""
    if anywidget is None or widgets is None:
        print(tr("The playground needs the anywidget package: `pip install anywidget` "
                 "(on Colab: run `!pip install anywidget` in a cell, then restart the session)."))
        return None
    q, k = _pools()
    labels = {"d_k": "d_k", "n": "n", "temperature": tr("temperature T"), "seed": tr("seed"),
              "causal": tr("causal mask"), "raw": tr("scores Q Kᵀ"), "scaled": tr("scores Q Kᵀ / √d_k"),
              "score_axis": tr("score"), "heat": tr("A: <n> × <n>; rows: query i, columns: key j (brightest: <top>)"),
              "readout": tr("largest weight <largest> at (<i>, <j>); mean entropy of a row <entropy> "
                            "(uniform: <ln_n>); spread of the scores <sd_raw> → <sd_scaled> after ÷ √d_k")}
    w = _Playground(q=q.tobytes(), k=k.tobytes(), d_k=d_k, n=n, temperature=temperature, causal=causal,
                    seed=seed, labels=labels)
    if style.STATIC:  # the PDF book: a sentence instead of the interactive widget
        return _printed(w, **{"text/markdown": _md(tr("(The attention playground is interactive: "
                                                       "open the HTML book or the notebook.)"))})
    return w
