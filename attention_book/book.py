"""What every chapter's first cell imports: `from attention_book.book import *`.

It sets the book's plot style (style.apply) and gives the chapter numpy, pyplot
and the book's helpers:

- figures: `sliders(draw, d_k=[...], n=[...])`, `describe(fig)` (attention_book.figures);
- the reader's turn: `quiz`, `feedback`, `rounded` (attention_book.course);
- measured numbers in the text: `glue(name, value, check=...)` (attention_book.course);
- the attention playground: `playground`, `playground_numbers` (attention_book.playground);
- text in the reader's language: `tr`, `N_`, `use_language` (attention_book.i18n);
- `zh(chinese, pinyin)`, `CJK_FONT` (attention_book.style).

The chapters' own functions are not here: a chapter imports what an earlier one
taught by name, e.g. `from attention_book.ch05 import attention`.
"""
import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from . import style
from .course import Verdict, feedback, glue, quiz, rounded
from .figures import Frames, describe, slider_label, sliders, widgets
from .i18n import N_, tr, use_language
from .playground import playground, playground_inputs, playground_numbers
from .style import CJK_FONT, zh

style.apply()

__all__ = ["np", "plt", "mpl", "display", "widgets",
           "sliders", "describe", "Frames", "slider_label",
           "quiz", "feedback", "rounded", "glue", "Verdict",
           "playground", "playground_numbers", "playground_inputs",
           "tr", "N_", "use_language", "zh", "CJK_FONT"]
