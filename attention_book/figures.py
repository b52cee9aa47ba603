"""Figures with sliders that work live in a kernel and in the static HTML book.

A chapter writes `draw(fig)`, which builds the figure once and returns
`update(d_k, n, ...)`, which fills it for one slider setting; `sliders(draw,
d_k=[...], n=[...])` shows it. In a kernel a move draws the new frame (and the
idle kernel draws the others ahead); when `make book` runs the notebooks
(ATTENTION_BOOK_STATIC=1) every frame is drawn in advance and the browser
switches between them (ipywidgets Stack + jslink, no kernel needed).
`describe(fig)` gives a figure its alt text.
"""
import io
import re
from itertools import product

import matplotlib as mpl
import matplotlib.pyplot as plt
from IPython.display import display

from . import i18n, style
from .i18n import N_, tr

try:
    import ipywidgets as widgets
except ImportError:  # no widgets: sliders show their first frame only
    widgets = None


def describe(fig):
    """Alt text for a figure: its title, then each panel's kind, title and axis labels."""
    def clean(text):
        return " ".join(text.replace("$", "").split())
    stop, colon, semicolon = ("。", "：", "；") if i18n.LANGUAGE == "zh_CN" else (". ", ": ", "; ")
    parts = [clean(fig.get_suptitle())] if fig.get_suptitle() else []
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>" and ax.get_visible()]
    for k, ax in enumerate(panels, 1):
        bars = sum(len(c) for c in ax.containers if isinstance(c, mpl.container.BarContainer))
        kind = (N_("picture") if ax.images and all(im.get_array().ndim == 3 for im in ax.images)
                else N_("heat map") if ax.images
                else N_("bar chart") if (ax.patches and not ax.lines) or bars > len(ax.lines)  # reference lines too
                else N_("line plot") if ax.lines else N_("scatter plot") if ax.collections
                else N_("diagram"))
        bits = [clean(t) for t in (ax.get_title(), ax.get_title("left"), ax.get_title("right")) if t]
        if ax.axison and ax.get_xlabel():
            bits.append(tr(f"x: {clean(ax.get_xlabel())}"))
        if ax.axison and ax.get_ylabel():
            bits.append(tr(f"y: {clean(ax.get_ylabel())}"))
        name = tr(f"panel {k}, {kind}") if len(panels) > 1 else tr(kind).capitalize()
        parts.append(name + (colon + semicolon.join(bits) if bits else ""))
    bars = [clean(ax.get_ylabel() or ax.get_xlabel()) for ax in fig.axes if ax.get_label() == "<colorbar>"]
    if any(bars):
        parts.append(tr(f"colour scale: {', '.join(tr(b) for b in bars if b)}"))
    return stop.join(parts) + stop.strip()


class Frames:
    """One slider figure, built once and refilled for each slider setting.

    `setup(fig)` builds the figure once (axes, colour bars, labels, artists
    with placeholder data) and returns `update(**params)`, which puts one
    setting's data into those artists (`set_data`, `set_text`, limits). A new
    frame is then an update plus one Agg render: no axes, ticks or colour bars
    are rebuilt. The PNG is rendered here at a fixed size (no second pass for
    a tight bounding box), so live frames look exactly like the book's.
    Frames already seen are kept.
    """

    def __init__(self, setup, figsize):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        self.fig = Figure(figsize=figsize)
        FigureCanvasAgg(self.fig)
        self.update = setup(self.fig)
        self.seen = {}

    def render(self, pixel_scale=1, **params):
        """The frame for these slider values, drawn now, as PNG bytes
        (pixel_scale=2: twice the pixels, for the book's sharp frames on 2x screens)."""
        self.update(**params)
        for ax in self.fig.axes:  # no minor ticks: skip looking for ones that overlap major ticks
            for axis in (ax.xaxis, ax.yaxis):
                axis.remove_overlapping_locs = not isinstance(axis.get_minor_locator(), mpl.ticker.NullLocator)
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=pixel_scale * self.fig.dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue()

    def __call__(self, **params):
        """The frame as an <img> with alt text; drawn once, then kept."""
        key = tuple(params.items())
        if key not in self.seen:
            png = self.render(**params)
            self.seen[key] = _img(png, describe(self.fig))
        return self.seen[key]


def _draw_ahead(frames, values, start):
    """While the kernel is idle, draw the frames not seen yet, nearest first.

    One frame per turn of the kernel's event loop, so a moved slider is served
    between two frames; once a frame is drawn, showing it costs a dictionary
    lookup. Without a running event loop (a plain script) it does nothing.
    """
    import asyncio
    try:
        loop = asyncio.get_event_loop()
    except RuntimeError:
        return
    if not loop.is_running():
        return
    names = list(values)
    here = [list(values[k]).index(start[k]) for k in names]
    combos = sorted(product(*(range(len(v)) for v in values.values())),
                    key=lambda c: sum(abs(a - b) for a, b in zip(c, here)))
    todo = iter([{k: values[k][i] for k, i in zip(names, c)} for c in combos])

    def step():
        for params in todo:
            if tuple(params.items()) not in frames.seen:
                try:
                    frames(**params)
                except Exception:  # the reader changed something: stop quietly
                    return
                loop.call_later(0.02, step)
                return
    loop.call_later(0.5, step)


def _img(image, alt, width=None, kind="png"):
    """An HTML <img> holding the image (PNG or WebP bytes), with alt text for
    screen readers; `width` in CSS px (a frame drawn at 2x is shown at half its
    pixel width)."""
    import base64
    import html
    size = f'width="{width}" ' if width else ""
    return (f'<img src="data:image/{kind};base64,{base64.b64encode(image).decode()}" {size}'
            f'alt="{html.escape(alt)}" style="max-width:100%;height:auto">')


