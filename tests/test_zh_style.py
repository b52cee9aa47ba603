"""The Chinese edition's typography over the catalogs (issue 38; the rules are in
CONTRIBUTING.md, "Chinese typography", and tools/zh_style.py):

- spacing by what the reader sees: no space between Chinese characters or beside
  full-width punctuation, whatever markup (bold, italic, a term link) stands there;
- bold and italic next to Chinese parse (the build's cjk_emphasis) and show no *;
- what the code prints and draws uses full-width punctuation between Chinese words,
  and no Chinese text uses straight double quotes;
- no sentence of more than 150 characters.
The built pages are checked too (tests/browser/test_built_editions.py).
"""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402
import zh_style  # noqa: E402
from test_i18n import DATA_MESSAGES, live_entries  # noqa: E402

MARKDOWN = lambda e: e.msgctxt not in ("code", "comment", "prompt", "cell", "title", "caption")  # noqa: E731
PUBLISHED = i18n.published_docs()


def entries(kind):
    seen = set()
    for doc in PUBLISHED:
        for path, e in live_entries(doc):
            if e.msgstr and kind(e) and (path, e.msgctxt, e.msgid) not in seen:
                seen.add((path, e.msgctxt, e.msgid))
                yield path, e


def test_the_spacing_rule_is_what_the_helpers_say():
    fix = zh_style.fix_spaces
    assert fix("这是 **两个** 序列 {cite}`x`。") == "这是**两个**序列 {cite}`x`。"
    assert fix("它从日常生活中的 **{term}`注意力 <a>`**（attention）") == "它从日常生活中的**{term}`注意力 <a>`**（attention）"
    assert fix("- **权重。** 在 numpy 中，用 {term}`softmax <s>` 归一化") == "- **权重。**在 numpy 中，用 {term}`softmax <s>` 归一化"
    assert fix("第 3 章 · 标题 $d_k$ 越大 | 奈特 | nat |") == "第 3 章 · 标题 $d_k$ 越大 | 奈特 | nat |"
    assert fix("步骤—— 计算，  然后 （见下）") == "步骤——计算，然后（见下）"
    # the space after a heading's #, a list or quote marker is Markdown's, not the sentence's
    assert fix("## “like”在看谁？\n\n- “是”吗\n1. （见下）\n> “引”") == "## “like”在看谁？\n\n- “是”吗\n1. （见下）\n> “引”"
    assert [w for _, w in zh_style.missing_spaces("第3章用 softmax，借助{term}`KV 缓存 <k>`")] == [
        "no space between '第' and '3'", "no space between '3' and '章'", "no space between '助' and 'K'"]
    assert zh_style.cjk_emphasis("种**{term}`注意力 <a>`**（x）与**下一章：**第 2 章") == \
        "种<!---->**{term}`注意力 <a>`**（x）与**下一章：**<!---->第 2 章"


def test_no_space_between_chinese_or_beside_full_width_punctuation():
    """None between Chinese characters or beside full-width punctuation; one between Chinese
    and Latin letters, digits, code or math (第 3 章)."""
    bad = [f"{p.name} [{e.msgctxt}] {why}: …{e.msgstr[max(0, s - 12):t + 12]!r}…"
           for p, e in entries(MARKDOWN) for s, t, why in zh_style.space_faults(e.msgstr)]
    bad += [f"{p.name} [{e.msgctxt}] {why}: …{e.msgstr[max(0, at - 12):at + 12]!r}…"
            for p, e in entries(MARKDOWN) for at, why in zh_style.missing_spaces(e.msgstr)]
    assert not bad, f"{len(bad)} spaces against the rule:\n" + "\n".join(bad[:30])


def test_emphasis_next_to_chinese_parses_in_the_built_text():
    """Every Markdown cell and page of zh/ parsed as the book parses it (MyST's markdown-it):
    no * left in the text a reader sees."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser
    md = create_md_parser(MdParserConfig(enable_extensions={"colon_fence", "dollarmath"}), RendererHTML)
    import nbformat
    texts = [(p.name, c.source) for p in sorted((ROOT / "zh" / "notebooks").glob("*.ipynb"))
             for c in nbformat.read(p, as_version=4).cells if c.cell_type == "markdown"]
    texts += [(p.name, p.read_text()) for p in sorted((ROOT / "zh" / "book").glob("*.md"))]
    bad = []
    for name, text in texts:
        for tok in md.parse(text):
            for child in tok.children or []:
                if child.type == "text" and re.search(r"\*\S|\S\*", child.content):
                    bad.append(f"{name}: {child.content[:60]!r}")
    assert len(texts) > 300 and not bad, "\n".join(bad[:20])


def test_printed_and_drawn_text_uses_full_width_punctuation():
    """A comma, colon, semicolon, ? or ! between Chinese words of what the code prints
    or draws is full-width (种子 0：98%，种子 1：92%)."""
    bad = []
    for p, e in entries(lambda e: e.msgctxt == "code"):
        if e.msgid in DATA_MESSAGES:
            continue
        text = re.sub(r"\{[^{}]*\}", "0", e.msgstr)
        bad += [f"{p.name}: …{bit!r}…" for bit in zh_style.half_width_faults(text)]
    assert not bad, f"{len(bad)} half-width marks between Chinese words:\n" + "\n".join(bad)


def test_no_straight_double_quotes_in_chinese_text():
    """Chinese quotes “…” (not 「」); a straight " only inside code (`"sun"`), or in printed text around
    a Python string the reader types (set prediction_01_3 to "更多")."""
    bad = []
    for p, e in entries(lambda e: e.msgctxt != "comment"):
        if e.msgid in DATA_MESSAGES:
            continue
        text = e.msgstr if e.msgctxt == "code" else zh_style.visible_text(
            re.sub(r"`[^`\n]*`", "`x`", e.msgstr))
        if "「" in text or "」" in text:
            bad.append(f"{p.name}: 「」 in {text[:60]!r}: the book quotes with “”")
        for m in re.finditer(r'"[^"\n]*"', text):
            inner = m.group()[1:-1]
            typed = e.msgctxt == "code" and re.search(r"\b[a-z]+_\w+\b", text)   # prediction_01_3 = "更多"
            if not typed and (re.search(f"[{zh_style.CJK}]", inner) or e.msgctxt != "code"):
                bad.append(f"{p.name}: {m.group()!r} in {text[max(0, m.start() - 20):m.end() + 20]!r}")
    assert not bad, "\n".join(bad)


def test_no_sentence_is_longer_than_150_characters():
    bad = [f"{p.name} [{e.msgctxt}] {len(s)}: {s[:70]}…" for p, e in entries(MARKDOWN)
           for s in zh_style.sentences(e.msgstr) if len(s) > 150]
    assert not bad, f"{len(bad)} sentences over 150 characters (split them):\n" + "\n".join(bad)


def test_display_width_counts_chinese_as_two_columns():
    assert zh_style.display_width("留出集译对比例") == 14 and zh_style.display_width("GQA 2") == 5
