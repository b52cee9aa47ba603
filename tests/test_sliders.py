"""The setup cell's `sliders` helper, in the static mode the HTML book uses."""
import os

import ipywidgets as widgets
import matplotlib
import matplotlib.figure
import pytest

matplotlib.use("Agg")

from conftest import ROOT

SETUP = (ROOT / "tools" / "setup_cell.py").read_text()


def setup_namespace(static):
    os.environ["ATTENTION_BOOK_STATIC"] = "1" if static else "0"
    try:
        ns = {}
        exec(compile(SETUP, "setup_cell.py", "exec"), ns)
    finally:
        os.environ.pop("ATTENTION_BOOK_STATIC")
    return ns


def draw(fig, d_k, n):
    ax = fig.subplots()
    ax.bar(range(n), [d_k] * n)
    ax.set_ylim(0, 10)
    ax.set_xlabel("key")
    ax.set_ylabel("height")


def test_static_sliders_hold_one_distinct_frame_per_setting():
    ns = setup_namespace(static=True)
    box = ns["sliders"](draw, figsize=(2, 2), d_k=[1, 4, 8], n=[2, 3])
    header, root = box.children
    d_k_slider, n_slider = header.children
    assert (d_k_slider.description, n_slider.description) == ("d_k", "n")
    assert len(root.children) == 3 and all(len(s.children) == 2 for s in root.children)
    frames = [img.value for s in root.children for img in s.children]
    assert len(set(frames)) == 6, "two slider settings drew the same picture"
    assert all(f.startswith('<img src="data:image/png;base64,iVBORw0KGgo') for f in frames)
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

    def record(fig, d_k, n):
        seen.append((d_k, n))
        draw(fig, d_k, n)
    box = ns["sliders"](record, figsize=(2, 2), d_k=[1, 4], n=[2, 3])
    header, picture = box.children
    assert seen == [(1, 2)]
    first = picture.value
    header.children[0].value = 4
    assert seen[-1] == (4, 2) and picture.value != first
    header.children[0].value = 1          # back: the kept frame, not a new draw
    assert len(seen) == 2 and picture.value == first


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
