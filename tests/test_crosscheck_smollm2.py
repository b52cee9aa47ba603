"""Chapter 15's numpy SmolLM2 against Hugging Face transformers, on the same GGUF file.

Loads `forward`, `tokenize`, `greedy_decode` and `find_model` from
notebooks/15_real_model by running the notebook's code (once per session:
tests/nbload.py), and the reference from the same file, offline
(HF_HUB_OFFLINE=1): AutoModelForCausalLM.from_pretrained(dir, gguf_file=...,
attn_implementation="eager") in float32, and AutoTokenizer the same way.
Compares, on prompts in English and Chinese, the logits at every position and
every layer's attention weights (all 9 heads) within float32 tolerances, the
argmax at every position, the tokenizer's ids on varied text, greedy
generation with and without the KV cache (and against transformers'
generate), and the chapter's errors on bad input and a corrupt model file.

Skipped with the reason where PyTorch, transformers/accelerate/gguf or the model
file is missing (`make install-torch`; `python tools/fetch_model.py`); under
CI=true a missing piece is an error.
"""
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from nbload import Chapter
from torch_or_skip import import_torch

torch, pytestmark = import_torch("the SmolLM2 cross-checks")

sys.path.insert(0, str(ROOT / "tools"))
import fetch_model  # noqa: E402

MISSING = [m for m in ("transformers", "accelerate", "gguf", "regex") if importlib.util.find_spec(m) is None]
if not pytestmark and MISSING:
    if os.environ.get("CI") == "true":
        raise ImportError(f"missing {MISSING}: pip install -r requirements-torch.txt")
    pytestmark = pytest.mark.skip(reason=f"{', '.join(MISSING)} not installed: run `make install-torch` "
                                         f"(requirements-torch.txt) to run the SmolLM2 cross-checks")
if not pytestmark and not fetch_model.model_path().is_file():
    if os.environ.get("CI") == "true":
        raise FileNotFoundError(f"{fetch_model.model_path()} missing: python tools/fetch_model.py")
    pytestmark = pytest.mark.skip(reason=f"the model file is not at {fetch_model.model_path()}: run "
                                         f"`python tools/fetch_model.py` (98 MB, once) to run the SmolLM2 cross-checks")

# float32 through 30 layers, the two implementations summing in different orders:
# measured max |difference| 1.0e-4 to 1.6e-4 on logits of size up to ~36 (argmax equal
# everywhere) and 3e-6 to 1.0e-5 on the attention weights of the deepest layers
LOGITS_TOL = dict(atol=1e-3, rtol=1e-5)
ATTENTION_TOL = dict(atol=5e-5, rtol=0)
PROMPTS = [
    "The capital of France is",
    "我喜欢学习。注意力机制是 Transformer 的核心，它让模型决定看哪里。",
    "Attention lets a model decide, for every word it reads, which of the other words matter most. "
    "A translator uses it to find the source words that the next target word depends on.",
    "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
]
TEXTS = PROMPTS + [
    "In 2024, 3.14159 apples cost $12,345.67 (about 1e-3 each)!",
    "def f(x):\n    return x**2  # 平方\n\n\n  tabs\tand  spaces   end ",
    "café naïve ＡＢＣ 一二三 ½ ² ٣ 🙂 don't I'll we've they're",
    "   leading spaces, trailing spaces   ",
    "注意力机制",
    "",
    "<|endoftext|>two<|im_end|> specials<file_sep>",
    "URL: https://example.com/path?q=1&r=2 — em dash … ellipsis «quotes»",
]


@pytest.fixture(scope="module")
def ch15():
    return Chapter("15_real_model")


@pytest.fixture(scope="module")
def reference():
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoModelForCausalLM, AutoTokenizer
    path = fetch_model.model_path()
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, attn_implementation="eager",
                                                 dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    return model, tokenizer


