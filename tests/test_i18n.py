"""The Chinese edition (zh/, from locales/zh_CN by tools/i18n.py).

- every chapter and page of _toc.yml is published: every message translated,
  none fuzzy, each one well formed (`i18n.py check`), and zh/_toc.yml lists them
  all (a chapter whose catalog misses one message drops out of the Chinese
  edition: that fails here);
- zh/ is what a fresh `build` makes, and the code cells of the Chinese
  notebooks are the English ones, the setup cell being tools/setup_cell.py
  (its comments translated) followed by the language cell
  (so nbval on notebooks/ covers their code; the book build executes them);
- one Chinese name per term (score 分数 before softmax, weight 权重 after);
- every published page is mostly Chinese (≥ 80% of its words), no code message
  is translated by English, and what every Chinese notebook prints and draws
  holds no English (each one run here);
- the setup cell's tr() translates templates and is the identity in English;
- in the built book, every language switch points at an existing page and no
  Chinese page shows a literal ** (bold next to Chinese characters).
"""
import os
import re
import sys
from pathlib import Path

import nbformat
import polib
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

# Every chapter and page of the book (issue 29: the whole book is translated).
SCOPE = i18n.toc_files()
PUBLISHED = i18n.published_docs()
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))  # BOOK_HTML: a build elsewhere


def source_of(doc):
    return ROOT / (doc + (".ipynb" if doc.startswith("notebooks/") else ".md"))


def catalogs_of(doc):
    src = ROOT / (doc + (".ipynb" if doc.startswith("notebooks/") else ".md"))
    out = [src]
    if src.suffix == ".md":
        out += [src.parent / i for i in re.findall(r"```\{include\}\s+(\S+)", src.read_text())]
    return [i18n.catalog_path(p) for p in out] + ([i18n.LOCALES / "setup.po"] if src.suffix == ".ipynb" else [])


def live_entries(doc):
    for path in catalogs_of(doc):
        for e in polib.pofile(str(path)):
            if not e.obsolete:
                yield path, e


@pytest.mark.parametrize("doc", SCOPE)
def test_scope_is_translated_and_published(doc):
    done = i18n.translations(i18n.catalog_path(source_of(doc)))
    missing = [u for u in i18n.wanted_units(source_of(doc)) if u not in done]
    assert not missing, (f"{doc}: {len(missing)} messages untranslated or fuzzy, e.g. "
                         f"{[m[1][:60] for m in missing[:3]]}; run `make translations`")
    assert doc in PUBLISHED, f"{doc} is not published in the Chinese edition (is setup.po complete?)"


