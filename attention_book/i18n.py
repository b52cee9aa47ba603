"""The translation runtime: text that the book's code makes, in the reader's language.

The Chinese edition's notebooks (zh/notebooks/, written by tools/i18n.py from
the gettext catalogs in locales/zh_CN/) have the same code cells as the English
ones. Right after the setup cell, one hidden cell calls

    print = use_language("zh_CN", {English: Chinese, ...})

and from then on the text the code makes appears in Chinese, with no change to
the chapter's code. The rules:

- **What is translated**: the strings given to `tr()`; what `quiz`, `feedback`,
  `rounded`, `describe` and `glue` (a text value) show; every string argument of
  `print` (the translating `print` that `use_language` returns); and every text
  of a matplotlib figure at the moment it is drawn (titles, labels, legends,
  tick labels given as words, annotations). Numbers, code and math are not.
- **How a message is found**, in order: the exact English text; the text with
  its padding stripped (`f"{name:16s}"`: the translation is padded to the same
  width on screen); a *template* — an English f-string with `{fields}`, as the
  chapter wrote it (`"weight on cat: {share:.2f}"`) — whose literal parts match,
  the matched fields put into the translation's fields (a field's own text is
  translated too when it is a message); a printed table line that is no message
  as a whole, translated cell by cell (cells are separated by two spaces or
  ` | `) with the columns kept aligned. Anything else stays as it is.
- **Widths**: a translation with Chinese characters is a `str` that pads by the
  columns it takes on screen (Chinese characters take two), so tables line up.
- **Where messages come from**: tools/i18n.py collects every string passed to a
  call that shows text (its `SINKS`: print, quiz, set_title, ...) and every
  text marked with `N_()`, into the chapter's catalog (msgctxt "code"), and
  this package's own words into locales/zh_CN/setup.po.
- **Figures on a machine with no CJK font**: they stay in English rather than
  draw boxes (the book ships its own font, so this is rare).

In English nothing is wrapped: `tr()` returns its argument unchanged.
"""
import builtins
import re
import unicodedata

LANGUAGE = None      # "zh_CN" in the Chinese edition, None in English
MESSAGES = {}        # English -> translation
_compiled = []
_TOKEN = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def use_language(language, messages):
    """Translate from now on: `language` (e.g. "zh_CN") and its messages
    {English: translation}. Returns the translating `print`, for the notebook
    to use as its own (`print = use_language(...)`)."""
    global LANGUAGE
    LANGUAGE = language
    MESSAGES.clear()
    MESSAGES.update(messages or {})
    _compiled.clear()
    if MESSAGES:
        _install_figure_hook()
        return translated_print
    return builtins.print


def _compile():
    """Each message with {fields} as (regex, fields, translation), most literal text first.
    A field matches any text; {{ and }} are literal braces."""
    for english, translation in MESSAGES.items():
        if not _TOKEN.search(english):
            continue
        regex, fields, at = "", [], 0
        for m in _TOKEN.finditer(english):
            regex += re.escape(english[at:m.start()])
            if m.group() in ("{{", "}}"):
                regex += re.escape(m.group()[0])
            else:
                regex += "(.*?)"
                fields.append(m.group())
            at = m.end()
        regex += re.escape(english[at:])
        _compiled.append((re.compile(regex + r"\Z", re.S), fields, translation))
    _compiled.sort(key=lambda t: -len(re.sub(r"\(\.\*\?\)|\\", "", t[0].pattern)))


def tr(text):
    """`text` in the notebook's language: an exact translation, else a template
    ("weight on cat: {share:.2f}") whose literal parts match, its fields put into
    the translation's same fields (each field's text translated too, if it is a
    message: 'right' / 'wrong'). English, or no translation: `text` itself.
    A translation with Chinese characters pads by its width on screen (f"{tr(name):16s}")."""
    out = _tr_plain(text)
    return Wide(out) if isinstance(out, str) and out is not text and width(out) != len(out) else out


