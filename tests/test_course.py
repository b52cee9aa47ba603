"""Each chapter is a lesson: objectives, ≥3 checked exercises with hidden
solutions, a quiz, a summary and a link onward; every exercise check accepts
its solution and rejects a wrong answer."""
import ast
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
    """(prompt, answer, check, solution) cells of every exercise, in order. An exercise is
    a prompt, a cell for the answer, the check and a hidden solution; the answer cell may
    end with the check (tagged exercise-answer and exercise-check): then `answer` and
    `check` are that one cell."""
    found = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and "```{exercise}" in cell.source:
            answer = cells[i + 1] if i + 1 < len(cells) else cell
            if "exercise-check" in tags(answer):       # the answer cell ends with its check
                found.append([cell, answer, answer] + cells[i + 2:i + 3])
            else:
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


def test_at_least_three_exercises_with_answer_check_and_hidden_solution(notebook):
    path, nb = notebook
    found = exercises(nb)
    assert len(found) >= 3, f"{path.name}: {len(found)} exercises, expected ≥ 3"
    for prompt, answer, check, solution in found:
        label = re.search(r":label: (\S+)", prompt.source)
        assert label, f"{path.name}: exercise without a label:\n{prompt.source[:120]}"
        assert "exercise-answer" in tags(answer), f"{label[1]}: the answer cell must follow the prompt"
        assert "exercise-check" in tags(check), \
            f"{label[1]}: the check must follow the answer (the next cell, or the answer cell's end)"
        number = label[1].replace("ch", "").replace("-ex", "_")          # ch03-ex1 -> 03_1
        assert re.search(rf"^check_{number}\(answer_{number}\b", check.source, re.M), \
            f"{label[1]}: the check cell does not call check_{number}(answer_{number} ...)"
        if check is answer:                                              # one cell: the check is its last line
            last = ast.parse(answer.source).body[-1]
            assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) \
                and getattr(last.value.func, "id", "") == f"check_{number}", \
                f"{label[1]}: an answer cell tagged exercise-check must end with check_{number}(...)"
        assert {"solution", "hide-input"} <= tags(solution), f"{label[1]}: the solution must be hidden"
        assert solution.metadata.get("jupyter", {}).get("source_hidden"), \
            f"{label[1]}: the solution must be collapsed in Jupyter too"
        assert any("✗" in o.get("text", "") for o in check.outputs), \
            f"{label[1]}: the stored check of the empty answer should say what is missing"
        assert any("✓ Correct!" in o.get("text", "") for o in solution.outputs), \
            f"{label[1]}: the stored solution does not pass its check"


def test_exercise_modules_are_the_chapters_checks():
    """Every module of attention_book/exercises/ is imported by its own chapter, whose
    exercises are checked by the checks it makes (no check defined in a cell as well)."""
    from conftest import ROOT
    modules = sorted((ROOT / "attention_book" / "exercises").glob("ch[0-9][0-9].py"))
    assert modules, "no exercise modules in attention_book/exercises/"
    for module in modules:
        nn = module.stem[2:]
        path = next(p for p in NOTEBOOKS if p.name.startswith(nn + "_"))
        sources = [c.source for c in code_cells(read(path))]
        assert any(f"from attention_book.exercises.ch{nn} import" in s for s in sources), \
            f"{path.name} does not import attention_book/exercises/{module.name}"
        assert not any(re.search(r"^def check_", s, re.M) for s in sources), \
            f"{path.name} imports its checks from the package and defines one in a cell too"


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


@pytest.mark.parametrize("stem,exercise,chinese,english", [
    ("01", "01_3", ["更少", "更多"], ["less", "more"]),
    ("02", "02_3", [("y_i", "均值"), ("y_i", "平均值")], [("y_i", "mean")] * 2),
    ("04", "04_3", ["更多", "更少"], ["more", "less"])])
def test_predictions_typed_in_chinese_count_as_the_english_ones(stem, exercise, chinese, english):
    """The Chinese edition asks for 更多/更少/均值: its predictions are judged as more/less/mean."""
    ns = namespace(stem)
    check, solution = ns[f"check_{exercise}"], ns[f"solution_{exercise}"]
    for zh, en in zip(chinese, english):
        said = {}
        for prediction, key in ((zh, "zh"), (en, "en")):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                said[key] = (bool(check(solution, prediction)), out.getvalue().count("✗"),
                             out.getvalue().count("right"), out.getvalue().count("wrong"))
        assert said["zh"] == said["en"], (zh, said)
        assert "Predict first" not in out.getvalue()


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


def unit_off(given, expected, unit):
    """`given` moved by one unit of the last place, in each direction where that puts it
    more than half a unit from `expected` (so the stated precision tells them apart)."""
    out = []
    for sign in (+1, -1):
        moved = given + sign * unit
        if np.max(np.abs(moved - expected)) > 0.5 * unit * (1 + 1e-6):
            out.append(moved)
    return out