def test_every_chapter_and_page_is_in_the_chinese_edition():
    """zh/_toc.yml (as built) and a fresh build both list every document of _toc.yml."""
    assert len(SCOPE) >= 17 and SCOPE[0] == i18n.toc()["root"]
    unpublished = [d for d in SCOPE if d not in PUBLISHED]
    assert not unpublished, f"not in the Chinese edition (a message missing or fuzzy): {unpublished}"

    def listed(toc):
        return [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert listed(i18n.zh_toc(PUBLISHED)) == SCOPE
    built = yaml.safe_load((i18n.OUT / "_toc.yml").read_text())
    assert listed(built) == SCOPE, f"zh/_toc.yml lacks {[d for d in SCOPE if d not in listed(built)]}: " \
        "run `python tools/i18n.py build`"
    for doc in SCOPE:
        assert (i18n.OUT / source_of(doc).relative_to(ROOT)).exists(), f"zh/ has no {doc}"


def test_published_messages_are_well_formed():
    """Same roles and targets, $ count, directives and labels as the English; no bold
    that CommonMark would show as ** (see i18n.check_entry)."""
    assert i18n.check() == []


def test_zh_is_a_fresh_build():
    files = i18n.generated()
    on_disk = {str(p.relative_to(i18n.OUT)) for p in i18n.OUT.rglob("*") if p.is_file()
               and "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts}
    assert on_disk == set(files), "zh/ is out of date: run `python tools/i18n.py build`"
    stale = [rel for rel, text in files.items() if (i18n.OUT / rel).read_text() != text]
    assert not stale, f"zh/ is out of date ({stale[:3]}): run `python tools/i18n.py build`"


@pytest.mark.parametrize("doc", [d for d in PUBLISHED if d.startswith("notebooks/")])
def test_chinese_notebooks_run_the_english_code(doc):
    en = nbformat.read(ROOT / (doc + ".ipynb"), as_version=4)
    zh = nbformat.read(i18n.OUT / (doc + ".ipynb"), as_version=4)
    lang = [c for c in zh.cells if "book-language" in c.metadata.get("tags", [])]
    assert len(lang) == 1 and "remove-cell" in lang[0].metadata["tags"]
    code = [c for c in zh.cells if c.cell_type == "code"]
    assert code[1] is lang[0] and "book-setup" in code[0].metadata.get("tags", []), \
        "the language cell must come right after the setup cell"
    import nbtools
    assert i18n.strip_comments(code[0].source) == i18n.strip_comments(nbtools.setup_source())
    assert lang[0].source.rstrip().endswith("print = use_language(BOOK_LANGUAGE, BOOK_MESSAGES)")
    en_cells = [c for c in en.cells if c.cell_type == "code" if "book-setup" not in c.metadata.get("tags", [])]
    # the same code; only the comments of the cells a reader sees are translated
    assert [i18n.strip_comments(c.source) for c in code[2:]] == [i18n.strip_comments(c.source) for c in en_cells]
    assert [c.source for c in code[2:] if not i18n.reader_code(c)] == \
        [c.source for c in en_cells if not i18n.reader_code(c)]
    assert [c.cell_type for c in zh.cells if c is not lang[0]] == [c.cell_type for c in en.cells]


ENGLISH_WORDS = re.compile(r"[A-Za-z]{3,}(?:[ -][A-Za-z]{2,}){2,}")   # three English words in a row


@pytest.mark.parametrize("doc", [d for d in PUBLISHED if d.startswith("notebooks/")])
def test_chinese_code_comments_are_chinese(doc):
    """Every comment of a code cell the reader sees in the Chinese edition is written in
    Chinese, or is code (an identifier, a shape, commented-out code): no English prose."""
    zh = nbformat.read(i18n.OUT / (doc + ".ipynb"), as_version=4)
    english = []
    for cell in zh.cells:
        if i18n.reader_code(cell):
            for _, _, text in i18n._comments(cell.source):
                if not re.search(r"[\u3400-\u9fff]", text) and ENGLISH_WORDS.search(text):
                    english.append(text)
    assert not english, f"{len(english)} English comments, e.g. {english[:3]}"


def test_comment_helpers_keep_the_code():
    src = "x = 1  # the first\n!pip install numpy\ny = '#not a comment'  # second: Q K^T\n"
    assert i18n.code_comments(src) == ["the first", "second: Q K^T"]
    zh = i18n.translate_comments(src, {"the first": "第一个", "second: Q K^T": "第二个：Q K^T"})
    assert zh == "x = 1  # 第一个\n!pip install numpy\ny = '#not a comment'  # 第二个：Q K^T\n"
    assert i18n.strip_comments(zh) == i18n.strip_comments(src) == "x = 1\n!pip install numpy\ny = '#not a comment'\n"


# --- one Chinese name per term
SCORE_VARIANTS = re.compile(r"得分|打分|评分(?!函数)")   # score is 分数 (评分函数 = scoring function)
SCORE_NOUN = re.compile(r"(?<!would )(?<!will )(?<!to )\bscores?\b", re.I)  # not the verb "would score"


def prose(text):
    """Text a reader reads: no code, math, URLs, HTML tags, role targets or glue keys."""
    t = re.sub(r"```.*?```", " ", text, flags=re.S)
    t = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", t, flags=re.S)
    t = re.sub(r"\{glue:?\w*\}`[^`]*`|\{cite\w*\}`[^`]*`", " ", t)
    t = re.sub(r"\{\w+\}`([^`<]*)<[^`]*>`", r"\1", t)
    t = re.sub(r"\{\w+\}`([^`]*)`", r"\1", t)
    t = re.sub(r"`[^`]*`|<[^>]+>|https?://\S+|\{[^{}]*\}|\]\([^)]*\)", " ", t)
    return t


def test_one_chinese_name_per_term():
    """score 分数 (never 得分/打分/评分), weight 权重: a message that says score in English
    says 分数 in Chinese, and 分数 appears only where the English says score."""
    bad = []
    for doc in PUBLISHED:
        for path, e in live_entries(doc):
            if not e.msgstr or e.msgctxt in ("prompt",) or e.msgid in DATA_MESSAGES:
                continue   # (data the model reads stays English)
            en, zh = e.msgid, prose(e.msgstr)
            if e.msgctxt == "code":  # a template's fields are code: {scores.std():.1f}
                en = re.sub(r"\{[^{}]*\}", " ", en)
            where = f"{path.name} [{e.msgctxt}] {en[:50]!r}"
            if SCORE_VARIANTS.search(zh):
                bad.append(f"{where}: {SCORE_VARIANTS.search(zh).group()} for score (use 分数)")
            if SCORE_NOUN.search(en) and "分数" not in e.msgstr:
                bad.append(f"{where}: says score, translation lacks 分数")
            if re.search(r"\btiles?\b", en, re.I):  # 分数块 is the tile of the score matrix (ch. 11)
                zh = zh.replace("分数块", "块")
            if "分数" in zh and not re.search(r"\bscor", en, re.I):
                bad.append(f"{where}: 分数 where the English has no score")
            if re.search(r"\battention weights?\b", en, re.I) and "权重" not in e.msgstr:
                bad.append(f"{where}: says attention weight, translation lacks 权重")
    assert not bad, "\n".join(bad[:20])



# --- one concept, one word (issue 26): the rejected variant -> the word the book uses
REJECTED = {
    r"(?<![A-Za-z])nats?(?![A-Za-z])": "奈特 (not nat)",
    r"对数\s*[–-]\s*对数": "双对数 (not 对数–对数)",
    r"QK\s*[-–]?\s*归一化": "查询-键归一化 (not QK 归一化)",
    r"隐藏状态": "隐状态 (not 隐藏状态)",
    r"遮蔽|掩盖|遮住": "掩码 (not 遮蔽/掩盖/遮住)",
    r"(?<![A-Za-z])(?<!Jupyter )[Nn]otebooks?(?![A-Za-z])": "笔记本 (not notebook)",
    r"批(?![量评注判准])": "批量 for batch (not 批)",
    r"(?<!猫)毛(?![病笔巾])": "猫毛 (not 毛 alone)",
    r"文章": "原文 for the article the book follows (not 文章/那篇文章)",
    r"像[^。；，\n]{0,40}?(?:一样|那样)(?:增长|下降|增大|减小|变大|变小)":
        "与…成正比 / 按…增长 (not the calque 像…那样增长)",
    r"涵盖：|检查你的理解": "the chapter boilerplate 本章内容：/检验你的理解",
    r"汇聚": "注意力汇点 for attention sink (d2l-zh's 注意力汇聚 is attention pooling)",
    r"代码单元(?!格)": "代码单元格 (not 代码单元)",
    # issue 38: secondary terms, one rendering each (d2l-zh's where it has one)
    r"面板|小图(?!像)|第\s*\S{1,8}\s*幅(?!图)": "子图 for a panel of a figure (not 面板/小图/第 k 幅)",
    r"离散度|分布的宽度": "离散程度 for spread (not 离散度/宽度)",
    r"词向量": "词嵌入 for embedding (not 词向量)",
    r"编码器–解码器|查询–键": "编码器-解码器, 查询-键 with a hyphen, as d2l-zh (not the en dash)",
    r"查询(?:向量)?和键(?:向量)?的长度|长度(?:为)?\s*\$d": "维度 for the size of a vector such as d_k (长度 is its norm, chapter 2)",
}
# a page another issue is rewriting (issue 37: book/how-to-use.md), whose new text follows
# the rule when it lands: the pattern is checked everywhere else meanwhile
PENDING = {}   # pattern -> catalogs not yet held to it (none now)
# an English word -> the Chinese word its translation must hold
REQUIRED = {r"\bitems?\b": "条目"}
WORD_CHOICES = "chinese-word-choices"   # the glossary's table of these choices quotes the English


def test_one_chinese_word_per_concept():
    """nat 奈特, log–log 双对数, QK-norm 查询-键归一化, hidden state 隐状态, mask 掩码,
    notebook 笔记本, batch 批量, fur 猫毛, the article 原文, attention sink 注意力汇点, code cell
    代码单元格, no "像 X 那样增长" calque; panel 子图, spread 离散程度, item 条目, embedding 词嵌入,
    a vector's size 维度, 编码器-解码器 and 查询-键 with a hyphen;
    a glossary headword is left to tests/glossary_key.yml."""
    bad = []
    for doc in PUBLISHED:
        for path, e in live_entries(doc):
            if not e.msgstr or e.msgctxt in ("prompt",) or (e.msgctxt or "").startswith(WORD_CHOICES):
                continue
            zh = e.msgstr
            if (e.msgctxt or "").startswith("term: "):
                zh = zh.split("\n", 1)[1] if "\n" in zh else ""
            if e.msgctxt == "code":
                zh = re.sub(r"\{[^{}]*\}", " ", zh)
            zh = prose(zh)
            for pattern, use in REJECTED.items():
                if path.name in PENDING.get(pattern, ()):
                    continue
                m = re.search(pattern, zh)
                if m:
                    bad.append(f"{path.name} [{e.msgctxt}] …{zh[max(0, m.start() - 15):m.end() + 15]!r}…: use {use}")
            for pattern, word in REQUIRED.items():
                if re.search(pattern, e.msgid, flags=re.I) and word not in zh and e.msgid not in DATA_MESSAGES:
                    bad.append(f"{path.name} [{e.msgctxt}] {e.msgid[:50]!r}: says {pattern}, translation lacks {word}")
    assert not bad, "\n".join(bad[:30])


def test_the_word_choices_are_listed_in_the_glossary():
    text = "\n".join(e.msgstr for e in polib.pofile(str(i18n.LOCALES / "book" / "glossary.po"))
                     if not e.obsolete)
    for word in ["奈特", "双对数", "隐状态", "批量", "笔记本", "分数块", "原文", "查询-键归一化", "掩码",
                 "子图", "离散程度", "条目", "词嵌入", "维度", "编码器-解码器", "分词器"]:
        assert word in text, f"the glossary does not list {word}"


BOILERPLATE = {"## Summary": "## 小结", "## Exercises · 练习": "## 练习",
               "## Check your understanding": "## 检验你的理解",
               "By the end of this chapter you will be able to": "学完本章，你将能够：",
               "*Covers:*": "*本章内容：*"}


def test_chapter_boilerplate_is_worded_alike_in_every_chapter():
    bad = []
    for doc in [d for d in PUBLISHED if d.startswith("notebooks/")]:
        for path, e in live_entries(doc):
            if e.msgctxt == "code" or not e.msgstr:
                continue
            for en, zh in BOILERPLATE.items():
                if en in e.msgid and e.msgid.count(en) != e.msgstr.count(zh):
                    bad.append(f"{path.name} [{e.msgctxt}]: {en!r} is {zh!r} in every chapter")
    assert not bad, "\n".join(bad)


def test_the_setup_cell_is_introduced_alike_in_every_chapter():
    """The sentence before every chapter's setup cell: one wording (issue 38)."""
    bad = []
    for doc in [d for d in PUBLISHED if d.startswith("notebooks/")]:
        for path, e in live_entries(doc):
            if not e.msgid.startswith("The first code cell is the"):
                continue
            if not e.msgstr.startswith("第一个代码单元格负责本书的设置") or "每一章都从它开始" not in e.msgstr:
                bad.append(f"{path.name}: {e.msgstr[:60]!r}: 第一个代码单元格负责本书的设置（…），每一章都从它开始。")
            if "plain Python number" in e.msgid and "算成普通的 Python 数" not in e.msgstr:
                bad.append(f"{path.name}: {e.msgstr[:60]!r}: 把 √d_k 算成普通的 Python 数")
    assert not bad, "\n".join(bad)


def test_quiz_explanations_do_not_repeat_the_mark():
    """The setup cell prints ✓ 对。 / ✗ 不太对。 before a quiz explanation, so no code
    message starts with 对/没错/不对/错 (that would read ✓ 对。对：…)."""
    bad = []
    for doc in [d for d in PUBLISHED if d.startswith("notebooks/")]:
        for path, e in live_entries(doc):
            if e.msgctxt == "code" and re.match(r"\s*(?:没错|不对|是的|对[：:，,。！]|错[：:，,。！])", e.msgstr):
                bad.append(f"{path.name}: {e.msgstr[:40]!r}")
    assert not bad, "\n".join(bad)


def test_front_matter_names_the_article_and_has_a_natural_title():
    titles = [e.msgstr for e in polib.pofile(str(i18n.LOCALES / "_toc.po"))
              if e.msgctxt == "title" and not e.obsolete]
    assert titles and titles[0] and "，一步一步" not in titles[0], f"title {titles} is a calque"
    preface = {e.msgid: e.msgstr for e in polib.pofile(str(i18n.LOCALES / "book" / "preface.po"))
               if not e.obsolete}
    assert preface["# Attention, step by step · 注意力机制"] == "# " + titles[0]
    article = "Transformer——自注意力机制 Self-Attention"
    en = (ROOT / "book" / "preface.md").read_text()
    assert "Transformer——自注意力机制" in en and "{cite}`selfattention_article_zh`" in en
    zh = "\n".join(preface.values())
    assert f"《{article}》" in zh and "{cite}`selfattention_article_zh`" in zh
    bib = (ROOT / "book" / "references.bib").read_text()
    assert re.search(r"@misc\{selfattention_article_zh,\s*title\s*=\s*\{" + article + r"\}", bib)
    assert "自注意力（self-attention）" in zh, "the preface states the convention the book follows"


def test_glossary_has_chinese_headwords_and_english_beside_them():
    terms = i18n.glossary_map()
    assert len(terms) > 50
    for en, zh in terms.items():
        han, latin = zh.split(" · ", 1)
        assert re.search(r"[\u4e00-\u9fff]", han), f"{zh}: Chinese first"
        assert en.split(" · ")[0].split(" (")[0].lower() in latin.lower(), f"{zh}: English beside it"
    assert terms["attention score · 注意力分数"].startswith("注意力分数")
    assert terms["attention weight · 注意力权重"].startswith("注意力权重")


# --- mostly Chinese
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"[A-Za-z]{2,}(?:[-'][A-Za-z]+)*")


@pytest.mark.parametrize("doc", PUBLISHED)
def test_published_page_is_mostly_chinese(doc):
    """Chinese characters against Latin words (code, math, identifiers excluded) ≥ 80%."""
    chars = words = 0
    for _, e in live_entries(doc):
        if e.msgctxt in ("prompt", "cell"):
            continue
        text = prose(e.msgstr)
        chars += len(CJK.findall(text))
        words += len([w for w in WORD.findall(text) if "_" not in w])
    share = chars / max(chars + words, 1)
    assert share >= 0.8, f"{doc}: {share:.0%} Chinese ({chars} characters, {words} Latin words)"


# --- the translator of the setup cell
def make_tr(messages):
    ns = i18n.setup_functions()
    ns["BOOK_MESSAGES"] = messages
    return ns["tr"]


def test_tr_is_the_identity_in_english():
    tr = make_tr({})
    assert tr("weight on cat patches: 0.52") == "weight on cat patches: 0.52"


def test_tr_fills_templates_reorders_fields_and_translates_chosen_words():
    tr = make_tr({"weight on cat patches: {a[cat].sum():.2f}": "猫图像块上的权重：{a[cat].sum():.2f}",
                  "{n} of {m} patches": "{m} 个图像块中的 {n} 个",
                  "Your guess was {'right' if ok else 'wrong'}.": "你的猜测{'right' if ok else 'wrong'}。",
                  "right": "对了", "weight": "权重", "a {{literal}} brace": "一个 {{literal}} 括号"})
    assert tr("weight") == "权重"
    assert tr("weight on cat patches: 0.52") == "猫图像块上的权重：0.52"
    assert tr("3 of 64 patches") == "64 个图像块中的 3 个"
    assert tr("Your guess was right.") == "你的猜测对了。"
    assert tr("a {literal} brace") == "一个 {literal} 括号"
    assert tr("not a message") == "not a message"
    assert tr(3.5) == 3.5


def test_extract_keeps_translations_and_marks_changed_english_fuzzy(tmp_path):
    po = tmp_path / "x.po"
    i18n.merge(po, [("a", "Hello", None), ("code", "weight", None)])
    cat = polib.pofile(str(po))
    cat.find("Hello", msgctxt="a").msgstr = "你好"
    cat.find("weight", msgctxt="code").msgstr = "权重"
    cat.save()
    i18n.merge(po, [("a", "Hello there", None)])
    cat = polib.pofile(str(po))
    e = cat.find("Hello there", msgctxt="a")
    assert e.msgstr == "你好" and "fuzzy" in e.flags and e.previous_msgid == "Hello"
    assert [x.msgid for x in cat.obsolete_entries()] == ["weight"]
    i18n.merge(po, [("a", "Hello there", None), ("code", "weight", None)])
    assert polib.pofile(str(po)).find("weight", msgctxt="code").msgstr == "权重"  # came back


def test_code_texts_are_found_in_the_calls_that_show_them():
    src = '''ax.set_title(f"weights over {n} patches")
fig.colorbar(im, label="weight")
print("image shape:", img.shape)
NAMES.index("sun")
quiz("Q?", ["a one", "b two"], 0, ["because", "because not"])'''
    found = i18n.code_texts(src)
    assert "weights over {n} patches" in found and "weight" in found and "image shape:" in found
    assert "sun" not in found and "Q?" not in found  # no word of two letters: not prose
    assert "a one" in found and "because not" in found


def test_code_texts_kept_in_variables_are_found_and_settings_are_not():
    src = '''"""A docstring, not shown to the reader."""
NAMES = [N_("dot"), "scaled dot"]
yes = {True: N_("yes"), False: N_("no")}
VARIANTS = {"residual only": 1, "post-norm": 2}
print("train:", x, N_(" e.g."), y)
show(ax, A, f"sentence {b}: length {lengths[b]}", cmap="viridis", loc="upper right")
label = f"self-attention, {name}"
words = "the cat sat on the mat".split()
glue("ch99_some key", "a phrase glued")
print(np.einsum("ij, jk -> ik", A, B), re.sub("a b", "", t), table.get(2.4, "KeyError: no such key"))
raise ValueError(f"mask of shape {m.shape} does not broadcast")
assert ok, "an assertion message"'''
    found = i18n.code_texts(src)
    for text in ["dot", "scaled dot", "yes", "no", "residual only", " e.g.", "sentence {b}: length {lengths[b]}",
                 "self-attention, {name}", "a phrase glued", "KeyError: no such key",
                 "mask of shape {m.shape} does not broadcast"]:
        assert text in found, text
    for text in ["A docstring, not shown to the reader.", "post-norm", "viridis", "upper right",
                 "the cat sat on the mat", "ch99_some key", "ij, jk -> ik", "a b", "an assertion message"]:
        assert text not in found, text


# --- no English left in what a Chinese notebook prints and draws
# Runs of >= 3 English words in every printed line and figure text of a zh
# notebook, run in this process (tools/zh_english.py), every chapter. English
# that is the chapter's data may stay: the toy language's English sentences
# (chapter 3), the example sentence's words (chapter 6).
DATA_WORDS = {"notebooks/03_qkv_translation": "TGT", "notebooks/06_positions_and_heads": "words",
              "notebooks/14_generation": "TGT",
              # chapter 15: its prompts, their answers, and the continuations it samples (the model writes English)
              "notebooks/15_real_model": ("The capital of France is Paris Once upon a time there was a little".split(),
                                          "samples")}   # the translation data: English words by design
ENGLISH_SCOPE = [d for d in SCOPE if d.startswith("notebooks/")]
DATA_MESSAGES = {"the cat sat on the mat", "it was tired", "the mat sat on the cat",  # example sentences
                 # chapter 15's prompts: the real model reads English (its text says so), so they stay English
                 "The capital of France is", "Once upon a time, there was a little",
                 "Attention lets a model decide, for every word it reads, which of the other words matter most. "
                 "A translator uses it to find the source words that the next target word depends on; a language "
                 "model uses it to look back over everything written so far before it writes the next word, one "
                 "word at a time.",
                 # the chat template's default system turn, the template and the question it asks
                 "You are a helpful AI assistant named SmolLM, trained by Hugging Face",
                 "<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n"
                 "<|im_start|>assistant\n",
                 "What is the capital of France?",
                 # exercise 15.3's longer text, the paragraph continued (the model reads it)
                 ' To do so, each word is given a query, a key and a value. The query of the word being read is compared with the key of every word before it, and the scores are turned into weights that sum to one; the output is the weighted sum of the values. Nothing in this rule prefers near words to far ones: the weights alone decide where the model looks. The price is that a model which writes a long text must keep the keys and values of everything it has written, and compare each new word with all of them, so every word costs more than the one before. A model that reads a stream without end cannot keep them all. It has to forget the oldest words, and the simplest way is a window: keep the keys of the last few hundred words and drop the rest. That keeps the cost of each new word fixed, however long the stream grows, but a word that leaves the window is gone for good.'}


def test_no_code_message_is_translated_by_english():
    """A code message (what a chapter prints, draws, asks or answers) whose translation
    holds a run of 3 English words that its English does not: a translation left in
    English, or pasted from another message. Fast; the run below sees it too."""
    import zh_english
    bad = []
    for doc in ENGLISH_SCOPE:
        for path, e in live_entries(doc):
            if e.msgctxt != "code" or not e.msgstr:
                continue
            zh = re.sub(r"\{[^{}]*\}", " ", e.msgstr)             # template fields are code
            en = re.sub(r"\{[^{}]*\}", " ", e.msgid)
            kept = {w.lower() for run in zh_english.english_runs(en) for w in run.split()}
            left = [run for run in zh_english.english_runs(zh) if not {w.lower() for w in run.split()} <= kept]
            if e.msgstr == e.msgid and zh_english.english_runs(en) and e.msgid not in DATA_MESSAGES or left:
                bad.append(f"{path.name}: {e.msgid[:60]!r} -> {e.msgstr[:60]!r}")
    assert not bad, "translations in English:\n" + "\n".join(sorted(set(bad)))


@pytest.mark.parametrize("doc", ENGLISH_SCOPE)
def test_chinese_notebook_prints_and_draws_no_english(doc):
    import zh_english
    assert doc in PUBLISHED, f"{doc} is not in the Chinese edition"
    lines, texts, errors, ns = zh_english.run_notebook(i18n.OUT / (doc + ".ipynb"), namespace=True)
    assert not errors, errors
    words = DATA_WORDS.get(doc, "")
    if isinstance(words, tuple):     # fixed words, and the words of texts the chapter generated
        fixed, generated = words
        words = fixed + [w for _, text in ns.get(generated, []) for run in zh_english.english_runs(text, 1)
                         for w in run.split()]
    data = {w.lower() for w in (words if isinstance(words, list) else ns.get(words, []))}
    left = [(run, s) for s in set(lines) | set(texts) for run in zh_english.english_runs(s)
            if not {w.lower() for w in run.split()} <= data]
    assert not left, "\n".join(f"{run!r} in {s!r}" for run, s in sorted(left))
    # issue 38: what the reader sees uses the Chinese edition's punctuation (attention_book.i18n.typeset)
    import zh_style
    half = sorted({bit for s in set(lines) | set(texts) for bit in zh_style.half_width_faults(s)})
    assert not half, "half-width punctuation beside Chinese or in a parameter list:\n" + "\n".join(map(repr, half))


def test_emphasis_next_to_chinese_is_caught():
    assert i18n.bad_emphasis("比较四种**{term}`x <y>`**（分数）")
    assert not i18n.bad_emphasis("比较四种 **{term}`x <y>`**（分数）")
    assert not i18n.bad_emphasis("中文 **粗体** 中文，**注意力**（attention）")


# --- the built book (after `make book`)
def test_alt_text_of_plain_figures_is_translated_part_by_part():
    msgs = {"panel {k}, {kind}": "第 {k} 幅，{kind}", "heat map": "热图", "picture": "图片",
            "x: {clean(ax.get_xlabel())}": "横轴：{clean(ax.get_xlabel())}", "1. scores q·k": "1. 分数 q·k",
            "the picture": "图片", "x (pixels)": "x（像素）"}
    assert i18n.translate_alt("panel 1, picture: the picture. panel 2, heat map: 1. scores q·k; x: x (pixels).",
                              msgs) == "第 1 幅，图片：图片。第 2 幅，热图：1. 分数 q·k；横轴：x（像素）。"
    # a title holding "; " is translated whole; an axis label is not taken for another "{a}: {b}" template
    msgs |= {"line plot": "折线图", "dilution (n = {n}; fitted)": "稀释（n = {n}；拟合）",
             "{label}: std {s:.1f}": "{label}：标准差 {s:.1f}", "std σ of q": "q 的标准差 σ"}
    assert i18n.translate_alt("Line plot: dilution (n = 8; fitted); x: std σ of q.", msgs) == \
        "折线图：稀释（n = 8；拟合）；横轴：q 的标准差 σ。"


@pytest.mark.parametrize("doc", [d for d in PUBLISHED if d.startswith("notebooks/")])
def test_alt_text_in_chinese_notebooks_has_no_english_left(doc):
    """The alt text of every plain figure of a Chinese notebook, as generated in zh/:
    no run of three English words, no untranslated "x:" or "y:"."""
    nb = nbformat.read(ROOT / "zh" / f"{doc}.ipynb", as_version=4)
    for cell in nb.cells:
        alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "")
        english = re.search(r"[A-Za-z]{2,}[ ,']+[A-Za-z]{2,}[ ,']+[A-Za-z]{2,}", alt)
        assert not english and not re.search(r"(^|[。；：])[xy]：", alt), f"{doc}: {alt}"