def test_model_file_checked():
    assert fetch_model.is_good(fetch_model.model_path()), "the cached model's SHA-256 differs: fetch it again"


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_tokenizer_ids_equal(ch15, reference, text):
    _, tokenizer = reference
    ours = ch15["tokenize"](text)
    assert ours == tokenizer(text, add_special_tokens=False)["input_ids"]
    assert ch15["detokenize"](ours) == text


@pytest.mark.parametrize("prompt", PROMPTS[:3], ids=["english", "chinese", "paragraph"])
def test_logits_and_every_attention_weight(ch15, reference, prompt):
    model, _ = reference
    ids = np.array(ch15["tokenize"](prompt))
    logits, maps = ch15["forward"](ids)
    assert logits.dtype == np.float32 and all(A.dtype == np.float32 for A in maps)
    with torch.no_grad():
        out = model(torch.from_numpy(ids[None]), output_attentions=True)
    expected = out.logits[0].numpy()
    np.testing.assert_allclose(logits, expected, **LOGITS_TOL)
    assert np.array_equal(logits.argmax(-1), expected.argmax(-1))
    assert len(maps) == len(out.attentions) == 30
    for layer, (A, A_ref) in enumerate(zip(maps, out.attentions)):
        np.testing.assert_allclose(A, A_ref[0].numpy(), **ATTENTION_TOL, err_msg=f"layer {layer}")


def test_paris(ch15):
    logits, _ = ch15["forward"](np.array(ch15["tokenize"]("The capital of France is")))
    assert ch15["detokenize"]([int(logits[-1].argmax())]) == " Paris"


@pytest.mark.parametrize("prompt", [PROMPTS[3], PROMPTS[0], "<|im_start|>user\n法国的首都是哪里？<|im_end|>\n"
                                    "<|im_start|>assistant\n"], ids=["chat", "plain", "chinese-chat"])
def test_cached_equals_uncached_equals_transformers(ch15, reference, prompt):
    model, _ = reference
    ids = ch15["tokenize"](prompt)
    cached, _, cache = ch15["greedy_decode"](ids, 12)
    uncached, _, _ = ch15["greedy_decode"](ids, 12, use_cache=False)
    assert cached == uncached
    assert cache[0]["K"].shape == (3, len(ids) + 11, 64)
    with torch.no_grad():
        generated = model.generate(torch.tensor([ids]), max_new_tokens=12, do_sample=False,
                                   attention_mask=torch.ones(1, len(ids), dtype=torch.long))
    expected = generated[0, len(ids):].tolist()             # transformers stops after <|im_end|>
    assert len(expected) >= 6 and cached[:len(expected)] == expected


def test_bad_input(ch15):
    forward = ch15["forward"]
    with pytest.raises(ValueError, match="give 1 to"):
        forward(np.array([], dtype=int))
    with pytest.raises(ValueError, match="give 1 to"):
        forward(np.zeros(8193, dtype=int))                     # longer than the context
    with pytest.raises(ValueError, match=r"the byte 0x1d \(in '\\x1d'\) has no token of its own"):
        ch15["tokenize"]("a\x1d b")                           # a control byte: not a KeyError


def test_corrupt_file_is_not_used(ch15, tmp_path, monkeypatch, capsys):
    good = fetch_model.model_path().read_bytes()
    monkeypatch.setitem(ch15["find_model"].__globals__, "MODEL_DIR", tmp_path)
    assert ch15["find_model"]() is None                        # missing
    (tmp_path / fetch_model.FILENAME).write_bytes(good[: len(good) // 2])   # half-written
    assert ch15["find_model"]() is None
    assert "corrupt" in capsys.readouterr().out
    monkeypatch.setenv("ATTENTION_BOOK_MODELS", str(tmp_path))
    assert not fetch_model.is_good(fetch_model.model_path())
    (tmp_path / fetch_model.FILENAME).write_bytes(good)
    assert ch15["find_model"]() == tmp_path / fetch_model.FILENAME
    assert fetch_model.is_good(fetch_model.model_path())
