"""The setup cell's `sliders` helper, in the static mode the HTML book uses."""
import os

import ipywidgets as widgets
import matplotlib
import matplotlib.figure
import pytest

matplotlib.use("Agg")

from conftest import NOTEBOOKS, ROOT

SETUP = (ROOT / "tools" / "setup_cell.py").read_text()


def setup_namespace(static):
    os.environ["ATTENTION_BOOK_STATIC"] = "1" if static else "0"
    try:
        ns = {}
        exec(compile(SETUP, "setup_cell.py", "exec"), ns)
    finally:
        os.environ.pop("ATTENTION_BOOK_STATIC")
    return ns


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


def test_chinese_labels_fall_back_to_pinyin_only_without_a_font():
    ns = setup_namespace(static=False)
    expected = "我" if ns["CJK_FONT"] else "wo"
    assert ns["zh"]("我", "wo") == expected


@pytest.mark.parametrize("value", [3, 2.5])
def test_glue_accepts_python_and_numpy_numbers(value):
    import numpy as np
    ns = setup_namespace(static=False)
    ns["glue"]("x", np.float64(value))


def chapter_figures(path):
    """(setup, figsize, start, values) of every sliders(...) call in a chapter."""
    import sys
    sys.path.insert(0, str(ROOT / "tools"))
    from nbtools import run_code
    found = []

    def catch(ns):
        ns["sliders"] = lambda setup, figsize=(8, 3.4), start=None, **values: found.append(
            (ns["Frames"], setup, figsize, start, values))
    run_code(path, after_setup=catch)
    return found


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
