# Setup shared by every chapter (generated from tools/setup_cell.py: edit it
# there and run `make sync`; a test checks every notebook carries this copy).
# It runs wherever the notebook is opened alone: Jupyter, VS Code, Colab.
import io
import os
import re
from itertools import product
from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

try:
    import ipywidgets as widgets
except ImportError:  # no widgets: sliders show their first frame only
    widgets = None

mpl.rcParams.update({"figure.dpi": 72, "savefig.dpi": 72,  # 1 pt of text = 1 CSS px
                     "image.cmap": "viridis", "font.size": 11,
                     # titles at a fixed height: matplotlib need not search for a
                     # free place above each panel every time a frame is drawn
                     "axes.titley": 1.0})

try:  # plain figures at twice the pixels, shown at their size: sharp on 2x screens
    from matplotlib_inline.backend_inline import set_matplotlib_formats
    set_matplotlib_formats("retina")
except Exception:  # not in IPython, or an older matplotlib-inline: 1x figures
    pass


# Language. A notebook of the Chinese edition (zh/notebooks/, made by
# tools/i18n.py) sets BOOK_LANGUAGE and BOOK_MESSAGES {English: translation}
# in a hidden cell before this one; the code cells are the English edition's.
# tr() then translates the text code makes: quiz(), feedback(), rounded(),
# describe(), print() and every text of a figure when it is drawn. In English
# tr() returns its argument and nothing is wrapped.
BOOK_LANGUAGE = globals().get("BOOK_LANGUAGE")
BOOK_MESSAGES = globals().get("BOOK_MESSAGES") or {}
_tr_compiled = []


def _tr_compile():
    """Each message with {fields} as (regex, fields, translation), most literal text first.
    A field matches any text; {{ and }} are literal braces."""
    token = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
    for english, translation in BOOK_MESSAGES.items():
        if not token.search(english):
            continue
        regex, fields, at = "", [], 0
        for m in token.finditer(english):
            regex += re.escape(english[at:m.start()])
            if m.group() in ("{{", "}}"):
                regex += re.escape(m.group()[0])
            else:
                regex += "(.*?)"
                fields.append(m.group())
            at = m.end()
        regex += re.escape(english[at:])
        _tr_compiled.append((re.compile(regex + r"\Z", re.S), fields, translation))
    _tr_compiled.sort(key=lambda t: -len(re.sub(r"\(\.\*\?\)|\\", "", t[0].pattern)))


def tr(text):
    """`text` in the notebook's language: an exact translation, else a template
    ("weight on cat: {share:.2f}") whose literal parts match, its fields put into
    the translation's same fields (each field's text translated too, if it is a
    message: 'right' / 'wrong'). English, or no translation: `text` itself."""
    if not BOOK_MESSAGES or not isinstance(text, str):
        return text
    hit = BOOK_MESSAGES.get(text)
    if hit is not None:
        return hit
    if not re.search("[A-Za-z]", text):
        return text
    core = text.strip()
    if core != text and core in BOOK_MESSAGES:  # a padded name: f"{name:16s}"
        return text.replace(core, BOOK_MESSAGES[core])
    if not _tr_compiled:
        _tr_compile()
    for regex, fields, translation in _tr_compiled:
        m = regex.match(text)
        if m:
            values = {f: v.replace(v.strip(), tr(v.strip()) if len(v) < len(text) else v.strip())
                      for f, v in zip(fields, m.groups())}  # padded names, and messages made by other templates
            return re.sub(r"\{\{|\}\}|\{[^{}]*\}",
                          lambda t: t.group()[0] if t.group() in ("{{", "}}") else values.get(t.group(), t.group()),
                          translation)
    return text


def N_(text):
    """Marks a text for translation where it is made (tools/i18n.py collects it); tr() translates it later."""
    return text


