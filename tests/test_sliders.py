"""The setup cell's `sliders` helper, in the static mode the HTML book uses."""
import os
from itertools import product

import ipywidgets as widgets
import matplotlib
import matplotlib.figure
import pytest

matplotlib.use("Agg")

from conftest import NOTEBOOKS, ROOT
from nbload import namespace

from nbtools import book_namespace, reset_book  # noqa: E402


def setup_namespace(static):
    """What the setup cell gives a chapter (attention_book), in static or live mode."""
    return book_namespace(static)


@pytest.fixture(autouse=True)
def _live_again():
    yield
    reset_book()


def draw(fig):
    """Build once; update(d_k, n) draws n bars of height d_k."""
    ax = fig.subplots()
    bars = ax.bar(range(3), [0] * 3)
    ax.set_ylim(0, 10)
    ax.set_xlabel("key")
    ax.set_ylabel("height")

    def update(d_k, n):
        for i, bar in enumerate(bars):
            bar.set_height(d_k)
            bar.set_visible(i < n)
        ax.set_xlim(-0.5, n - 0.5)
    return update


def test_static_sliders_hold_one_distinct_frame_per_setting():
    ns = setup_namespace(static=True)
    box = ns["sliders"](draw, figsize=(2, 2), d_k=[1, 4, 8], n=[2, 3])
    header, root = box.children
    d_k_slider, n_slider = header.children
    assert (d_k_slider.description, n_slider.description) == ("d_k", "n")
    assert len(root.children) == 3 and all(len(s.children) == 2 for s in root.children)
    frames = [img.value for s in root.children for img in s.children]
    assert len(set(frames)) == 6, "two slider settings drew the same picture"
    # lossless WebP (RIFF header), drawn at twice the pixels and shown at the figure's size
    assert all(f.startswith('<img src="data:image/webp;base64,UklGR') for f in frames)
    import base64
    import io
    import re
    from PIL import Image
    for f in frames:
        pixels = Image.open(io.BytesIO(base64.b64decode(re.search(r"base64,([^\"]+)", f)[1]))).width
        assert f' width="{2 * 72}" ' in f and pixels == 2 * 2 * 72, (pixels, f[-120:])
    assert all(' alt="Bar chart: x: key; y: height." ' in f for f in frames)


def test_static_sliders_are_linked_in_the_browser():
    ns = setup_namespace(static=True)
    box = ns["sliders"](draw, figsize=(2, 2), d_k=[1, 4], n=[2, 3], start={"n": 3})
    header, root = box.children
    from ipywidgets.widgets.widget import _instances
    links = [w for w in _instances.values() if isinstance(w, widgets.widget_link.Link)
             and w.source[0] in header.children]
    targets = {(w.source[0].description, id(w.target[0])) for w in links}
    assert ("d_k", id(root)) in targets
    assert all(("n", id(s)) in targets for s in root.children)
    assert all(s.selected_index == 1 for s in root.children)   # start n = 3


def test_live_sliders_redraw_for_each_new_value_and_keep_seen_frames():
    ns = setup_namespace(static=False)
    seen = []

    def record(fig):
        update = draw(fig)

        def recorded(d_k, n):
            seen.append((d_k, n))
            update(d_k, n)
        return recorded
    box = ns["sliders"](record, figsize=(2, 2), d_k=[1, 4], n=[2, 3])
    header, picture = box.children
    assert seen == [(1, 2)]
    first = picture.value
    header.children[0].value = 4
    assert seen[-1] == (4, 2) and picture.value != first
    header.children[0].value = 1          # back: the kept frame, not a new draw
    assert len(seen) == 2 and picture.value == first


def test_a_frame_does_not_depend_on_the_frames_drawn_before_it():
    ns = setup_namespace(static=False)
    fresh = {p: ns["Frames"](draw, (2, 2)).render(d_k=p[0], n=p[1]) for p in [(1, 2), (8, 3)]}
    frames = ns["Frames"](draw, (2, 2))
    for p in [(8, 3), (1, 2), (8, 3)]:
        assert frames.render(d_k=p[0], n=p[1]) == fresh[p]
    assert fresh[(1, 2)] != fresh[(8, 3)]


def test_describe_names_titles_labels_and_colour_scale():
    import numpy as np
    ns = setup_namespace(static=False)
    fig = matplotlib.figure.Figure()
    fig.suptitle("d_k = 4, n = 8")
    ax1, ax2 = fig.subplots(1, 2)
    fig.colorbar(ax1.imshow(np.eye(3)), ax=ax1, label="weight")
    ax1.set(title="A", xlabel="key j", ylabel="query i")
    ax2.plot([1, 2])
    assert ns["describe"](fig) == ("d_k = 4, n = 8. panel 1, heat map: A; x: key j; y: query i. "
                                   "panel 2, line plot. colour scale: weight.")


def test_chinese_labels_use_the_book_font_where_it_is_found(monkeypatch):
    monkeypatch.chdir(ROOT / "notebooks")
    ns = setup_namespace(static=False)
    assert ns["CJK_FONT"], "the setup cell did not find attention_book/fonts/BookCJK-Regular.otf"
    assert ns["zh"]("我", "wo") == "我"


