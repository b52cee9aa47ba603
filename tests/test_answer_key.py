"""Every quiz marks the right answer: the one in the reviewed key tests/answer_key.yml,
in English and in the Chinese edition.

The key lists, per chapter and in order, each question with its right option, in
English and in Chinese (as the Chinese edition shows it: the setup cell's tr() with
the BOOK_MESSAGES of zh/notebooks/NN_*.ipynb, made from locales/zh_CN). A quiz whose
`correct` index moved to another option, a question missing from the key (or a key
entry whose question is gone), or a Chinese question or answer that no longer
says what the key says, fails here.
"""
import ast
import re
import sys

import nbformat
import pytest
import yaml

from conftest import NOTEBOOKS, ROOT, calls, code_cells, read

sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

KEY = yaml.safe_load((ROOT / "tests" / "answer_key.yml").read_text(encoding="utf-8"))


def quizzes(path):
    """(question, options, index of the right option) of every quiz(...) in a chapter, in order."""
    found = []
    for cell in code_cells(read(path)):
        for call in calls(cell.source, "quiz"):
            args = {name: node for name, node in zip(["question", "options", "correct", "explanations"], call.args)}
            args |= {k.arg: k.value for k in call.keywords}
            found.append((ast.literal_eval(args["question"]), ast.literal_eval(args["options"]),
                          ast.literal_eval(args["correct"])))
    return found


def test_the_key_covers_exactly_the_chapters():
    assert list(KEY) == [p.stem for p in NOTEBOOKS], "answer_key.yml: one entry per chapter, in order"
    assert sum(len(v) for v in KEY.values()) >= 24


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_quiz_marks_the_answer_of_the_reviewed_key(path):
    asked = quizzes(path)
    key = KEY.get(path.stem) or []
    in_key = [k["question"] for k in key]
    questions = [q for q, _, _ in asked]
    assert not set(questions) - set(in_key), \
        f"{path.name}: questions not in tests/answer_key.yml (review their answers, add them): " \
        f"{sorted(set(questions) - set(in_key))}"
    assert not set(in_key) - set(questions), \
        f"{path.name}: answer_key.yml lists questions the chapter no longer asks: {sorted(set(in_key) - set(questions))}"
    assert questions == in_key, f"{path.name}: the key's questions are in another order than the chapter's"
    for (question, options, right), entry in zip(asked, key):
        assert len(set(options)) == len(options), f"{path.name}: two options alike in {question!r}"
        assert entry["answer"] in options, \
            f"{path.name}: the key's answer {entry['answer']!r} is no longer an option of {question!r}: {options}"
        assert isinstance(right, int) and 0 <= right < len(options), f"{path.name}: correct={right!r}"
        assert options[right] == entry["answer"], (
            f"{path.name}: {question!r} marks option {right} {options[right]!r} as right; "
            f"the reviewed key says {entry['answer']!r} (option {options.index(entry['answer'])})")


def chinese_tr(path):
    """The setup cell's tr() with the BOOK_MESSAGES of the chapter's Chinese notebook."""
    zh = i18n.OUT / "notebooks" / path.name
    assert zh.exists(), f"{path.name} is not in the Chinese edition (zh/notebooks/)"
    cells = [c for c in nbformat.read(zh, as_version=4).cells if "book-language" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"zh/notebooks/{path.name}: no language cell"
    tree = ast.parse(cells[0].source)
    messages = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                    and getattr(node.targets[0], "id", None) == "BOOK_MESSAGES")
    ns = i18n.setup_functions()
    ns["BOOK_MESSAGES"] = messages
    return ns["tr"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_chinese_edition_asks_and_answers_as_the_key_says(path):
    tr = chinese_tr(path)
    for (question, options, right), entry in zip(quizzes(path), KEY.get(path.stem) or []):
        shown = [tr(o) for o in options]
        assert tr(question) == entry["question_zh"], \
            f"{path.name}: the Chinese edition asks {tr(question)!r}; the key: {entry['question_zh']!r}"
        assert shown[right] == entry["answer_zh"], (
            f"{path.name}: for {entry['question_zh']!r} the Chinese edition marks {shown[right]!r} as right; "
            f"the key: {entry['answer_zh']!r}")
        assert shown.count(entry["answer_zh"]) == 1, f"{path.name}: Chinese options alike: {shown}"
        assert all(s != o for s, o in zip(shown, options) if re.search("[A-Za-z]{3,}", o)), \
            f"{path.name}: an option of {entry['question_zh']!r} is shown in English: {shown}"