def _small_image(png, kind="webp"):
    """The frame for the HTML book: a 128-colour palette (octree: small areas of
    a colour, such as thin lines, keep it), stored as lossless WebP (about 5x
    smaller than the PNG, a third smaller than a 256-colour palette PNG).
    Returns (bytes, "webp"), or the PNG as it is where Pillow cannot write WebP.
    kind="png": the same palette as a PNG (the PDF book's frame)."""
    try:
        from PIL import Image, features
    except ImportError:
        return png, "png"
    if kind == "webp" and not features.check("webp"):
        return png, "png"
    small = io.BytesIO()
    frame = Image.open(io.BytesIO(png))
    palette = frame.convert("RGB").quantize(128, method=Image.Quantize.FASTOCTREE)
    if kind == "png":  # printed at the figure's size: the frame's dpi kept
        palette.save(small, format="png", optimize=True, dpi=frame.info.get("dpi", (144, 144)))
    else:
        palette.save(small, format="webp", lossless=True, method=2, quality=100)
    return small.getvalue(), kind


def _printed(widget, **bundle):
    """`widget`, shown with a printable version for the PDF book: its LaTeX build
    picks the image or Markdown in `bundle`, the HTML book and Jupyter the widget."""
    shown = widget._repr_mimebundle_

    def with_print(**kw):
        out = shown(**kw)  # a dict, or (data, metadata) for an anywidget
        return ({**out[0], **bundle}, out[1]) if isinstance(out, tuple) else {**out, **bundle}
    widget._repr_mimebundle_ = with_print
    return widget


def _md(text):
    """Plain text as Markdown that shows it as written."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


_SYMBOL = re.compile(r"[A-Za-z](_[A-Za-z0-9]+)?")  # d_k, n, b_f: a formula's symbol


def slider_label(name):
    """A slider's name as the reader sees it: a formula's symbol as it is (d_k, n),
    other names in words, translated (norm_spread -> "norm spread")."""
    return name if _SYMBOL.fullmatch(name) else tr(name.replace("_", " "))


def sliders(setup, figsize=(8, 3.4), start=None, **values):
    """Show a figure with one slider per keyword argument.

    setup:  setup(fig) builds the figure once and returns update(**params),
            which fills it for one slider setting (see Frames).
    values: name -> list of slider values, e.g. d_k=[2, 8, 32], n=[4, 16].
    start:  optional dict of initial values (default: first of each list).
    Live (a kernel): a setting not seen yet is drawn when the slider moves,
    and while the kernel is idle the other settings are drawn ahead, so most
    moves just show a stored picture.
    Static (the HTML book): every combination is drawn now, and the sliders
    switch between the stored pictures in the browser.
    """
    start = {name: vals[0] for name, vals in values.items()} | (start or {})
    if widgets is None:
        fig = plt.figure(figsize=figsize)
        setup(fig)(**start)
        plt.show()
        return None
    controls = {name: widgets.SelectionSlider(  # a value in words is shown translated ("fur": 猫毛)
        options=[(tr(v) if isinstance(v, str) else str(v), v) for v in vals], value=start[name],
        description=slider_label(name),
        continuous_update=False, style={"description_width": "initial"}) for name, vals in values.items()}
    header = widgets.HBox(list(controls.values()))
    frames = Frames(setup, figsize)
    if not style.STATIC:
        picture = widgets.HTML(frames(**start))

        def redraw(change):
            picture.value = frames(**{name: c.value for name, c in controls.items()})
        for control in controls.values():
            control.observe(redraw, "value")
        _draw_ahead(frames, values, start)
        return widgets.VBox([header, picture])
    names = list(values)
    pictures = {}
    for combo in product(*values.values()):
        png = frames.render(pixel_scale=2, **dict(zip(names, combo)))
        width = round(frames.fig.get_figwidth() * frames.fig.dpi)
        image, kind = _small_image(png)
        pictures[combo] = _img(image, describe(frames.fig), width, kind)
        if all(start[k] == v for k, v in zip(names, combo)):  # the PDF book prints the first frame
            import base64
            display({"text/html": "", "image/png": base64.b64encode(_small_image(png, "png")[0]).decode()},
                    raw=True)
    shown = ("，" if i18n.LANGUAGE == "zh_CN" else ", ").join(
        f"{f'`{k}`' if _SYMBOL.fullmatch(k) else _md(slider_label(k))} = {_md(tr(str(start[k])))}" for k in names)
    caption = "*" + tr(f"The figure shows {shown}; its sliders move in the HTML book and in the notebook.") + "*"

    def stack(prefix, depth):
        if depth == len(names):
            return widgets.HTML(pictures[prefix]), {}
        children, levels = [], {}
        for v in values[names[depth]]:
            child, sub = stack(prefix + (v,), depth + 1)
            children.append(child)
            for k, s in sub.items():
                levels.setdefault(k, []).extend(s)
        box = widgets.Stack(children, selected_index=list(values[names[depth]]).index(start[names[depth]]))
        levels.setdefault(depth, []).append(box)
        return box, levels

    root, levels = stack((), 0)
    for depth, name in enumerate(names):
        for box in levels[depth]:
            widgets.jslink((controls[name], "index"), (box, "selected_index"))
    return _printed(widgets.VBox([header, root]), **{"text/markdown": caption})