def test_tr_translates_padded_names_and_messages_inside_fields():
    tr = make_tr({"{case:15s} -> ValueError: {err}": "{case:15s} -> ValueError：{err}",
                  "d_k differs": "d_k 不同", "with warm-up": "有预热",
                  "there must be at least one key: K has shape {K.shape}": "至少要有一个键：K 的形状是 {K.shape}"})
    assert tr("  with warm-up     ") == "  有预热" + " " * 11   # the same 19 columns on screen
    assert tr("d_k differs     -> ValueError: there must be at least one key: K has shape (0, 3)") == \
        "d_k 不同     -> ValueError：至少要有一个键：K 的形状是 (0, 3)"


def test_words_in_formulas_are_chinese_only_inside_text():
    """A formula's words may be Chinese as \\text{…} (the Chinese edition's MathJax draws them in
    the page's font, the book's own); bare Chinese in math would be drawn without it."""
    entry = lambda zh: polib.POEntry(msgctxt="c", msgid=r"loss $-\log P(\text{correct word})$",  # noqa: E731
                                     msgstr=zh)
    assert not i18n.check_entry(entry(r"损失 $-\log P(\text{正确词})$"))
    assert any("inside math" in err for err in i18n.check_entry(entry(r"损失 $-\log P(正确词)$")))
    import book_config
    zh = book_config.zh_config(yaml.safe_load((ROOT / "_config.yml").read_text()))
    assert zh["sphinx"]["config"]["mathjax3_config"]["chtml"]["mtextInheritFont"] is True
    assert zh["sphinx"]["config"]["togglebutton_hint"] == "点击展开"     # a folded box's hint, made in the page

