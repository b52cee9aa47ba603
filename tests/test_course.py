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


# --- quizzes that cannot be guessed -------------------------------------------
def quiz_questions():
    """(chapter, options, index of the right option) of every quiz question."""
    import ast
    found = []
    for path in NOTEBOOKS:
        for cell in code_cells(read(path)):
            for call in calls(cell.source, "quiz"):
                found.append((path.stem[:2], ast.literal_eval(call.args[1]), ast.literal_eval(call.args[2])))
    return found


def test_quiz_answers_cannot_be_guessed_from_length_or_position():
    questions = quiz_questions()
    assert len(questions) >= 20
    # the right option is the longest about as often as chance would have it: in at
    # most a third of the questions, and not never (then "never the longest" gives it away)
    longest = [c for c, opts, right in questions if len(opts[right]) == max(map(len, opts))]
    assert len(questions) / 8 <= len(longest) <= len(questions) / 3, \
        f"the right option is the longest in {len(longest)} of {len(questions)} questions: {longest}"
    positions = [right for _, _, right in questions]
    for p in set(positions):
        assert positions.count(p) <= len(questions) / 2, \
            f"option {p + 1} is right in {positions.count(p)} of {len(questions)} questions"
    for chapter, opts, _ in questions:
        lengths = [len(o) for o in opts]
        assert min(lengths) >= 0.5 * max(lengths), \
            f"chapter {chapter}: options of very different lengths {lengths}: {opts}"


# --- numeric exercises: stated precision, rounded answers accepted ---------------
def numeric_exercises():
    """(chapter stem, exercise id, decimals stated in its prompt or None) for every
    exercise whose solution is a number or an array of numbers that are not all whole."""
    found = []
    for path in NOTEBOOKS:
        for prompt, *_ in exercises(read(path)):
            label = re.search(r":label: ch(\d\d)-ex(\d+)", prompt.source)
            stated = re.search(r"\bto (\d+) decimal places?\b", prompt.source)
            found.append((path.stem, f"{label[1]}_{label[2]}", int(stated[1]) if stated else None))
    return found


@pytest.mark.parametrize("stem,exercise,decimals", numeric_exercises(),
                         ids=[e for _, e, _ in numeric_exercises()])
def test_numeric_exercises_state_their_precision_and_accept_rounded_answers(stem, exercise, decimals):
    ns = namespace(stem)
    check, solution = ns[f"check_{exercise}"], ns[f"solution_{exercise}"]
    if callable(solution) or not np.issubdtype(np.asarray(solution).dtype, np.number) \
            or np.all(np.asarray(solution) == np.round(np.asarray(solution))):
        return                           # code, or whole numbers: exact answers
    assert decimals is not None, f"exercise {exercise}: say 'to N decimal places' in its prompt"
    given = np.round(np.asarray(solution, dtype=float), decimals)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert bool(check(given)), f"check_{exercise} rejects the solution rounded to {decimals} places"
        assert not bool(check(given + 3 * 10.0 ** -decimals)), f"check_{exercise} accepts 3 units off"
    assert "rounding" in out.getvalue(), \
        f"check_{exercise} should say 'rounding' for an answer 3 units off: {out.getvalue()}"


# --- reading flow: the mechanism in view, figure code folded ---------------------
def test_visible_code_cells_are_short_and_figure_code_is_folded(notebook):
    path, nb = notebook
    for cell in code_cells(nb):
        hidden = tags(cell) & {"hide-input", "remove-input", "remove-cell"}
        if "figure-code" in tags(cell):
            assert "hide-input" in tags(cell) and cell.metadata.get("jupyter", {}).get("source_hidden"), \
                f"{path.name}: figure code not folded (run make sync): {cell.source[:60]!r}"
        if not hidden:
            lines = len(cell.source.splitlines())
            assert lines <= 30, f"{path.name}: a visible code cell of {lines} lines: {cell.source[:60]!r}"


# --- code carried over from an earlier chapter stays identical ---------------------
def test_carried_over_code_is_identical_to_the_chapter_it_comes_from(notebook):
    """A cell tagged `carried-over` repeats an earlier chapter's functions so the
    notebook runs alone; each function must be that chapter's, character for character."""
    import ast
    path, nb = notebook
    carried = [c for c in code_cells(nb) if "carried-over" in tags(c)]
    if not carried:
        return
    earlier = {}
    for other in NOTEBOOKS:
        if other == path:
            break
        for cell in code_cells(read(other)):
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef):
                    earlier[node.name] = (other.stem, ast.get_source_segment(cell.source, node))
    for cell in carried:
        assert "hide-input" in tags(cell) and cell.metadata.get("jupyter", {}).get("source_hidden"), \
            f"{path.name}: carried-over code must be folded (run tools/nbtools.py sync)"
        for node in ast.parse(cell.source).body:
            assert isinstance(node, ast.FunctionDef), f"{path.name}: carried-over cells hold functions only"
            assert node.name in earlier, f"{path.name}: {node.name} is not defined in an earlier chapter"
            stem, source = earlier[node.name]
            assert ast.get_source_segment(cell.source, node) == source, \
                f"{path.name}: {node.name} differs from chapter {stem}'s; copy it again"
