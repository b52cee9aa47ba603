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
    message: 'right' / 'wrong'). English, or no translation: `text` itself.
    A translation with Chinese characters pads by its width on screen (f"{tr(name):16s}")."""
    out = _tr_plain(text)
    return _Wide(out) if isinstance(out, str) and out is not text and _width(out) != len(out) else out


class _Wide(str):
    """A text padded by the columns it takes on screen in a format spec: Chinese characters take two."""
    def __format__(self, spec):
        m = re.fullmatch(r"(?:(.)?([<>^]))?(\d+)s?", spec)
        if not m:
            return format(str(self), spec)
        fill, align, width = m.group(1) or " ", m.group(2) or "<", int(m.group(3))
        pad = max(0, width - _width(self))
        left = {"<": 0, ">": pad, "^": pad // 2}[align]
        return fill * left + str(self) + fill * (pad - left)


def _tr_plain(text):
    """tr() without the padding by width."""
    if not BOOK_MESSAGES or not isinstance(text, str):
        return text
    hit = BOOK_MESSAGES.get(text)
    if hit is not None:
        return hit
    if not re.search("[A-Za-z]", text):
        return text
    core = text.strip()
    if core != text and core in BOOK_MESSAGES:  # a padded name: f"{name:16s}", padded to the same width on screen
        new = BOOK_MESSAGES[core]
        lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        extra = _width(new) - len(core)
        if trail:
            trail = " " * max(1, len(trail) - extra)
        elif lead:
            lead = " " * max(1, len(lead) - extra)
        return lead + new + trail
    if not _tr_compiled:
        _tr_compile()
    for regex, fields, translation in _tr_compiled:
        m = regex.match(text)
        if m and regex.pattern.endswith("(.*?)\\Z") and re.search(r"\S {4,}\S", m.group(len(fields))):
            continue  # a last field that took a table's padding and columns: the line is translated cell by cell
        if m:
            values = {f: v.replace(v.strip(), tr(v.strip()) if len(v) < len(text) else v.strip())
                      for f, v in zip(fields, m.groups())}  # padded names, and messages made by other templates
            return re.sub(r"\{\{|\}\}|\{[^{}]*\}",
                          lambda t: t.group()[0] if t.group() in ("{{", "}}") else values.get(t.group(), t.group()),
                          translation)
    return text


def _width(text):
    """Columns `text` takes in a fixed-width font: Chinese characters take two."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _tr_table(line):
    """A printed line of a table that is no message as a whole: each cell (text between runs
    of two spaces or ' | ') translated, the padding after it shortened so the columns line up."""
    parts, out, extra = re.split(r"( *\| *| {2,})", line), [], 0
    for i, part in enumerate(parts):
        if i % 2:                                       # a separator: give back the width taken
            spaces = len(part) - len(part.lstrip(" "))  # the spaces before a bar, or all
            cut = min(extra, max(spaces - 1, 0)) if extra > 0 else extra   # keep one space; add what is missing
            part, extra = (part[cut:] if cut >= 0 else " " * -cut + part), extra - cut
            out.append(part)
        else:
            new = tr(part) if re.search("[A-Za-z]{2}", part) else part
            extra += _width(new) - _width(part)
            out.append(new)
    return "".join(out)


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
        def one(a):
            t = tr(a)
            if t == a and re.search(r"[A-Za-z]{2}.* {2}| \| ", a):  # a table line: cell by cell
                t = "\n".join(tr(line) if tr(line) != line else _tr_table(line) for line in a.split("\n"))
            return t
        builtins.print(*(one(a) if isinstance(a, str) else a for a in args), **kwargs)

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


# The attention playground: softmax(Q Kᵀ / √d_k / T) recomputed in the browser at
# every slider move, live in Jupyter and in the static HTML book alike (an
# anywidget: its JavaScript travels in the widget's state). Q and K are the first
# n rows and d_k columns of two fixed pools of N(0, 1) numbers, stored as int8
# (value = byte / 32) and rotated by the seed; playground_inputs() gives the same
# Q and K in numpy.
try:
    import anywidget
    import traitlets
