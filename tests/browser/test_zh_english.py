"""No English a Chinese reader meets on the built Chinese edition, but for a short allow-list.

Every page of _build/html/zh is read as a reader sees it (tools/zh_english.py:
page_texts): its prose, every cell's printed output, and the texts of its widgets
(slider labels and options, quiz texts) from the page's widget state. Each word in
Latin letters must be one of: a name (tools/zh_english.NAMES, the references'
authors), an acronym, a unit, a symbol, code (shown as code, or an identifier), a
term's English in full-width parentheses after it (自注意力（self-attention）), a
citation, English quoted as an example (“I like studying”), or the chapter's own
English data below. Needs no browser, only the built book (it runs with the
browser tests, after `make book`).
"""
import sys
from pathlib import Path

import pytest

from conftest import HTML, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import zh_english  # noqa: E402

# The chapters' English data: the toy translation corpus's English (chapters 2-4, 14),
# the example sentence of chapters 4-6, the real model's prompts and tokens (chapter 15),
# and the names of answers and configuration keys shown as data.
TRANSLATION = set("i you we they he she like likes study studying studies eat drink read teach work works at "
                  "in school home university history music coffee tea books will go to tomorrow today "
                  "the a and".split())
SENTENCE = set("the cat sat on mat because it was tired its".split())
DATA = {
    "02_attention_scores": TRANSLATION | {"mean"},      # the prediction's code value ("均值" accepted too)
    "03_qkv_translation": TRANSLATION,
    "04_attention_vs_self_attention": TRANSLATION | SENTENCE,
    "05_self_attention": SENTENCE,
    "06_positions_and_heads": SENTENCE,
    "14_generation": TRANSLATION,
    "15_real_model": set("the capital of france is paris london attention one what".split())
                     | set("once upon a time there was a little girl town".split())   # the sampling section's prompt, its top tokens
                     | {"layers", "h", "g", "base", "eps", "context"},   # the model's configuration, printed
}


def zh_pages():
    pages = sorted(p for p in (HTML / "zh").rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts
                   and p.stem not in ("genindex", "search"))
    return pages or [HTML / "zh" / "index.html"]


@pytest.mark.parametrize("path", zh_pages(), ids=lambda p: str(p.relative_to(HTML)))
def test_no_english_on_a_chinese_page(path):
    allowed = zh_english.bib_names() | DATA.get(path.stem, set())
    found = []
    for kind, text in zh_english.page_texts(path.read_text()):
        for word in zh_english.english_words(text, allowed):
            at = text.find(word)
            found.append(f"{kind}: {word!r} in …{text[max(0, at - 40):at + 40]!r}…")
    assert not found, f"{len(found)} English words:\n" + "\n".join(sorted(set(found))[:40])


def test_the_scan_finds_english_and_keeps_what_is_allowed():
    words = zh_english.english_words
    assert words("把查询从 fur 换成 sky") == ["fur", "sky"]
    assert words("第 10 个图像块的特征：{'sky': 0.06}") == ["sky"]
    assert words("自注意力（self-attention；查询来自同一序列）用 numpy 和 `np.array([m, l])` 实现，"
                 "见 Vaswani et al., 2017；KV 缓存 4 MiB；d_k = 64；“I like studying”") == []
    assert words("the cat sat", {"the", "cat", "sat"}) == []
    assert words("没有安装 PyTorch（用 pip install torch 安装后即可运行）") == []
    assert words("post-norm 后置归一化") == ["post"]          # "norm" alone is kept (a formula name)