if BOOK_MESSAGES:
    import builtins
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    def print(*args, **kwargs):
        """print() translating its string arguments: the chapters print sentences,
        and this keeps their code the same in every language."""
        builtins.print(*(tr(a) if isinstance(a, str) else a for a in args), **kwargs)

    def _translated_draw(draw):
        def draw_translated(self, renderer):
            """Every text of the figure in the notebook's language, just before drawing
            (where no CJK font can be had, as on Colab, figures stay in English, not boxes)."""
            for ax in self.axes if CJK_FONT else ():
                for axis in (ax.xaxis, ax.yaxis):
                    formatter = axis.get_major_formatter()  # word ticks: set_xticks(ticks, labels)
                    if isinstance(formatter, mpl.ticker.FixedFormatter):
                        formatter.seq = [tr(s) for s in formatter.seq]
                    elif isinstance(formatter, mpl.ticker.FuncFormatter) and not hasattr(formatter, "book_tr"):
                        formatter.func = lambda x, pos=None, f=formatter.func: tr(f(x, pos))
                        formatter.book_tr = True
                    elif isinstance(formatter, mpl.category.StrCategoryFormatter):  # bar names
                        wrapped = mpl.ticker.FuncFormatter(lambda x, pos=None, f=formatter: tr(f(x, pos)))
                        wrapped.book_tr = True
                        axis.set_major_formatter(wrapped)
            for text in self.findobj(Text) if CJK_FONT else ():
                s = text.get_text()
                if s and re.search("[A-Za-z]", s):
                    text.set_text(tr(s))
            return draw(self, renderer)
        draw_translated.book_translated = True
        return draw_translated
    if not getattr(Figure.draw, "book_translated", False):
        Figure.draw = _translated_draw(Figure.draw)


def _cjk_font():
    """Register the book's CJK font (or a system one); return its family name or None."""
    from matplotlib import font_manager
    for path in (Path("fonts/BookCJK-Regular.otf"),  # from notebooks/, the repository,
                 Path("notebooks/fonts/BookCJK-Regular.otf"),  # or the Chinese edition's zh/notebooks/
                 Path("../notebooks/fonts/BookCJK-Regular.otf"),
                 Path("../../notebooks/fonts/BookCJK-Regular.otf")):
        if path.exists():
            path = str(path.resolve())  # absolute: still found if the working folder changes
            font_manager.fontManager.addfont(path)
            return font_manager.FontProperties(fname=path).get_name()
    for name in ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
                 "SimHei", "Microsoft YaHei", "PingFang SC"):
        if any(f.name == name for f in font_manager.fontManager.ttflist):
            return name
    return None


CJK_FONT = _cjk_font()
if CJK_FONT:  # Latin text keeps DejaVu Sans; Chinese glyphs come from CJK_FONT
    mpl.rcParams["font.family"] = ["DejaVu Sans", CJK_FONT]


def zh(chinese, pinyin):
    """A label in Chinese, or in pinyin where no CJK font can be had."""
    return chinese if CJK_FONT else pinyin


# Static mode (set by `make book`): every slider frame is drawn in advance and
# switched in the browser, so the sliders work in the HTML book with no kernel.
STATIC = os.environ.get("ATTENTION_BOOK_STATIC") == "1"


def describe(fig):
    """Alt text for a figure: its title, then each panel's kind, title and axis labels."""
    def clean(text):
        return " ".join(text.replace("$", "").split())
    stop, colon, semicolon = ("。", "：", "；") if BOOK_LANGUAGE == "zh_CN" else (". ", ": ", "; ")
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
        parts.append(tr(f"colour scale: {', '.join(b for b in bars if b)}"))
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
    widget._repr_mimebundle_ = lambda **kw: {**shown(**kw), **bundle}
    return widget


def _md(text):
    """Plain text as Markdown that shows it as written."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


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
    controls = {name: widgets.SelectionSlider(
        options=list(vals), value=start[name], description=name,
        continuous_update=False, style={"description_width": "initial"}) for name, vals in values.items()}
    header = widgets.HBox(list(controls.values()))
    frames = Frames(setup, figsize)
    if not STATIC:
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
    shown = ("，" if BOOK_LANGUAGE == "zh_CN" else ", ").join(
        f"`{k}` = {_md(tr(str(start[k])))}" for k in names)
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
    if not STATIC:
        return box
    letters = "abcdefgh"  # the PDF book: question, options, then the answer
    printed = (f"**{_md(question)}**\n\n" + "".join(f"{letters[i]}) {_md(o)}  \n" for i, o in enumerate(options))
               + f"\n*{tr('Answer:')} {letters[correct]})* {_md(explanations[correct])}")
    return _printed(box, **{"text/markdown": printed})
