"""Each chapter is a lesson: objectives, ≥3 checked exercises with hidden
solutions, a quiz, a summary and a link onward; every exercise check accepts
its solution and rejects a wrong answer."""
import contextlib
import io
import re

import numpy as np
import pytest

from conftest import NOTEBOOKS, calls, code_cells, read
from nbload import namespace


def tags(cell):
    return set(cell.metadata.get("tags", []))


def exercises(nb):
    """(prompt, answer, check, solution) cells of every exercise, in order."""
    found = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and "```{exercise}" in cell.source:
            found.append(cells[i:i + 4])
    return found


def test_objectives_summary_and_next(notebook):
    path, nb = notebook
    first = nb.cells[0].source
    assert first.startswith("# "), f"{path.name}: the first cell is not the title"
    assert "By the end of this chapter you will be able to" in first, f"{path.name}: no objectives"
    assert "*Covers:*" in first, f"{path.name}: does not say what it covers"
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Summary" in text, f"{path.name}: no summary"
    assert "**Next:**" in nb.cells[-1].source or path == NOTEBOOKS[-1], \
        f"{path.name}: the last cell does not point to the next chapter"


def test_at_least_three_exercises_in_the_four_cell_form(notebook):
    path, nb = notebook
    found = exercises(nb)
    assert len(found) >= 3, f"{path.name}: {len(found)} exercises, expected ≥ 3"
    for prompt, answer, check, solution in found:
        label = re.search(r":label: (\S+)", prompt.source)
        assert label, f"{path.name}: exercise without a label:\n{prompt.source[:120]}"
        assert "exercise-answer" in tags(answer), f"{label[1]}: the answer cell must follow the prompt"
        assert "exercise-check" in tags(check), f"{label[1]}: the check cell must follow the answer"
        assert {"solution", "hide-input"} <= tags(solution), f"{label[1]}: the solution must be hidden"
        assert solution.metadata.get("jupyter", {}).get("source_hidden"), \
            f"{label[1]}: the solution must be collapsed in Jupyter too"
        assert any("✗" in o.get("text", "") for o in check.outputs), \
            f"{label[1]}: the stored check of the empty answer should say what is missing"
        assert any("✓ Correct!" in o.get("text", "") for o in solution.outputs), \
            f"{label[1]}: the stored solution does not pass its check"


def test_quiz_questions(notebook):
    path, nb = notebook
    assert any("## Check your understanding" in c.source for c in nb.cells if c.cell_type == "markdown")
    quizzes = [q for c in code_cells(nb) for q in calls(c.source, "quiz")]
    assert len(quizzes) >= 2, f"{path.name}: {len(quizzes)} quiz questions, expected ≥ 2"
    for c in code_cells(nb):
        if calls(c.source, "quiz"):
            assert "nbval-ignore-output" in tags(c)


def corrupt(answer):
    """An obviously wrong version of a correct answer."""
    if callable(answer):
        return lambda *args, **kw: corrupt(answer(*args, **kw))
    if isinstance(answer, (tuple, list)):
        return type(answer)(corrupt(a) for a in answer)
    return 2 * np.asarray(answer) + 1 if np.ndim(answer) else 2 * answer + 1


CASES = [(p.stem, f"{m[0]}_{m[1]}") for p in NOTEBOOKS for c in code_cells(read(p))
         for m in re.findall(r"^check_(\d\d)_(\d+)\(answer_", c.source, re.M)]


@pytest.mark.parametrize("stem,exercise", CASES, ids=[e for _, e in CASES])
def test_solution_passes_and_wrong_answer_fails(stem, exercise):
    ns = namespace(stem)
    check, solution = ns[f"check_{exercise}"], ns[f"solution_{exercise}"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert bool(check(solution)), f"solution_{exercise} fails its own check"
        assert not bool(check(corrupt(solution))), \
            f"check_{exercise} accepts a wrong answer: {out.getvalue()}"
        assert not bool(check(None)), f"check_{exercise} accepts an empty answer"
    assert "✗" in out.getvalue()


def test_every_glossary_term_is_linked_from_its_first_use():
    import sys
    from conftest import ROOT
    sys.path.insert(0, str(ROOT / "tools"))
    import glossary
    uses = glossary.first_uses()
    assert len(uses) >= 70, f"only {len(uses)} glossary terms are used in the book"
    unlinked = {t: f"{p.name}: {text}" for t, (p, text, ok) in uses.items() if not ok}
    assert not unlinked, f"first uses not linked to the glossary (python tools/glossary.py link): {unlinked}"


def test_every_figure_has_alt_text(notebook):
    """Plain figures carry alt text in the cell metadata (python tools/nbtools.py alt);
    slider frames get theirs from describe() when drawn."""
    path, nb = notebook
    for cell in code_cells(nb):
        shows = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "")
        if shows:
            assert len(alt) > 20, f"{path.name}: a figure without alt text: {cell.source[:60]!r}"
