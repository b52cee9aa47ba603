"""The chapters' exercise checks: one hand-written module per chapter, `chNN.py`.

An exercise in a chapter is a prompt, a cell for the reader's answer that ends
with its check (`check_05_1(answer_05_1)`), and a hidden solution. The checks
themselves are not the mechanism a reader learns, so they live here, not in
the notebook: one hidden cell before the chapter's *Exercises* makes them, e.g.

    from attention_book.exercises.ch05 import checks
    check_05_1, check_05_2, check_05_3, check_05_4 = checks(attention, softmax, Q, K, n)

`checks(...)` takes what the checks compare with from the chapter: its own
functions and data (the answer to "change the code and run the cell" is what
the chapter's code prints), so nothing here is a copy of a chapter's code.
Each check prints what is off, through `feedback` and `rounded`
(attention_book.course), and returns whether the answer is right.

Unlike the generated `attention_book/chNN.py` (tools/package.py writes those
from the cells marked `#@save`), these modules are written by hand. Their
messages are translated like the chapter's own: tools/i18n.py extracts them
into the chapter's catalog (locales/zh_CN/notebooks/NN_*.po, msgctxt "code"),
and `tr()` translates them at run time. tests/test_course.py checks that every
check accepts its solution and rejects wrong answers.
"""
