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


# chapter 15's model code: its functions need the model loaded, so they come from the
# chapter's run (tests/nbload.py, once per session, shared with test_crosscheck_smollm2)
@pytest.fixture(scope="module")
def ch15():
    from nbload import Chapter
    chapter = Chapter("15_real_model")
    if chapter.get("MODEL") is None:
        pytest.fail("chapter 15 ran without its model: run `make model`", pytrace=False)
    return chapter


@pytest.mark.parametrize("ids, named", [([-1], "got -1 to -1"), ([5, 49152], "got 5 to 49152"),
                                        ([[1, 2]], "shape (1, 2)"), ([1.0, 2.0], "float64"),
                                        (np.zeros(0, int), "0 tokens after 0")],
                         ids=["minus one", "past the vocabulary", "2-D", "floats", "empty"])
def test_chapter15_forward_rejects_ids_that_are_not_tokens(ch15, ids, named):
    """Id -1 was read as token 49151 (numpy's negative index), silently."""
    with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)")):
        ch15["forward"](np.array(ids))


def test_chapter15_self_attention_is_causal_wherever_the_positions_start(ch15):
    """Without a cache, positions that do not start at 0 (7 … 11) were compared with key
    indices 0 … 4: every query saw every key, the future included."""
    W, X = ch15["W"], ch15["W"]["E"][[1, 2, 3, 4, 5]]
    for start in (0, 7):
        _, A = ch15["self_attention"](X, W["layers"][0], np.arange(start, start + 5))
        assert np.all(A[:, np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] == 0), start
        assert np.allclose(A.sum(axis=-1), 1, atol=1e-5)


def test_chapter15_forward_last_only_keeps_one_row_of_weights(ch15):
    """last_only=True kept every layer's full (h, n, n) weights: 1 GiB at 1,024 tokens."""
    logits, maps = ch15["forward"](np.arange(1, 9), last_only=True)
    assert logits.shape == (1, 49152) and len(maps) == 30
    assert all(A.shape == (9, 1, 8) for A in maps)
    full_logits, full_maps = ch15["forward"](np.arange(1, 9))
    assert np.allclose(full_maps[29][:, -1:], maps[29], atol=1e-6)
    assert np.abs(full_logits[-1:] - logits).max() < 1e-3
