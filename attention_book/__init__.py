"""attention_book: the code of *Attention, step by step*.

- `attention_book.book`: what each chapter's first cell imports (plot style,
  sliders, quizzes, glue, the playground, translation).
- `attention_book.chNN`: the functions chapter NN teaches, generated from the
  cells marked `#@save` in notebooks/NN_*.ipynb by `make package`
  (tools/package.py; a test fails when a module differs from its chapter).
  A later chapter imports them in one visible line:
  `from attention_book.ch05 import attention`.
- `attention_book.exercises.chNN`: chapter NN's exercise checks, written by
  hand, made by one hidden cell of the chapter (`checks(...)`).
- `attention_book.i18n`: the translation runtime of the Chinese edition.
"""
__version__ = "1.0.0"
