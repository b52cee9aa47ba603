"""Every figure is legible: no text under 10 CSS px where the book shows it.

Figures are drawn at 72 dpi (1 pt = 1 CSS px) and stored at twice the pixels,
so they are sharp on 2x screens (the setup cell). A figure wider than the
book's text column is shrunk by the browser, and its text with it: the column
is 680 CSS px wide at a 1280 px window (measured in Chromium, pydata theme).
Every text a chapter draws — titles, labels, ticks, legends, colour bars,
numbers written in heat-map cells — in plain figures and in every frame of
every slider, must be at least 10 px after that shrinking.

And every slider moves data: from each value to the next (the other sliders
where they start), some plotted data changes — a line, an image, a bar, a
scatter — not only a title, a label or the axis limits. A slider that only
relabels its picture teaches nothing.
"""
import hashlib
from itertools import product

import matplotlib
import numpy as np
import pytest

from conftest import NOTEBOOKS
from nbload import run_code

matplotlib.use("Agg")
from matplotlib.text import Text  # noqa: E402

COLUMN_PX = 680     # the book's text column at a 1280 px window
SMALLEST_PX = 10    # the smallest text a reader is asked to read


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_figure_text_is_at_least_10_css_px(path, monkeypatch):
    small = {}
    draw = Text.draw

    def checked_draw(self, renderer):
        fig = self.get_figure(root=True) if hasattr(self, "get_figure") else self.figure
        if self.get_visible() and self.get_text().strip() and fig is not None:
            shrink = min(1.0, COLUMN_PX / (fig.get_figwidth() * 72))
            px = self.get_fontsize() * shrink
            if px < SMALLEST_PX - 1e-9:
                title = fig.axes[0].get_title() if fig.axes else ""
                small.setdefault((round(px, 1), title[:40]), set()).add(self.get_text()[:20])
        return draw(self, renderer)

    monkeypatch.setattr(Text, "draw", checked_draw)

    still = []

    def after_setup(ns):  # draw every frame of every slider, as the book does
        sliders, Frames = ns["sliders"], ns["Frames"]

        def every_frame(setup, figsize=(8, 3.4), start=None, **values):
            frames = Frames(setup, figsize)
            data = {}
            for combo in product(*values.values()):
                frames.render(**dict(zip(values, combo)))
                data[combo] = plotted_data(frames.fig)
            first = dict(zip(values, [v[0] for v in values.values()])) | (start or {})
            for k, (name, vals) in enumerate(values.items()):
                at = [tuple(first[m] if m != name else v for m in values) for v in vals]
                same = [f"{a[k]}->{b[k]}" for a, b in zip(at, at[1:]) if data[a] == data[b]]
                if same:
                    still.append(f"'{frames.fig.axes[0].get_title()[:40]}': {name} {same}")
            return sliders(setup, figsize, start, **values)
        ns["sliders"] = every_frame

    def after_cell(i, ns):  # plain figures: drawn as the inline backend would
        import matplotlib.pyplot as plt
        for num in plt.get_fignums():
            plt.figure(num).canvas.draw()

    run_code(path, after_setup=after_setup, after_cell=after_cell)
    report = "; ".join(f"{px} px in '{title}': {sorted(texts)[:4]}"
                       for (px, title), texts in sorted(small.items()))
    assert not small, f"{path.name}: text under {SMALLEST_PX} CSS px: {report}"
    assert not still, f"{path.name}: a slider move that changes no plotted data: {'; '.join(still)}"


def plotted_data(fig):
    """A fingerprint of what a figure plots (lines, images, bars and other
    patches, scatter and mesh collections), leaving out texts and axis limits."""
    h = hashlib.sha256()

    def add(a):
        a = np.ma.filled(np.ma.asarray(a, dtype=float), np.nan)
        h.update(np.round(a, 12).tobytes())
    for ax in fig.axes:
        for line in ax.lines:
            add(line.get_xydata())
            h.update(str(line.get_visible()).encode())
        for im in ax.images:
            add(im.get_array())
        for patch in ax.patches:
            add(patch.get_path().vertices @ patch.get_patch_transform().get_matrix()[:2, :2].T
                + patch.get_patch_transform().get_matrix()[:2, 2])
            h.update(str(patch.get_visible()).encode())
        for coll in ax.collections:
            add(coll.get_offsets())
            if coll.get_array() is not None:
                add(coll.get_array())
            for path in coll.get_paths()[:2000]:
                add(path.vertices)
            h.update(str(coll.get_visible()).encode())
    return h.hexdigest()