class Wide(str):
    """A text padded by the columns it takes on screen in a format spec: Chinese characters take two."""
    def __format__(self, spec):
        m = re.fullmatch(r"(?:(.)?([<>^]))?(\d+)s?", spec)
        if not m:
            return format(str(self), spec)
        fill, align, columns = m.group(1) or " ", m.group(2) or "<", int(m.group(3))
        pad = max(0, columns - width(self))
        left = {"<": 0, ">": pad, "^": pad // 2}[align]
        return fill * left + str(self) + fill * (pad - left)


def _tr_plain(text):
    """tr() without the padding by width."""
    if not MESSAGES or not isinstance(text, str):
        return text
    hit = MESSAGES.get(text)
    if hit is not None:
        return hit
    if not re.search("[A-Za-z]", text):
        return text
    core = text.strip()
    if core != text and core in MESSAGES:  # a padded name: f"{name:16s}", padded to the same width on screen
        new = MESSAGES[core]
        lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        extra = width(new) - len(core)
        if trail:
            trail = " " * max(1, len(trail) - extra)
        elif lead:
            lead = " " * max(1, len(lead) - extra)
        return lead + new + trail
    if not _compiled:
        _compile()
    for regex, fields, translation in _compiled:
        m = regex.match(text)
        if m and regex.pattern.endswith("(.*?)\\Z") and re.search(r"\S {4,}\S", m.group(len(fields))):
            continue  # a last field that took a table's padding and columns: the line is translated cell by cell
        if m:
            values = {f: v.replace(v.strip(), tr(v.strip()) if len(v) < len(text) else v.strip())
                      for f, v in zip(fields, m.groups())}  # padded names, and messages made by other templates
            return _TOKEN.sub(lambda t: t.group()[0] if t.group() in ("{{", "}}") else values.get(t.group(), t.group()),
                              translation)
    return text


_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULL = {",": "，", ":": "：", ";": "；", "?": "？", "!": "！"}
_AFTER_HAN = re.compile(f"(?<=[{_HAN}])([,:;?!])(?: (?=\\S))?")
_BEFORE_HAN = re.compile(f"([,;:]) ?(?=[{_HAN}])")
_PARAMS = re.compile(r"(?<=\S), (?=[A-Za-z_\\][\w\\^{}]* = )")


def typeset(text):
    """What the code composes of translated pieces, with the Chinese edition's punctuation:
    a comma, colon, semicolon, ? or ! beside a Chinese character is full-width ("种子 0：98%，种子 1"),
    and so is the comma between the settings of a parameter list ("d_k = 8，n = 16").
    ", " and ": " become one full-width mark, so a printed table keeps its columns."""
    if not MESSAGES or not isinstance(text, str) or LANGUAGE != "zh_CN":
        return text
    text = _AFTER_HAN.sub(lambda m: _FULL[m.group(1)], text)
    text = _BEFORE_HAN.sub(lambda m: _FULL[m.group(1)], text)
    return _PARAMS.sub("，", text)


def width(text):
    """Columns `text` takes in a fixed-width font: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def tr_table(line):
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
            extra += width(new) - width(part)
            out.append(new)
    return "".join(out)


def N_(text):
    """Marks a text for translation where it is made (tools/i18n.py collects it); tr() translates it later."""
    return text


def translated_print(*args, **kwargs):
    """print() translating its string arguments: the chapters print sentences,
    and this keeps their code the same in every language."""
    def one(a):
        t = tr(a)
        if t == a and re.search(r"[A-Za-z]{2}.* {2}| \| ", a):  # a table line: cell by cell
            t = "\n".join(tr(line) if tr(line) != line else tr_table(line) for line in a.split("\n"))
        return typeset(t)
    args = [one(a) if isinstance(a, str) else a for a in args]
    if LANGUAGE == "zh_CN" and "sep" not in kwargs and len(args) > 1:   # "输出：" then a value: no space after ：
        text = str(args[0])
        for a in args[1:]:
            text += ("" if re.search("[：，；。）]$", text) else " ") + str(a)
        args = [text]
    builtins.print(*args, **kwargs)


def say(*args, **kwargs):
    """The package's own print: translated when a language is in use."""
    (translated_print if MESSAGES else builtins.print)(*args, **kwargs)


def _install_figure_hook():
    """Every text of a figure in the notebook's language, just before it is drawn."""
    import matplotlib as mpl
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    from . import style
    if getattr(Figure.draw, "book_translated", False):
        return

    def translated(draw):
        def draw_translated(self, renderer):
            """(where no CJK font can be had, figures stay in English, not boxes)"""
            on = bool(MESSAGES) and bool(style.CJK_FONT)
            for ax in self.axes if on else ():
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
            for text in self.findobj(Text) if on else ():
                s = text.get_text()
                if s and re.search("[A-Za-z]", s):
                    s = tr(s)
                    text.set_text(s)
                if s and typeset(s) != s:
                    text.set_text(typeset(s))
            return draw(self, renderer)
        draw_translated.book_translated = True
        return draw_translated
    Figure.draw = translated(Figure.draw)