def test_chinese_labels_fall_back_to_pinyin_without_a_font(monkeypatch, tmp_path):
    """With neither the book's font (a package copied without attention_book/fonts/)
    nor a system CJK font, labels fall back to pinyin instead of boxes."""
    from matplotlib import font_manager

    from attention_book import style
    cjk = {"Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "SimHei", "Microsoft YaHei",
           "PingFang SC"}
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in cjk])
    monkeypatch.setattr(style, "FONT", tmp_path / "missing.otf")
    found = style._cjk_font()
    assert found is None, f"a CJK font was found though none should be: {found}"
    monkeypatch.setattr(style, "CJK_FONT", found)
    assert style.zh("我", "wo") == "wo"


def test_the_book_font_comes_with_the_package_wherever_the_notebook_runs(monkeypatch, tmp_path):
    """The figures' Chinese font is found from any folder (Colab included): it is package data."""
    from attention_book import style
    monkeypatch.chdir(tmp_path)
    assert style.FONT.is_file() and style._cjk_font() == style.CJK_FONT


@pytest.mark.parametrize("value", [3, 2.5])
def test_glue_records_python_numbers_and_enforces_its_check(value):
    import numpy as np
    from attention_book import course
    ns = setup_namespace(static=False)
    glued = []
    saved, course._myst_glue = course._myst_glue, lambda name, v, display: glued.append((name, v, display))
    try:
        _glue_checks(ns, glued, value)
    finally:
        course._myst_glue = saved


def _glue_checks(ns, glued, value):
    import numpy as np
    ns["glue"]("x", np.float64(value))
    ns["glue"]("y", np.int64(3), check=lambda v: v == 3)
    assert glued == [("x", value, False), ("y", 3, False)]
    assert type(glued[0][1]) is float and type(glued[1][1]) is int, "numpy numbers must be glued as Python ones"
    with pytest.raises(AssertionError, match="check failed"):
        ns["glue"]("z", np.float64(value), check=lambda v: v > 10)
    assert len(glued) == 2, "a value whose check fails was glued"


def chapter_figures(path):
    """(Frames, setup, figsize, start, values) of every sliders(...) call in a chapter,
    from its run in tests/nbload.py (once per session, shared with the other tests)."""
    return namespace(path.stem)["_slider_calls"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_chapter_frame_is_the_same_whatever_was_drawn_before(path):
    """Slider figures are built once and refilled per setting (fast); a setting
    must still give the same picture as on a freshly built figure, or the live
    and the HTML sliders would show different things depending on the path taken."""
    figures = chapter_figures(path)
    assert figures, f"{path.name}: no slider figure"
    for Frames, setup, figsize, start, values in figures:
        settings = [{k: v[0] for k, v in values.items()},
                    {k: v[0] for k, v in values.items()} | (start or {}),
                    {k: v[-1] for k, v in values.items()}]
        fresh = [Frames(setup, figsize).render(**p) for p in settings]
        frames = Frames(setup, figsize)
        for i in [2, 0, 1, 2, 0]:
            assert frames.render(**settings[i]) == fresh[i], (
                f"{path.name} {setup.__name__}{settings[i]}: the picture depends on the frames drawn before it")
        assert fresh[0] != fresh[2], f"{path.name} {setup.__name__}: smallest and largest setting look the same"


# --- every slider moves the picture (the live frame cache is keyed on all of them)
def three_slider_draw(fig):
    """update(d_k, n, tau): each slider changes the picture on its own."""
    ax = fig.subplots()
    bars = ax.bar(range(4), [0] * 4)
    ax.set_ylim(0, 10)

    def update(d_k, n, tau):
        for i, bar in enumerate(bars):
            bar.set_height(d_k)
            bar.set_visible(i < n)
        ax.set_title(f"tau = {tau}")
    return update


def move_every_slider(box, where):
    """Move each slider of a live sliders(...) box in turn, away from its current value
    and back; the picture must change with each move and come back with each return."""
    header, picture = box.children
    assert header.children, f"{where}: no slider"
    for control in header.children:
        before, value = picture.value, control.value
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]   # (label, value) pairs
        other = next(o for o in reversed(values) if o != value)
        control.value = other
        assert picture.value != before, (
            f"{where}: moving slider {control.description} from {value} to {other} left the picture "
            "as it was (is the frame cache keyed on every slider?)")
        control.value = value
        assert picture.value == before, f"{where}: moving {control.description} back did not restore the picture"


def test_live_sliders_change_the_picture_with_every_slider():
    ns = setup_namespace(static=False)
    box = ns["sliders"](three_slider_draw, figsize=(2, 2), d_k=[1, 4], n=[2, 3], tau=[0.5, 2.0])
    move_every_slider(box, "three sliders")
    header, picture = box.children
    seen = set()      # every combination of the three sliders: its own picture
    for d_k, n, tau in product([1, 4], [2, 3], [0.5, 2.0]):
        header.children[0].value, header.children[1].value, header.children[2].value = d_k, n, tau
        seen.add(picture.value)
    assert len(seen) == 8, f"8 slider settings gave {len(seen)} different pictures"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_slider_of_every_chapter_figure_changes_the_picture(path):
    """Each chapter figure with the setup cell's live sliders: moving any one slider
    (not only the first) shows another picture, without a browser."""
    ns = namespace(path.stem)
    figures = ns["_slider_calls"]
    assert figures, f"{path.name}: no slider figure"
    for _, setup, figsize, start, values in figures:
        box = ns["_sliders"](setup, figsize, start, **values)
        assert [c.description for c in box.children[0].children] == [ns["slider_label"](v) for v in values]
        move_every_slider(box, f"{path.name} {setup.__name__}")
