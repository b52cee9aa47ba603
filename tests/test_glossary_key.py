"""The glossary says what the reviewed key tests/glossary_key.yml says, in both editions.

The key maps every English headword of book/glossary.md (English · Chinese) to
the Chinese headword the Chinese edition shows (Chinese · English: the first line
of the term's translation in locales/zh_CN/book/glossary.po, and of the term in
the generated zh/book/glossary.md). A term renamed in either language (自注意力
made 自我注意, say), added, removed or moved fails here until the key is
reviewed and changed with it.
"""
import sys

import polib
import pytest
import yaml

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

KEY = yaml.safe_load((ROOT / "tests" / "glossary_key.yml").read_text(encoding="utf-8"))


def headwords(path):
    """The first line of every term of the ```{glossary} block of a page, in order."""
    return [term.splitlines()[0] for key, kind, text in i18n.page_walk(path) if kind == "glossary"
            for term in i18n.glossary_terms(text)[1]]


def test_the_key_is_well_formed():
    assert len(KEY) >= 80, f"only {len(KEY)} terms in glossary_key.yml"
    for english, chinese in KEY.items():
        en_word, _, zh_word = english.partition(" · ")
        zh_head, _, en_head = chinese.partition(" · ")
        assert zh_word and en_head, f"{english!r} -> {chinese!r}: 'English · 中文' -> '中文 · English' expected"


def test_english_glossary_matches_the_key():
    found = headwords(ROOT / "book" / "glossary.md")
    missing, extra = [k for k in KEY if k not in found], [h for h in found if h not in KEY]
    assert not missing and not extra, \
        f"book/glossary.md differs from tests/glossary_key.yml: not on the page {missing}; not in the key {extra}"
    assert found == list(KEY), "book/glossary.md lists its terms in another order than the key"


def test_chinese_glossary_catalog_matches_the_key():
    po = polib.pofile(str(i18n.LOCALES / "book" / "glossary.po"))
    terms = {e.msgctxt[len("term: "):]: e for e in po
             if not e.obsolete and e.msgctxt and e.msgctxt.startswith("term: ")}
    assert sorted(terms) == sorted(KEY), \
        f"glossary.po terms differ from the key: {sorted(set(terms) ^ set(KEY))}"
    wrong = {}
    for english, chinese in KEY.items():
        e = terms[english]
        shown = e.msgstr.splitlines()[0].strip() if e.msgstr else "(untranslated)"
        if "fuzzy" in e.flags:
            shown += " (fuzzy)"
        if shown != chinese:
            wrong[english] = f"{shown!r}, the key says {chinese!r}"
    assert not wrong, "glossary.po headwords differ from tests/glossary_key.yml:\n" + \
        "\n".join(f"  {k}: {v}" for k, v in wrong.items())


def test_chinese_edition_glossary_page_matches_the_key():
    page = i18n.OUT / "book" / "glossary.md"
    if not page.exists():
        pytest.fail("zh/book/glossary.md is missing: run `python tools/i18n.py build`")
    found = headwords(page)
    assert found == list(KEY.values()), \
        f"zh/book/glossary.md headwords differ from the key: {[h for h in found if h not in KEY.values()]}; " \
        f"missing {[v for v in KEY.values() if v not in found]}"