def calls_counted(function):
    """`function`, counting its calls in .calls."""
    def counted(*args, **kwargs):
        counted.calls += 1
        return function(*args, **kwargs)
    counted.calls = 0
    return counted


def slightly_off(value):
    """A result just wrong: floats 0.1 % (and 1e-4) off, whole numbers +1, booleans
    with the first entry flipped; each part of a tuple so."""
    if isinstance(value, tuple):
        return tuple(slightly_off(v) for v in value)
    a = np.asarray(value)
    if a.dtype == bool:
        a = a.copy()
        a.flat[0] = not a.flat[0]
        return a
    if np.issubdtype(a.dtype, np.integer):
        return a + 1
    if np.issubdtype(a.dtype, np.floating):
        return a * 1.001 + 1e-4
    return value


def nudged(function):
    """`function` whose results are slightly off (slightly_off)."""
    def wrong(*args, **kwargs):
        return slightly_off(function(*args, **kwargs))
    return wrong


@pytest.mark.parametrize("stem,exercise,decimals", numeric_exercises(),
                         ids=[e for _, e, _ in numeric_exercises()])
def test_numeric_exercises_state_their_precision_and_accept_rounded_answers(stem, exercise, decimals):
    """Every exercise is checked here, by the kind of its solution:
    - numbers not all whole: the prompt says "to N decimal places"; the solution rounded
      to N places is accepted; one unit off in the last place (either way, where that is
      more than half a unit from the exact value) is rejected, and told to check its
      rounding (at least one way: the other may be a mistake the check names), and so
      is 3 units off;
    - whole numbers (and booleans): the exact answer is accepted, the answer ±1 (a
      flipped entry) is rejected;
    - code: the check calls the function, accepts it, and rejects it when its results
      are slightly off (floats 0.1 % off, whole numbers +1, a boolean flipped)."""
    ns = namespace(stem)
    check, solution = ns[f"check_{exercise}"], ns[f"solution_{exercise}"]
    out = io.StringIO()
    if callable(solution):
        counted = calls_counted(solution)
        with contextlib.redirect_stdout(out):
            assert bool(check(counted)), f"check_{exercise} rejects solution_{exercise}: {out.getvalue()}"
            assert counted.calls >= 1, f"check_{exercise} accepted the code without calling it"
            assert not bool(check(nudged(solution))), \
                f"check_{exercise} accepts a function whose results are slightly off: {out.getvalue()}"
        return
    value = np.asarray(solution)
    assert np.issubdtype(value.dtype, np.number) or value.dtype == bool, \
        f"exercise {exercise}: a solution of type {value.dtype} this test cannot check"
    if value.dtype == bool or np.all(value == np.round(value)):      # whole numbers: exact answers
        wrong = []
        if value.dtype == bool:
            flipped = value.copy()
            flipped.flat[0] = not flipped.flat[0]
            wrong.append(flipped)
        else:
            wrong += [solution + 1, solution - 1]
            if value.ndim:
                one = value.copy()
                one.flat[-1] += 1
                wrong.append(one)
        with contextlib.redirect_stdout(out):
            assert bool(check(solution)), f"check_{exercise} rejects its own exact answer: {out.getvalue()}"
            for w in wrong:
                assert not bool(check(w)), f"check_{exercise} accepts {w!r}, off by one: {out.getvalue()}"
        return
    assert decimals is not None, f"exercise {exercise}: say 'to N decimal places' in its prompt"
    expected = np.asarray(solution, dtype=float)
    unit = 10.0 ** -decimals
    given = np.round(expected, decimals)
    off = unit_off(given, expected, unit)
    assert off, f"exercise {exercise}: no answer one unit off could be told apart (impossible)"
    with contextlib.redirect_stdout(out):
        assert bool(check(given)), f"check_{exercise} rejects the solution rounded to {decimals} places"
    told = []
    for wrong in off:
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            assert not bool(check(wrong)), f"check_{exercise} accepts {wrong!r}, one unit off in the last place"
        told.append(said.getvalue())
    # (one direction may meet a named mistake first: 0.33 for 0.32 is told "1/3 forgets ...")
    assert any("rounding" in t for t in told), \
        f"check_{exercise} should say 'rounding' for an answer one unit off: {told}"
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert not bool(check(given + 3 * unit)), f"check_{exercise} accepts 3 units off"
    assert "rounding" in said.getvalue(), \
        f"check_{exercise} should say 'rounding' for an answer 3 units off: {said.getvalue()}"
    with contextlib.redirect_stdout(out):
        if expected.ndim:                          # one entry off is caught too
            one = given.copy()
            one.flat[-1] += 3 * unit
            assert not bool(check(one)), f"check_{exercise} accepts an answer with one entry 3 units off"


# --- the setup cell's rounded(): the exact boundary ---------------------------
def setup_cell():
    """What the setup cell gives a chapter (the package attention_book), in English."""
    from nbtools import book_namespace
    return book_namespace()