except ImportError:  # Colab: !pip install anywidget, then restart the session
    anywidget = None

_POOL_ROWS, _POOL_COLS, _POOL_SCALE = 128, 512, 32


def _pools():
    rng = np.random.default_rng(2024)
    return [np.clip(np.round(rng.standard_normal((_POOL_ROWS, _POOL_COLS)) * _POOL_SCALE), -127, 127)
            .astype(np.int8) for _ in "QK"]


def playground_inputs(n, d_k, seed=0):
    """The playground's Q and K (n, d_k) for a setting, as the page computes them."""
    q, k = _pools()
    rq, rk, c0 = 37 * seed % _POOL_ROWS, 53 * seed % _POOL_ROWS, 101 * seed % _POOL_COLS
    cols = (np.arange(d_k) + c0) % _POOL_COLS
    return (q[(np.arange(n) + rq) % _POOL_ROWS][:, cols] / _POOL_SCALE,
            k[(np.arange(n) + rk) % _POOL_ROWS][:, cols] / _POOL_SCALE)


def playground_numbers(n, d_k, T=1.0, causal=False, seed=0):
    """What the playground shows for a setting, computed here with numpy: the
    largest weight, a row's mean entropy (nats), the spread of the scores Q Kᵀ
    before and after ÷ √d_k."""
    Q, K = playground_inputs(n, d_k, seed)
    S = Q @ K.T
    Z = S / np.sqrt(d_k) / T
    if causal:
        Z = np.where(np.tri(n, dtype=bool), Z, -np.inf)
    A = np.exp(Z - Z.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    H = -np.sum(A * np.log(np.where(A > 0, A, 1)), axis=1).mean()
    sd = S[np.tri(n, dtype=bool)].std() if causal else S.std()  # the scores a query may use
    return {"largest": A.max(), "entropy": H, "sd_raw": sd, "sd_scaled": sd / np.sqrt(d_k)}


_PLAYGROUND_JS = r"""
const MAGMA = [[0,0,4],[28,16,68],[79,18,123],[129,37,129],[181,54,122],[229,80,100],[251,135,97],[254,194,135],[252,253,191]];
function magma(t) {
  const x = Math.min(1, Math.max(0, t)) * (MAGMA.length - 1), i = Math.min(MAGMA.length - 2, Math.floor(x)), f = x - i;
  return MAGMA[i].map((c, j) => Math.round(c + f * (MAGMA[i + 1][j] - c)));
}
function pool(model, name) {
  const v = model.get(name), b = v instanceof DataView ? new Int8Array(v.buffer, v.byteOffset, v.byteLength)
    : new Int8Array(v.buffer || v), s = model.get("scale"), out = new Float64Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b[i] / s;
  return out;
}
export function attention(Qp, Kp, rows, cols, p, cache) {
  // cache (optional): the raw scores of the last call; when only d_k moved, the
  // scores are updated by the columns that came or went (n² per column, not n² d_k)
  const { n, d_k, temperature, causal, seed } = p, A = new Float64Array(n * n);
  const rq = (37 * seed) % rows, rk = (53 * seed) % rows, c0 = (101 * seed) % cols, f = 1 / Math.sqrt(d_k) / temperature;
  const q = (i, c) => Qp[((i + rq) % rows) * cols + (c + c0) % cols], k = (j, c) => Kp[((j + rk) % rows) * cols + (c + c0) % cols];
  const add = (S, from, to, sign) => {   // S += sign · Q[:, from:to] K[:, from:to]ᵀ
    const w = to - from, Q = new Float64Array(n * w), K = new Float64Array(n * w);
    for (let i = 0; i < n; i++) for (let c = 0; c < w; c++) { Q[i * w + c] = q(i, from + c); K[i * w + c] = k(i, from + c); }
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0, a = i * w, b = j * w; c < w; c++) s += Q[a + c] * K[b + c];
      S[i * n + j] += sign * s;
    }
  };
  let S;
  if (cache && cache.S && cache.n === n && cache.seed === seed && Math.abs(cache.d_k - d_k) < d_k / 2) {
    S = cache.S.slice();
    if (d_k > cache.d_k) add(S, cache.d_k, d_k, 1); else if (d_k < cache.d_k) add(S, d_k, cache.d_k, -1);
  } else {
    S = new Float64Array(n * n);
    add(S, 0, d_k, 1);
  }
  if (cache) Object.assign(cache, { S, n, seed, d_k });
  for (let i = 0; i < n; i++) {
    const last = causal ? i + 1 : n;
    let m = -Infinity, z = 0;
    for (let j = 0; j < last; j++) m = Math.max(m, S[i * n + j] * f);
    for (let j = 0; j < last; j++) { const e = Math.exp(S[i * n + j] * f - m); A[i * n + j] = e; z += e; }
    for (let j = 0; j < last; j++) A[i * n + j] /= z;
  }
  return { A, S };
}
const MAGMA_LUT = Array.from({ length: 256 }, (_, i) => magma(i / 255));
function readouts(A, S, n, d_k, causal) {
  let big = 0, at = [0, 0], H = 0, s1 = 0, s2 = 0, cnt = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    const a = A[i * n + j];
    if (a > big) { big = a; at = [i, j]; }
    if (a > 0) H -= a * Math.log(a);
    if (!(causal && j > i)) { s1 += S[i * n + j]; s2 += S[i * n + j] ** 2; cnt++; }
  }
  const sd = Math.sqrt(Math.max(0, s2 / cnt - (s1 / cnt) ** 2));
  return { largest: big, at, entropy: H / n, sd_raw: sd, sd_scaled: sd / Math.sqrt(d_k) };
}
function histogram(ctx, W, H, S, n, d_k, causal, labels, sd) {
  ctx.clearRect(0, 0, W, H);
  const nice = [2, 4, 5, 10, 20, 25, 50, 100], reach = 3.5 * Math.max(1, sd);
  const tick = nice.find(t => 2 * t >= reach) || 100, hi = 2 * tick, lo = -hi, bins = 60;
  const col = getComputedStyle(ctx.canvas).color || "#333";
  const raw = new Array(bins).fill(0), sc = new Array(bins).fill(0);
  const bin = x => Math.min(bins - 1, Math.max(0, Math.floor((x - lo) / (hi - lo) * bins)));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    if (causal && j > i) continue;
    raw[bin(S[i * n + j])]++; sc[bin(S[i * n + j] / Math.sqrt(d_k))]++;
  }
  const top = 30, bottom = H - 30, left = 18, right = W - 18, bw = (right - left) / bins, peak = Math.max(...raw, ...sc, 1);
  [[raw, "rgba(181,54,122,0.55)"], [sc, "rgba(33,145,140,0.55)"]].forEach(([h, c]) => {
    ctx.fillStyle = c;
    h.forEach((v, b) => { const y = (bottom - top) * v / peak; ctx.fillRect(left + b * bw, bottom - y, bw - 1, y); });
  });
  // the page's fonts: in the book they include its own Chinese font (no CJK font needed on the machine)
  ctx.fillStyle = col; ctx.strokeStyle = col; ctx.textAlign = "center";
  ctx.font = "12px " + (getComputedStyle(ctx.canvas).fontFamily || "sans-serif");
  ctx.beginPath(); ctx.moveTo(left, bottom); ctx.lineTo(right, bottom); ctx.stroke();
  for (let x = lo; x <= hi; x += tick) ctx.fillText(String(x), left + (x - lo) / (hi - lo) * (right - left), bottom + 14);
  ctx.fillText(labels.score_axis, (left + right) / 2, H - 2);
  ctx.textAlign = "left";
  ctx.fillStyle = "rgb(181,54,122)"; ctx.fillText("■ " + labels.raw, left, 12);
  ctx.fillStyle = "rgb(33,145,140)"; ctx.fillText("■ " + labels.scaled, left, 26);
}
function render({ model, el }) {
  const labels = model.get("labels"), rows = model.get("rows"), cols = model.get("cols");
  const Qp = pool(model, "q"), Kp = pool(model, "k"), cache = {};
  el.classList.add("attention-playground");
  el.innerHTML = `<style>
.attention-playground { font-size: 14px; line-height: 1.4; max-width: 680px; }
.attention-playground .pg-controls { display: flex; flex-wrap: wrap; gap: 4px 24px; }
.attention-playground label { display: flex; align-items: center; gap: 8px; flex: 1 1 260px; min-width: min(100%, 260px); }
.attention-playground label span { min-width: 6.5em; }
.attention-playground input[type=range] { flex: 1 1 160px; min-width: 160px; touch-action: none; }
.attention-playground output { min-width: 3em; text-align: right; font-variant-numeric: tabular-nums; }
.attention-playground .pg-figs { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin-top: 8px; }
.attention-playground figure { margin: 0; max-width: 256px; }
.attention-playground canvas { max-width: 100%; }
.attention-playground .pg-read { font-variant-numeric: tabular-nums; margin-top: 4px; }
</style><div class="pg-controls"></div><div class="pg-figs"><figure>
<canvas class="pg-heat" width="256" height="256" style="width:256px;height:256px;image-rendering:pixelated"></canvas>
<figcaption class="pg-heat-cap"></figcaption></figure>
<canvas class="pg-hist" style="width:320px;height:200px"></canvas></div><div class="pg-read" aria-live="polite"></div>`;
  const box = el.querySelector(".pg-controls"), inputs = {};
  for (const [name, lo, hi, step] of [["d_k", 1, 512, 1], ["n", 2, rows, 1], ["temperature", 0.05, 3, 0.05], ["seed", 0, 9, 1]]) {
    const lab = document.createElement("label");
    lab.innerHTML = `<span></span><input type="range" min="${lo}" max="${hi}" step="${step}"><output></output>`;
    lab.querySelector("span").textContent = labels[name] || name;
    const inp = lab.querySelector("input");
    inp.value = model.get(name); inp.setAttribute("aria-label", labels[name] || name); inp.dataset.name = name;
    inp.addEventListener("input", () => { model.set(name, Number(inp.value)); model.save_changes(); });
    box.appendChild(lab); inputs[name] = inp;
  }
  const cl = document.createElement("label");
  cl.innerHTML = `<span></span><input type="checkbox" data-name="causal">`;
  cl.querySelector("span").textContent = labels.causal;
  const cb = cl.querySelector("input");
  cb.addEventListener("change", () => { model.set("causal", cb.checked); model.save_changes(); });
  box.appendChild(cl);
  const heat = el.querySelector(".pg-heat"), hctx = heat.getContext("2d"), hist = el.querySelector(".pg-hist");
  const dpr = window.devicePixelRatio || 1;
  hist.width = 320 * dpr; hist.height = 200 * dpr;
  const gctx = hist.getContext("2d"); gctx.scale(dpr, dpr);
  function draw() {
    const t0 = performance.now();
    const p = { n: model.get("n"), d_k: model.get("d_k"), temperature: model.get("temperature"),
      causal: model.get("causal"), seed: model.get("seed") };
    for (const [name, inp] of Object.entries(inputs)) { inp.value = p[name]; inp.nextElementSibling.textContent = p[name]; }
    cb.checked = p.causal;
    const { A, S } = attention(Qp, Kp, rows, cols, p, cache), n = p.n, img = hctx.createImageData(n, n);
    let top = 0; for (let i = 0; i < A.length; i++) top = Math.max(top, A[i]);
    for (let i = 0; i < A.length; i++) {
      const c = MAGMA_LUT[Math.round(255 * A[i] / top)];
      img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
    }
    heat.width = n; heat.height = n; hctx.putImageData(img, 0, 0);
    const r = readouts(A, S, n, p.d_k, p.causal);
    histogram(gctx, 320, 200, S, n, p.d_k, p.causal, labels, r.sd_raw);
    el.querySelector(".pg-heat-cap").textContent = labels.heat.replaceAll("<n>", n).replace("<top>", top.toFixed(2));
    el.querySelector(".pg-read").textContent = labels.readout
      .replace("<largest>", r.largest.toFixed(2)).replace("<i>", r.at[0]).replace("<j>", r.at[1])
      .replace("<entropy>", r.entropy.toFixed(2)).replace("<ln_n>", Math.log(n).toFixed(2))
      .replace("<sd_raw>", r.sd_raw.toFixed(1)).replace("<sd_scaled>", r.sd_scaled.toFixed(2));
    el.__playground = { A, S, params: p, readouts: r, ms: performance.now() - t0 };
  }
  for (const name of ["d_k", "n", "temperature", "causal", "seed"]) model.on(`change:${name}`, draw);
  draw();
  if (document.fonts) document.fonts.ready.then(draw);   // again once the web fonts have loaded
}
export default { render };
"""

if anywidget is not None:
    class _Playground(anywidget.AnyWidget):
        _esm = _PLAYGROUND_JS
        q, k = traitlets.Bytes().tag(sync=True), traitlets.Bytes().tag(sync=True)
        scale, rows, cols = (traitlets.Int(_POOL_SCALE).tag(sync=True), traitlets.Int(_POOL_ROWS).tag(sync=True),
                             traitlets.Int(_POOL_COLS).tag(sync=True))
        d_k, n, seed = traitlets.Int(64).tag(sync=True), traitlets.Int(16).tag(sync=True), traitlets.Int(0).tag(sync=True)
        temperature, causal = traitlets.Float(1.0).tag(sync=True), traitlets.Bool(False).tag(sync=True)
        labels = traitlets.Dict().tag(sync=True)

        def __repr__(self):
            return f"attention playground (d_k={self.d_k}, n={self.n})"


def playground(d_k=64, n=16, temperature=1.0, causal=False, seed=0):
    """Show the attention playground: sliders for d_k (1-512), n (2-128), the
    temperature T, a causal mask and a seed; the weights A = softmax(Q Kᵀ / √d_k / T)
    as a heat map, the scores before and after ÷ √d_k, the largest weight and a
    row's mean entropy, all recomputed in the browser (no kernel needed).
    Returns the widget (set w.d_k = 128 from Python), or None without anywidget."""
    if anywidget is None or widgets is None:
        print(tr("The playground needs the anywidget package: `pip install anywidget` "
                 "(on Colab: run `!pip install anywidget` in a cell, then restart the session)."))
        return None
    q, k = _pools()
    labels = {"d_k": "d_k", "n": "n", "temperature": tr("temperature T"), "seed": tr("seed"),
              "causal": tr("causal mask"), "raw": tr("scores Q Kᵀ"), "scaled": tr("scores Q Kᵀ / √d_k"),
              "score_axis": tr("score"), "heat": tr("A: <n> × <n>; rows: query i, columns: key j (brightest: <top>)"),
              "readout": tr("largest weight <largest> at (<i>, <j>); mean entropy of a row <entropy> "
                            "(uniform: <ln_n>); spread of the scores <sd_raw> → <sd_scaled> after ÷ √d_k")}
    w = _Playground(q=q.tobytes(), k=k.tobytes(), d_k=d_k, n=n, temperature=temperature, causal=causal,
                    seed=seed, labels=labels)
    if STATIC:  # the PDF book: a sentence instead of the interactive widget
        return _printed(w, **{"text/markdown": _md(tr("(The attention playground is interactive: "
                                                       "open the HTML book or the notebook.)"))})
    return w
