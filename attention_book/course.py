"""Exercises, quizzes and glued numbers: what a chapter uses to check the reader
and to put its measured numbers into the text."""
import html

import numpy as np

from . import style
from .figures import _md, _printed, widgets
from .i18n import say as print, tr

try:  # myst-nb's glue puts measured numbers into the book's text
    from myst_nb import glue as _myst_glue
except ImportError:  # Colab or plain Jupyter: the printed value is what you read
    _myst_glue = None


def glue(name, value, check=None):
    """Record `value` under `name`, for the book's text to quote (a phrase in the
    notebook's language: tr). `check(value)` states what the text says of it
    (e.g. `lambda v: v > 0.99` for "more than 99 %"): the cell fails if it no longer holds."""
    value = value.item() if hasattr(value, "item") else value  # numpy -> Python
    if check is not None and not check(value):
        raise AssertionError(f"glue {name}={value!r}: check failed")
    value = tr(value) if isinstance(value, str) else value
    if _myst_glue is not None:
        _myst_glue(name, value, display=False)


class Verdict(int):
    """True/False result of a check; shows nothing itself (the message was printed)."""
    def __repr__(self):
        return str(bool(self))

    def _ipython_display_(self):
        pass


def feedback(answer, rules):
    """Check an exercise answer against rules, in order; print what is off.

    rules: list of (test, message); test(answer) -> bool, message is a string
    or a function of the answer. Returns True when every rule passes.
    """
    for test, message in rules:
        try:
            ok = bool(test(answer))
        except Exception as err:  # a wrong type or shape usually lands here
            ok, message = False, f"{tr(message) if isinstance(message, str) else tr('Not quite')} ({type(err).__name__}: {err})"
        if not ok:
            print("✗ " + tr(message(answer) if callable(message) else message))
            return Verdict(False)
    print(tr("✓ Correct!"))
    return Verdict(True)


def rounded(expected, decimals, otherwise="Not quite."):
    """A rule for feedback(): the answer equals `expected` given to `decimals`
    decimal places (every entry within half a unit of the last place).

    An answer just outside that (within ten units of the last place) is told to
    check its rounding; anything further gets the message `otherwise`.
    """
    expected = np.asarray(expected, dtype=float)
    unit = 10.0 ** -decimals

    def off(a):
        return float(np.max(np.abs(np.asarray(a, dtype=float) - expected)))

    def message(a):
        if np.shape(a) == expected.shape and off(a) <= 10 * unit:
            return tr(f"Close, but off by {off(a):.1g}: check your rounding "
                      f"({decimals} decimal place{'s' if decimals != 1 else ''} asked for).")
        return tr(otherwise(a) if callable(otherwise) else otherwise)
    return (lambda a: np.shape(a) == expected.shape and off(a) <= 0.5 * unit * (1 + 1e-9), message)


def quiz(question, options, correct, explanations):
    """A multiple-choice question; choosing an option shows why it is right or wrong.

    Works live and in the HTML book: the explanation shown is switched in the
    browser by a link between the choice and a stack of explanations. Texts are
    plain text (`<s>` is shown as written).
    """
    import html
    question, options, explanations = tr(question), [tr(o) for o in options], [tr(e) for e in explanations]
    marks = [tr("✓ Right. ") if i == correct else tr("✗ Not quite. ") for i in range(len(options))]
    texts = [f"<p>{html.escape(m + e, quote=False)}</p>" for m, e in zip(marks, explanations)]
    if widgets is None:
        print(question)
        for i, (o, t) in enumerate(zip(options, texts)):
            print(f"  {'abcdefgh'[i]}) {o}")
        return None
    choice = widgets.RadioButtons(options=options, index=None, layout={"width": "max-content"})
    head = widgets.HTML(f"<b>{html.escape(question, quote=False)}</b>")
    if hasattr(widgets, "Stack"):
        shown = widgets.Stack([widgets.HTML(t) for t in texts], selected_index=None)
        widgets.jslink((choice, "index"), (shown, "selected_index"))
    else:  # ipywidgets 7 (Colab): switched by the kernel
        shown = widgets.HTML("")
        choice.observe(lambda change: setattr(shown, "value", texts[change["new"]]), "index")
    box = widgets.VBox([head, choice, shown])
    if not style.STATIC:
        return box
    letters = "abcdefgh"  # the PDF book: question, options, then the answer
    printed = (f"**{_md(question)}**\n\n" + "".join(f"{letters[i]}) {_md(o)}  \n" for i, o in enumerate(options))
               + f"\n*{tr('Answer:')} {letters[correct]})* {_md(explanations[correct])}")
    return _printed(box, **{"text/markdown": printed})