def verdict(rule, answer):
    """(accepted, message) of a feedback rule for one answer."""
    test, message = rule
    ok = bool(test(answer))
    return ok, None if ok else (message(answer) if callable(message) else message)


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 4])
def test_rounded_accepts_half_a_unit_and_rejects_one_unit_off(decimals):
    """An answer within half a unit of the last place is accepted (it rounds to the
    expected value); one unit off (the last digit off by one) is rejected and told to
    check its rounding; far off gets the `otherwise` message."""
    rounded = setup_cell()["rounded"]
    expected = 3.14159265
    unit = 10.0 ** -decimals
    rule = rounded(expected, decimals, otherwise="Not quite.")
    given = round(expected, decimals)
    assert verdict(rule, given) == (True, None)
    assert verdict(rule, np.float32(given))[0] or decimals >= 4     # float32 input: same digits
    for sign in (+1, -1):
        assert verdict(rule, expected + sign * 0.5 * unit)[0], f"half a unit off rejected ({decimals} places)"
        assert verdict(rule, expected + sign * 0.49 * unit)[0]
        assert not verdict(rule, expected + sign * 0.51 * unit)[0], f"0.51 units off accepted ({decimals} places)"
        for answer, what in [(given + sign * unit, "the last digit off by one"),
                             (expected + sign * 0.6 * unit, "0.6 units off"),
                             (expected + sign * 2 * unit, "2 units off"), (expected + sign * 9 * unit, "9 units off")]:
            ok, said = verdict(rule, answer)
            assert not ok, f"{answer!r} for {expected} to {decimals} places: {what}, accepted"
            assert "rounding" in said and f"({decimals} decimal place" in said, said
        ok, said = verdict(rule, expected + sign * 11 * unit)
        assert not ok and said == "Not quite.", said


def test_rounded_checks_every_entry_of_an_array_and_its_shape():
    ns = setup_cell()
    expected = np.array([[0.12345, 2.5], [-3.14159, 0.005]])
    rule = ns["rounded"](expected, 2, otherwise=lambda a: f"wrong: {np.shape(a)}")
    given = np.round(expected, 2)
    assert verdict(rule, given) == (True, None)
    assert verdict(rule, given.tolist()) == (True, None)                # a nested list is fine too
    assert verdict(rule, expected + 0.005)[0] and not verdict(rule, expected + 0.0051)[0]
    for i in np.ndindex(expected.shape):                               # any one entry one unit off
        for sign in (+1, -1):
            wrong = given.copy()
            wrong[i] += sign * 0.01
            if abs(wrong[i] - expected[i]) <= 0.005:                   # 0.005 rounds either way
                continue
            ok, said = verdict(rule, wrong)
            assert not ok and "rounding" in said, (i, sign, said)
    assert verdict(rule, given[0]) == (False, "wrong: (2,)")            # wrong shape: not "rounding"
    assert verdict(rule, given.T)[0] is False
    with contextlib.redirect_stdout(io.StringIO()) as out:              # as an exercise check shows it
        assert not ns["feedback"](given + 0.01, [rule])
    assert out.getvalue().startswith("✗ Close, but off by 0.01: check your rounding (2 decimal places")


# --- reading flow: the mechanism in view, figure code folded ---------------------
def test_visible_code_cells_are_short_and_figure_code_is_folded(notebook):
    path, nb = notebook
    for cell in code_cells(nb):
        hidden = tags(cell) & {"hide-input", "remove-input", "remove-cell"}
        if "figure-code" in tags(cell):
            assert "hide-input" in tags(cell) and cell.metadata.get("jupyter", {}).get("source_hidden"), \
                f"{path.name}: figure code not folded (run make sync): {cell.source[:60]!r}"
        if not hidden:
            lines = len([l for l in cell.source.splitlines() if l.strip() != "#@save"])   # the mark is not code
            assert lines <= 30, f"{path.name}: a visible code cell of {lines} lines: {cell.source[:60]!r}"


@pytest.mark.parametrize("correct", [0, 1, 2])
def test_quiz_marks_the_right_option_right_and_only_it(correct):
    """The setup cell's quiz(): the explanation shown for the option at index
    `correct` says it is right, every other says "Not quite" (live widgets, and
    the plain printed form without ipywidgets)."""
    ns = setup_cell()
    box = ns["quiz"]("Which?", ["first", "second", "third"], correct, ["why 1", "why 2", "why 3"])
    shown = box.children[2]
    texts = [child.value for child in shown.children]          # one explanation per option
    assert len(texts) == 3
    for i, text in enumerate(texts):
        assert ("✓ Right." in text) == (i == correct), f"option {i + 1}: {text}"
        assert f"why {i + 1}" in text
    choice = box.children[1]
    assert list(choice.options) == ["first", "second", "third"] and choice.index is None