def test_line_breaks_between_chinese_characters_are_joined():
    """A line break between two Chinese characters shows as a space in Chromium: the build
    joins those lines, and leaves code, math, lists and headings alone."""
    text = "第一行，\n第二行。\n- 列表\n- 项\n\n```python\n# 代码，\n# 注释\n```\n$$\na，\n$$\n尾巴 softmax\n后面"
    assert i18n.join_cjk_lines(text) == ("第一行，第二行。\n- 列表\n- 项\n\n```python\n# 代码，\n# 注释\n```\n"
                                         "$$\na，\n$$\n尾巴 softmax\n后面")
    for path in sorted((ROOT / "zh" / "notebooks").glob("*.ipynb")):   # as generated: nothing left to join
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                assert i18n.join_cjk_lines(cell.source) == cell.source, f"{path.name}: {cell.source[:80]!r}"


def test_printed_tables_line_up_by_width_on_screen():
    """A Chinese word takes two columns: a translated name pads to its width on screen
    (f"{tr(name):12s}", a padded name printed, a table line translated cell by cell)."""
    ns = i18n.setup_functions()
    ns["BOOK_MESSAGES"] = {"post-norm": "后置归一化", "recurrent": "循环层", "attention, d_k = 4": "注意力，d_k = 4"}
    tr, width = ns["tr"], ns["_width"]
    assert f"{tr('post-norm'):12s}|" == "后置归一化  |" and f"{tr('post-norm'):>12}|" == "  后置归一化|"
    assert tr("post-norm    ") == "后置归一化   "    # padded to the same 13 columns
    line = "recurrent                 16,777,216 | attention, d_k = 4  | 100"
    out = ns["_tr_table"](line)
    assert out.startswith("循环层") and width(out.split("16,777,216")[0]) == len("recurrent                 ")
    assert width(out.split(" | ")[1] + " | ") == len("attention, d_k = 4  | ")
    # a message ending in a field does not swallow a table row's other columns
    ns["BOOK_MESSAGES"] = {"convolution, k = {k}": "卷积，k = {k}", "weights: {a}": "权重：{a}"}
    ns["_tr_compiled"].clear()
    assert tr("convolution, k = 3") == "卷积，k = 3"
    assert ns["_tr_table"]("convolution, k = 3        786,432") == "卷积，k = 3" + " " * 15 + "786,432"   # 11 + 15 = 18 + 8 columns
    assert tr("weights: [ 1.   0.5  0.25]") == "权重：[ 1.   0.5  0.25]"
    assert ns["_tr_table"]("a|b  c | d") == "a|b  c | d"        # nothing translated: nothing moved
