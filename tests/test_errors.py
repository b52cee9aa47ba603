"""Bad input gets a clear error that names the shapes or values, never silent nonsense
(chapters 13 and 14; chapter 5's attention is tested in test_properties.py). The
functions are the chapters' own, imported from the package (attention_book.chNN)."""
import numpy as np
import pytest

from nbload import Saved

ch13, ch14 = Saved("13"), Saved("14")


@pytest.mark.parametrize("mask", [np.zeros((3, 3)),                                   # a float mask
                                  np.where(np.tri(3, dtype=bool), 0.0, -np.inf),      # PyTorch's additive one
                                  np.ones((3, 3), dtype=int)], ids=["float", "additive", "int"])
def test_chapter13_attention_rejects_a_mask_that_is_not_boolean(mask):
    Q = K = V = np.ones((3, 4))
    with pytest.raises(ValueError, match="boolean"):
        ch13["attention"](Q, K, V, mask)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_chapter13_attention_rejects_inf_and_nan(bad):
    Q, K, V = np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4))
    V[0, 0] = bad
    with pytest.raises(ValueError, match="finite"):
        ch13["attention"](Q, K, V)


def weights(d_model, h, g, rng):
    d_k = d_model // h
    return {"W_Q": rng.standard_normal((d_model, h * d_k)), "W_K": rng.standard_normal((d_model, g * d_k)),
            "W_V": rng.standard_normal((d_model, g * d_k)), "W_O": rng.standard_normal((h * d_k, d_model))}


def test_chapter14_attention_takes_a_key_mask_of_one_dimension():
    """mask (n_k,), as the docstring allows ("broadcastable"), is the same mask for every query."""
    rng = np.random.default_rng(0)
    X, p = rng.standard_normal((5, 8)), weights(8, 2, 2, rng)
    keep = np.array([True, True, False, True, False])
    O1, A1 = ch14["multi_head_attention"](X, p, 2, mask=keep)
    O2, A2 = ch14["multi_head_attention"](X, p, 2, mask=np.broadcast_to(keep, (5, 5)))
    assert np.allclose(O1, O2) and np.allclose(A1, A2) and np.all(A1[..., ~keep] == 0)


def test_chapter14_attention_rejects_an_additive_mask_instead_of_inverting_it():
    rng = np.random.default_rng(0)
    X, p = rng.standard_normal((4, 8)), weights(8, 2, 2, rng)
    additive = np.where(np.tri(4, dtype=bool), 0.0, -np.inf)     # 0 keep, −inf drop: PyTorch's float mask
    with pytest.raises(ValueError, match="boolean"):
        ch14["multi_head_attention"](X, p, 2, mask=additive)


@pytest.mark.parametrize("h, g", [(4, 3), (4, 2)])
def test_chapter14_attention_names_h_and_g_that_do_not_fit(h, g):
    rng = np.random.default_rng(0)
    X, p = rng.standard_normal((4, 8)), weights(8, 4, 1, rng)    # weights made for g = 1
    with pytest.raises(ValueError, match=f"h = {h} .*g = {g}"):
        ch14["multi_head_attention"](X, p, h, g=g)


def model(d_model=8, h=2, g=1, vocab=5, max_len=6, dtype=np.float64):
    rng = np.random.default_rng(1)
    return {"E_tgt": rng.standard_normal((vocab, d_model)).astype(dtype),
            "P_tgt": rng.standard_normal((max_len, d_model)).astype(dtype),
            "self": {k: v.astype(dtype) for k, v in weights(d_model, h, g, rng).items()},
            "cross": {k: v.astype(dtype) for k, v in weights(d_model, h, g, rng).items()},
            "W_out": rng.standard_normal((d_model, vocab)).astype(dtype), "b_out": np.zeros(vocab, dtype)}


def test_chapter14_cache_keeps_the_models_precision():
    """A float32 model's cache is float32, and so are its logits (not float64)."""
    m, H = model(dtype=np.float32), np.ones((3, 8), np.float32)
    cache = ch14["start_cache"](m, H, 1)
    logits, _ = ch14["decode_step"](m, 0, 0, cache, 1)
    assert cache["K"].dtype == cache["V"].dtype == logits.dtype == np.float32


@pytest.mark.parametrize("token, t, g", [(0, 1, 1), (0, -1, 1), (-1, 0, 1), (5, 0, 1), (0, 0, 2)],
                         ids=["t ahead of the cache", "t = -1", "token -1", "token past the vocabulary",
                              "g of another model"])
def test_chapter14_decode_step_rejects_a_step_that_does_not_fit_its_cache(token, t, g):
    m = model()
    cache = ch14["start_cache"](m, np.ones((3, 8)), 1)
    with pytest.raises(ValueError, match="the cache holds 0 tokens of 1 key/value heads"):
        ch14["decode_step"](m, token, t, cache, g)


def test_chapter14_translator_reads_its_heads_from_its_weights():
    """init_translator(h=8): the teacher-forced decoder reads h from W_Q and W_K, as
    decode_step does (it used the global HEADS = 4 and failed on W_Q's 8 heads), and the
    two give the same logits."""
    from nbload import chapter_path, run_code
    ns = run_code(chapter_path("14"), until="c14-020")
    g, h = 2, 8
    m = ns["init_translator"](g, seed=0, h=h)
    src, prev = np.array([[1, 2, 3]]), np.array([[0, 4, 5]])
    H = ns["encoder"](m, src)
    logits, A = ns["decoder"](m, H, prev, g)
    assert A.shape == (1, h, 3, 3)
    cache = ch14["start_cache"](m, H[0], g)
    for t, token in enumerate(prev[0]):
        step, _ = ch14["decode_step"](m, token, t, cache, g)
        assert np.abs(step - logits[0, t]).max() < 1e-9
