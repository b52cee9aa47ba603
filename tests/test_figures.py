"""Every figure is legible: no text under 11 CSS px where the book shows it (on a desktop; a phone shows figures at their drawn size, scrolled in their own box).

Figures are drawn at 72 dpi (1 pt = 1 CSS px) and stored at twice the pixels,
so they are sharp on 2x screens (the setup cell). A figure wider than the
book's text column is shrunk by the browser, and its text with it: the column
is 680 CSS px wide at a 1280 px window (measured in Chromium, pydata theme).
Every text a chapter draws — titles, labels, ticks, legends, colour bars,
numbers written in heat-map cells — in plain figures and in every frame of
every slider, must be at least 11 px after that shrinking.

And every slider moves data: from each value to the next (the other sliders
where they start), some plotted data changes — a line, an image, a bar, a
scatter — not only a title, a label or the axis limits. A slider that only
relabels its picture teaches nothing.

Both are measured in the chapter's one run per session (tests/nbload.py:
FigureAudit), which draws every figure and every slider frame as the book does.
"""
import pytest

from conftest import NOTEBOOKS
from nbload import namespace

SMALLEST_PX = 11    # the smallest text a reader is asked to read


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_figure_text_is_at_least_11_css_px(path):
    audit = namespace(path.stem)["_figure_audit"]
    small = audit.smaller_than(SMALLEST_PX)
    report = "; ".join(f"{px:.1f} px in '{title}': {sorted(texts)[:4]}"
                       for (px, title), texts in sorted(small.items()))
    assert not small, f"{path.name}: text under {SMALLEST_PX} CSS px: {report}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_slider_move_changes_plotted_data(path):
    audit = namespace(path.stem)["_figure_audit"]
    assert not audit.still, f"{path.name}: a slider move that changes no plotted data: {'; '.join(audit.still)}"
