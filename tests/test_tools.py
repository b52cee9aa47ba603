"""The project's own text tools on made-up input: the glossary's term matcher
(tools/glossary.py) and the Chinese edition's rule that only finished
translations are used (tools/i18n.py)."""
import sys

import polib

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import glossary  # noqa: E402
import i18n  # noqa: E402


def test_a_glossary_term_is_found_in_the_singular_and_the_plural():
    rx = glossary.pattern(["key", "query"])
    for text in ["one key", "two keys", "a query", "many queries", "Keys first"]:
        assert rx.search(text), f"not found in {text!r}"
    for text in ["keyboard", "monkeys", "key-value", "queryable"]:
        assert not rx.search(text), f"found inside a longer word: {text!r}"


def test_a_term_in_code_or_math_is_not_a_first_use():
    rx = glossary.pattern(["softmax"])
    text = "Call `softmax(S)` on $\\mathrm{softmax}$ scores, then softmax again."
    m = glossary.first_match(rx, text)
    assert m and text[m.start() - 5:m.start()] == "then ", "the first use is the plain word"


def test_only_finished_translations_are_used(tmp_path):
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    po.append(polib.POEntry(msgctxt="a", msgid="done", msgstr="完成"))
    po.append(polib.POEntry(msgctxt="b", msgid="changed", msgstr="旧的", flags=["fuzzy"]))
    po.append(polib.POEntry(msgctxt="c", msgid="new", msgstr=""))
    path = tmp_path / "x.po"
    po.save(str(path))
    assert i18n.translations(path) == {("a", "done"): "完成"}
    assert not i18n.complete(path), "a catalog with a fuzzy or untranslated message is not complete"
    po[1].flags.remove("fuzzy")
    po[2].msgstr = "新的"
    po.save(str(path))
    assert i18n.complete(path) and len(i18n.translations(path)) == 3
