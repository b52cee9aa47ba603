"""The Chinese edition: gettext catalogs in locales/zh_CN/ that generate zh/.

    python tools/i18n.py extract [NAME..]   # refresh the catalogs (or those whose path has NAME)
    python tools/i18n.py build              # write zh/_toc.yml, zh/notebooks/*.ipynb, zh/book/*.md
    python tools/i18n.py check              # fail on untranslated, fuzzy or broken messages
    python tools/i18n.py status             # coverage per catalog, untranslated and fuzzy listed
    python tools/i18n.py import-json PO JSON  # {cell id: translation} into a chapter's catalog

Catalogs (polib; any PO editor opens them):
- locales/zh_CN/notebooks/NN_name.po, one per chapter: one message per Markdown
  cell (msgctxt = the cell id, msgid = the whole cell) and one per text that the
  chapter's code makes (msgctxt "code", msgid = the English string or f-string
  template, e.g. "weight on cat patches: {a[cat].sum():.2f}"; the translation
  uses the same {fields}, in any order); and one per comment in a code cell the
  reader sees (not the setup cell, figure code or carried-over code: msgctxt
  "comment", msgid = the comment's text after "# "). The Chinese code cell is the
  English one with its comments translated: the code itself is identical.
- locales/zh_CN/book/<page>.po: one message per top-level Markdown block
  (msgctxt = the section's anchor and the block's number in it); the glossary
  one message per term (msgctxt "term: <English headword>").
- A chapter's exercise checks live in the package (attention_book/exercises/chNN.py,
  imported by a hidden cell of the chapter): their texts are the chapter's code
  messages all the same, in its catalog.
- locales/zh_CN/setup.po: the package's own words (attention_book/: quiz marks,
  feedback, alt-text words, the playground's labels), the setup cell's comments
  and the code prompts ("Show the figure code").
- locales/zh_CN/_toc.po: the book title and the part captions.

`extract` keeps every translation: a changed English text makes its message
`#, fuzzy` with the old English kept (`#| msgid`); a vanished one becomes
obsolete (`#~`), and its translation is reused if the same English comes back.

`build` publishes a chapter or page only when its catalog (and, for chapters,
setup.po) is complete and has nothing fuzzy: the Chinese edition never shows a
half-English page. Code cells are copied with only their comments translated; one hidden cell right
after the setup cell sets BOOK_LANGUAGE and BOOK_MESSAGES and calls
`print = use_language(...)`, with which the package's tr() translates the text
code makes (attention_book/i18n.py states the rules).
"""
import ast
import copy
import json
import re
import sys
from pathlib import Path

import nbformat
import polib
import yaml

ROOT = Path(__file__).resolve().parents[1]
LANG = "zh_CN"
LOCALES = ROOT / "locales" / LANG
OUT = ROOT / "zh"
PACKAGE = ROOT / "attention_book"
# the package's own words (quiz marks, feedback, alt-text words, the playground's
# labels): setup.po; the chapters' modules (chNN.py) are their chapters' code
PACKAGE_SOURCES = [PACKAGE / f"{m}.py" for m in ("i18n", "style", "figures", "course", "playground", "model_lab", "book")]
sys.path.insert(0, str(ROOT / "tools"))
import nbtools  # noqa: E402  (the setup cell's source)
import zh_style  # noqa: E402  (the Chinese edition's typography)


def package_texts():
    """Every text the package's own code shows (translated through setup.po)."""
    return [t for path in PACKAGE_SOURCES for t in code_texts(path.read_text(), everything=True)]

# Calls whose string arguments are text a reader sees (figure texts, quizzes,
# exercise messages, printed sentences). One list, used by `extract`; the setup
# cell translates the same texts at run time (quiz, feedback, rounded, print,
# and every matplotlib Text when a figure is drawn).
SINKS = {"quiz", "feedback", "rounded", "print", "tr", "N_",
         "set_title", "set_xlabel", "set_ylabel", "suptitle", "supxlabel", "supylabel",
         "text", "annotate", "legend", "set_text", "set", "colorbar",
         "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels", "table"}
SINK_KEYWORDS = {"label", "title", "xlabel", "ylabel", "otherwise", "question", "options",
                 "explanations"}
# Pages whose numbers are measurements (rewritten by `make bench`): their
# messages are templates with the numbers as fields, so a new measurement does
# not make the translation out of date.
MEASURED_PAGES = {"speed-results"}

HEADER = {"Project-Id-Version": "attention-book", "Language": LANG,
          "MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
          "Content-Transfer-Encoding": "8bit"}


# ----------------------------------------------------------------- sources
def toc():
    return yaml.safe_load((ROOT / "_toc.yml").read_text())


def toc_files():
    t = toc()
    files = [t["root"]]
    for part in t["parts"]:
        files += [c["file"] for c in part["chapters"]]
    return files


def chapters():
    return [ROOT / (f + ".ipynb") for f in toc_files() if f.startswith("notebooks/")]


def pages():
    found = [ROOT / (f + ".md") for f in toc_files() if f.startswith("book/")]
    for page in list(found):  # pages pulled in by {include}
        for inc in re.findall(r"```\{include\}\s+(\S+)", page.read_text()):
            found.append(page.parent / inc)
    return found


def catalog_path(source):
    rel = source.relative_to(ROOT).with_suffix(".po")
    return LOCALES / rel


def is_prose(text):
    """Worth translating: has a word (two letters), is not just an identifier or math."""
    t = re.sub(r"\$[^$]*\$|`[^`]*`|\{[^{}]*\}", " ", text)
    words = re.findall(r"[A-Za-z][A-Za-z']+", t)
    if not words:
        return False
    return not re.fullmatch(r"\s*[\w.\[\]()]*\s*", text) or (
        "_" not in text and not any(c.isdigit() for c in text) and text.strip().isalpha())


# --- code: texts made by the chapter's code, collected by AST
def _field(node):
    """The source of one f-string field, as written: {expr}, {expr!r}, {expr:fmt}."""
    conv = {-1: "", 115: "!s", 114: "!r", 97: "!a"}[node.conversion]
    spec = ""
    if node.format_spec is not None:
        spec = ":" + "".join(v.value if isinstance(v, ast.Constant) else _field(v)
                             for v in node.format_spec.values)
    return "{" + ast.unparse(node.value) + conv + spec + "}"


def template(node):
    """A string constant or f-string as a template (literal braces doubled); None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value.replace("{", "{{").replace("}", "}}") if isinstance(v, ast.Constant)
                       else _field(v) for v in node.values)
    return None


def _strings(node, found):
    """Strings in a sink's argument: through lists, tuples, lambdas, conditionals and
    f-string fields, but not into other calls (NAMES.index("sun") is no text)."""
    t = template(node)
    if t is not None:
        found.append(t)
        if isinstance(node, ast.JoinedStr):  # words chosen inside a field: {'right' if ok else 'wrong'}
            for v in node.values:
                if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.IfExp):
                    _strings(v.value.body, found)
                    _strings(v.value.orelse, found)
        return
    if isinstance(node, ast.Call):
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.expr, ast.keyword, ast.arguments, ast.comprehension)):
            _strings(child, found)


# Keyword arguments whose string values are settings, not text (matplotlib,
# numpy, the standard library): never collected as prose.
SETTING_KEYWORDS = {"color", "c", "colors", "cmap", "ha", "va", "horizontalalignment",
                    "verticalalignment", "loc", "layout", "ls", "linestyle", "marker", "fmt",
                    "interpolation", "aspect", "origin", "dtype", "mode", "family", "fontfamily",
                    "fontweight", "weight", "style", "fontstyle", "rotation_mode", "bbox_to_anchor",
                    "arrowprops", "boxstyle", "connectionstyle", "arrowstyle", "edgecolor", "ec",
                    "facecolor", "fc", "mec", "mfc", "linecolor", "hatch", "capstyle", "joinstyle",
                    "drawstyle", "where", "orientation", "histtype", "align", "scale", "norm",
                    "shading", "extend", "side", "which", "axis", "kind", "method", "order",
                    "casting", "sep", "end", "encoding", "errors", "format", "bbox_inches", "textcoords",
                    "xycoords", "coords", "units", "key", "name", "tag", "kind_name",
                    "multialignment", "transform", "clip_on", "zorder", "label_mode", "ord"}
# Setting values that contain a space (legend places, font names): not text.
SETTING_VALUES = {"upper right", "upper left", "lower left", "lower right", "center left",
                  "center right", "lower center", "upper center", "DejaVu Sans", "square,pad=0.3",
                  "round,pad=0.3", "round,pad=0.2", "round,pad=0.4"}
# Calls whose string arguments are code, not text (einsum subscripts, regexes, paths).
CODE_CALLS = {"einsum", "compile", "match", "search", "sub", "fullmatch", "findall", "split",
              "Path", "open", "getattr", "setattr", "hasattr", "astype", "dtype", "index",
              "startswith", "endswith", "replace", "strip", "rstrip", "lstrip", "glob", "rglob",
              "add_subplot", "subplot_mosaic", "register_cmap", "get_cmap", "colormaps",
              "assertRaises", "environ", "AssertionError", "warn", "filterwarnings", "join",
              "format"}


def is_code_prose(text):
    """A string constant of a code cell that reads as text: a word of two letters and a
    space between words (a sentence, a label, a title), not a setting or a format."""
    t = re.sub(r"\{[^{}]*\}", " ", text).strip()
    if text.strip() in SETTING_VALUES or not re.search("[A-Za-z]{2}", t):
        return False
    if not re.search(r"\S\s+\S", re.sub(r"\{[^{}]*\}", "x", text)):  # one token (a field counts as a word)
        return False
    if re.fullmatch(r"[-.:o^sd*+x|/\\ ]+", t) or re.fullmatch(r"[\w,.]+->[\w,.]+", t.replace(" ", "")):
        return False  # line styles, einsum subscripts
    return is_prose(text)


def prose_constants(tree):
    """Prose-like string constants and f-strings anywhere in the code (not docstrings,
    not setting keywords, not arguments of calls that take code), in source order."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skip.add(id(body[0].value))
        elif isinstance(node, ast.keyword) and node.arg in SETTING_KEYWORDS:
            skip.update(id(n) for n in ast.walk(node.value))
        elif isinstance(node, ast.Call) and _name(node.func) in CODE_CALLS:
            for a in node.args + ([node.func.value] if isinstance(node.func, ast.Attribute) else []):
                skip.update(id(n) for n in ast.walk(a))   # "the cat sat".split(), re.sub(...)
        elif isinstance(node, ast.Call) and _name(node.func) == "glue" and node.args:
            skip.update(id(n) for n in ast.walk(node.args[0]))  # the glue key, not its value
        elif isinstance(node, ast.Assert) and node.msg is not None:
            skip.update(id(n) for n in ast.walk(node.msg))
        elif isinstance(node, ast.JoinedStr):  # its parts belong to the template
            for v in node.values:
                if isinstance(v, ast.Constant):
                    skip.add(id(v))
                elif v.format_spec is not None:
                    skip.update(id(n) for n in ast.walk(v.format_spec))
    out = []
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Constant, ast.JoinedStr))]
    nodes.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    for node in nodes:
        if id(node) in skip:
            continue
        t = template(node)
        literal = t if isinstance(node, ast.Constant) else " ".join(
            v.value for v in node.values if isinstance(v, ast.Constant))
        if t is not None and re.search("[A-Za-z]{2}", literal) and is_code_prose(t):
            out.append(t)
    return out


SYMBOL = re.compile(r"[A-Za-z](_[A-Za-z0-9]+)?")   # d_k, n, b_f: a formula's symbol


def slider_label(name):
    """A slider's name as the reader sees it (the same rule as the setup cell's
    slider_label): formula symbols as they are (d_k, n, b_f), other names in
    words (norm_spread -> "norm spread")."""
    return name if SYMBOL.fullmatch(name) else name.replace("_", " ")


def _name(func):
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def code_texts(source, everything=False):
    """Every text a reader may see that this code makes, in order, without repeats
    (everything: also the setup cell's short ones, such as "x: {label}")."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found, forced = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "N_" and not everything:  # marked by hand: always a message (" e.g.", "yes")
                marked = []
                for arg in node.args:
                    _strings(arg, marked)
                found += [t for t in marked if re.search("[A-Za-z]", t)]
                forced.update(marked)
            elif name == "sliders":  # slider names shown in words (setup cell: slider_label)
                for kw in node.keywords:
                    if kw.arg not in ("start", "figsize") and not SYMBOL.fullmatch(kw.arg):
                        found.append(slider_label(kw.arg))
                        forced.add(slider_label(kw.arg))
                    if kw.arg not in ("start", "figsize") and isinstance(kw.value, ast.List):
                        words = [e.value for e in kw.value.elts  # values in words: "fur", "sky"
                                 if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                        found += words
                        forced.update(words)
            elif name in SINKS:
                for arg in node.args:
                    _strings(arg, found)
                for kw in node.keywords:
                    if name != "set" or kw.arg in ("title", "xlabel", "ylabel"):
                        if kw.arg in SINK_KEYWORDS or name in ("quiz", "feedback", "N_", "tr"):
                            _strings(kw.value, found)
            else:
                for kw in node.keywords:
                    if kw.arg in SINK_KEYWORDS:
                        _strings(kw.value, found)
    # texts made in one place and shown in another: labels in a list, dict or
    # zip(...), names in a variable, f-string titles passed to a helper, error
    # messages printed later. Every prose-like string constant of the cell is
    # collected (prose_constants); single words are marked N_("yes") by hand.
    if not everything:
        found += prose_constants(tree)
    out = []
    for t in found:
        if t not in out and (is_prose(t) or t in forced or everything and len(re.findall(
                "[A-Za-z]", re.sub(r"\{[^{}]*\}", "", t))) > 0 and len(t.strip()) > 1):
            out.append(t)
    return out


def exercise_modules(source):
    """The modules of attention_book/exercises/ that a code cell imports: a chapter's
    exercise checks, written in the package, whose messages are the chapter's own
    (its catalog holds them, msgctxt "code", as it did when they were in a cell)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [PACKAGE / "exercises" / (node.module.rsplit(".", 1)[1] + ".py") for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attention_book.exercises.")]


HIDDEN_CODE = {"book-setup", "figure-code", "carried-over", "hide-input", "remove-input", "remove-cell"}
_KEEP_COMMENT = re.compile(r"^(noqa\b|type:|pragma\b|fmt:|@save$)")


def reader_code(cell):
    """A code cell whose source the reader sees as they read (not folded or removed)."""
    return cell.cell_type == "code" and not HIDDEN_CODE & set(cell.metadata.get("tags", []))


def _comments(source):
    """(line index, column, text) of every comment of `source`; lines that are
    IPython commands (!pip, %time) are skipped."""
    import io
    import tokenize
    lines = source.split("\n")
    plain = "\n".join("" if l.lstrip().startswith(("!", "%")) else l for l in lines)
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(plain).readline):
            if tok.type == tokenize.COMMENT:
                text = re.sub(r"^#+\s?", "", tok.string).rstrip()
                out.append((tok.start[0] - 1, tok.start[1], text))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return out


def code_comments(source):
    """The comments of a code cell as messages, in order, without repeats."""
    out = []
    for _, _, text in _comments(source):
        if text not in out and re.search("[A-Za-z]", text) and not _KEEP_COMMENT.match(text):
            out.append(text)
    return out


def translate_comments(source, messages):
    """`source` with each comment's text replaced by its translation in `messages`
    ({English: Chinese}); the code itself, and comments without one, unchanged."""
    lines = source.split("\n")
    for row, col, text in reversed(_comments(source)):
        if text in messages:
            head = re.match(r"#+\s?", lines[row][col:]).group()
            lines[row] = lines[row][:col] + head + messages[text]
    return "\n".join(lines)


def strip_comments(source):
    """`source` without its comments and trailing spaces: what the two editions share."""
    lines = source.split("\n")
    for row, col, _ in reversed(_comments(source)):
        lines[row] = lines[row][:col]
    return "\n".join(l.rstrip() for l in lines)


# --- pages: top-level Markdown blocks
def slug(text):
    text = re.sub(r"[^\w\s-]", "", text.lower(), flags=re.U)
    return re.sub(r"[\s_]+", "-", text).strip("-") or "top"


def blocks(text):
    """Top-level blocks separated by blank lines; a fenced block (``` or :::) stays whole."""
    out, cur, fence = [], [], None
    for line in text.splitlines():
        s = line.strip()
        if fence:
            cur.append(line)
            if s.startswith(fence) and s.strip(fence[0]) == "":
                fence = None
            continue
        m = re.match(r"^(`{3,}|:{3,})", s)
        if m:
            fence = m.group(1)
            cur.append(line)
            continue
        if not s:
            if cur:
                out.append("\n".join(cur))
                cur = []
        else:
            cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def glossary_terms(block):
    """A ```{glossary} block as (opening, [term entries], closing)."""
    lines = block.splitlines()
    body = lines[1:-1]
    terms, cur = [], []
    for line in body:
        if line and not line.startswith(" ") and cur:
            terms.append("\n".join(cur).strip("\n"))
            cur = []
        if line.strip() or cur:
            cur.append(line)
    if cur:
        terms.append("\n".join(cur).strip("\n"))
    return lines[0], terms, lines[-1]


NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?:e[-+]?\d+)?(?![\w])")  # 3, 0.25, 3.11.7, 1.3e-07


def mask_numbers(text):
    """A measured text as a template: each number becomes a field {0}, {1}, ..."""
    values = []

    def sub(m):
        values.append(m.group())
        return "{%d}" % (len(values) - 1)
    return NUMBER.sub(sub, text.replace("{", "{{").replace("}", "}}")), values


def is_data_row(row):
    """A table row of measurements whose first cell is a file, chapter or page name."""
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return bool(re.fullmatch(r"[\w./-]*[_/.][\w./-]*", cells[0])) or set(row) <= set("|-: ")


def row_cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def page_walk(path):
    """A page's blocks in order, each as (key, kind, text), the one place where a
    page is cut into catalog messages (extract and build both read it):

    - "glossary": the glossary block (its terms are keyed "term: <headword>");
    - "verbatim": an include or bibliography, kept as it is;
    - "block": a Markdown block, key "<section>/<n>";
    - "template": a block of a measured page, translated with its numbers masked;
    - "table": a table of a measured page; text is its rows as (key, row), key None
      for a data row (whose word cells are translated one by one).
    """
    measured = path.stem in MEASURED_PAGES
    section, n = "top", 0
    for block in blocks(path.read_text()):
        h = re.match(r"^(?:\([\w-]+\)=\n)?#+\s+(.*)", block)
        if h:
            section, n = slug(h.group(1)), 0
        if block.startswith("```{glossary}"):
            yield None, "glossary", block
        elif block.startswith("```{include}") or block.startswith("```{bibliography}"):
            yield None, "verbatim", block
        elif measured and block.lstrip().startswith("|"):
            rows = []
            for row in block.splitlines():
                if is_data_row(row):
                    rows.append((None, row))
                else:
                    n += 1
                    rows.append((f"{section}/{n}", row))
            yield None, "table", rows
        else:
            n += 1
            yield f"{section}/{n}", "template" if measured else "block", block


def term_key(term):
    return f"term: {term.splitlines()[0].strip()}"


def page_units(path):
    """(key, kind, English) for every translatable unit of a page, in order.

    kind: "block" (a Markdown block), "term" (a glossary entry), "template" (a
    measured block or table row, numbers masked), "cell" (a word in a data row).
    """
    units = []
    for key, kind, text in page_walk(path):
        if kind == "glossary":
            units += [(term_key(term), "term", term) for term in glossary_terms(text)[1]]
        elif kind == "table":
            for row_key, row in text:
                if row_key is None:
                    units += [("cell", "cell", c) for c in row_cells(row)[1:]
                              if re.fullmatch(r"[A-Za-z][A-Za-z ]*", c)]
                else:
                    units.append((row_key, "template", mask_numbers(row)[0]))
        elif kind == "template":
            units.append((key, kind, mask_numbers(text)[0]))
        elif kind == "block":
            units.append((key, kind, text))
    return units


# ----------------------------------------------------------------- extract
def load(path):
    if path.exists():
        return polib.pofile(str(path), wrapwidth=0)
    po = polib.POFile(wrapwidth=0)
    po.metadata = dict(HEADER)
    return po


def merge(path, wanted):
    """Make catalog `path` hold exactly `wanted` [(msgctxt, msgid, occurrence)],
    keeping translations: a changed msgid becomes fuzzy (old one kept as #| msgid),
    a vanished entry obsolete; an obsolete or moved translation of the same English
    is reused."""
    po = load(path)
    old = {(e.msgctxt, e.msgid): e for e in po}
    by_ctxt = {}
    for e in po:
        if not e.obsolete:
            by_ctxt.setdefault(e.msgctxt, []).append(e)
    by_msgid = {}
    for e in po:
        if e.msgstr and "fuzzy" not in e.flags:
            by_msgid.setdefault(e.msgid, e)
    new = polib.POFile(wrapwidth=0)
    new.metadata = po.metadata or dict(HEADER)
    seen, reused = set(), set()
    for ctxt, msgid, where in wanted:
        if (ctxt, msgid) in seen:
            continue
        seen.add((ctxt, msgid))
        e = old.get((ctxt, msgid))
        if e is not None:
            e = copy.copy(e)
            e.obsolete = False
        elif msgid in by_msgid:  # same English elsewhere (moved, or came back)
            src = by_msgid[msgid]
            e = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=src.msgstr)
        elif ctxt in by_ctxt and ctxt not in ("code", "comment", "cell") and by_ctxt[ctxt][0].msgstr:
            src = by_ctxt[ctxt][0]  # the English changed: keep the translation, mark fuzzy
            reused.add((src.msgctxt, src.msgid))
            e = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=src.msgstr, flags=["fuzzy"],
                              previous_msgid=src.previous_msgid if "fuzzy" in src.flags and
                              src.previous_msgid else src.msgid)
        else:
            e = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr="")
        e.occurrences = [where] if where else []
        new.append(e)
    for e in po:
        if (e.msgctxt, e.msgid) not in seen | reused and e.msgstr:
            e = copy.copy(e)
            e.obsolete = True
            e.occurrences = []
            new.append(e)
    path.parent.mkdir(parents=True, exist_ok=True)
    new.save(str(path))
    return new


def setup_cells():
    return [c for c in nbformat.read(chapters()[0], as_version=4).cells
            if "book-setup" in c.metadata.get("tags", [])]


def extract(only=()):
    """Refresh every catalog (or those whose path contains one of `only`)."""
    def wanted_here(path):
        return not only or any(o in str(path) for o in only)
    for nb_path in [c for c in chapters() if wanted_here(catalog_path(c))]:
        nb = nbformat.read(nb_path, as_version=4)
        wanted = []
        for i, cell in enumerate(nb.cells):
            where = (nb_path.name, str(i))
            if cell.cell_type == "markdown":
                wanted.append((cell.id, cell.source, where))
            elif cell.cell_type == "code" and "book-setup" not in cell.metadata.get("tags", []):
                wanted += [("code", t, where) for t in code_texts(cell.source)]
                for module in exercise_modules(cell.source):   # the chapter's checks, kept in the package
                    wanted += [("code", t, (module.relative_to(ROOT).as_posix(), ""))
                               for t in code_texts(module.read_text())]
                if reader_code(cell):
                    wanted += [("comment", t, where) for t in code_comments(cell.source)]
        merge(catalog_path(nb_path), wanted)
    # the setup cell's own words and the code prompts, shared by every chapter
    wanted = [("code", t, ("attention_book", "")) for t in package_texts()]
    setup_variants = nbtools.setup_source() + "\n" + (ROOT / "tools" / "setup_cell.py").read_text()  # with a repository or not
    wanted += [("comment", t, ("setup cell", "")) for t in dict.fromkeys(code_comments(setup_variants))]
    prompts = []
    for nb_path in chapters():
        for cell in nbformat.read(nb_path, as_version=4).cells:
            for k in ("code_prompt_show", "code_prompt_hide"):
                p = cell.metadata.get("mystnb", {}).get(k)
                if p and p not in prompts:
                    prompts.append(p)
    wanted += [("prompt", p, None) for p in prompts]
    if wanted_here(LOCALES / "setup.po"):
        merge(LOCALES / "setup.po", wanted)
    for page in [p for p in pages() if wanted_here(catalog_path(p))]:
        merge(catalog_path(page), [(k, text, None) for k, kind, text in page_units(page)])
    t = toc()
    wanted = [("title", yaml.safe_load((ROOT / "_config.yml").read_text())["title"], None)]
    wanted += [("caption", p["caption"], None) for p in t["parts"]]
    if wanted_here(LOCALES / "_toc.po"):
        merge(LOCALES / "_toc.po", wanted)
    print(status(quiet=True))


# ----------------------------------------------------------------- status
def catalogs():
    return sorted(LOCALES.rglob("*.po"))


def problems(po):
    live = [e for e in po if not e.obsolete]
    return ([e for e in live if not e.msgstr], [e for e in live if "fuzzy" in e.flags], live)


def complete(path):
    if not path.exists():
        return False
    untranslated, fuzzy, _ = problems(load(path))
    return not untranslated and not fuzzy


def status(quiet=False):
    lines = []
    for path in catalogs():
        untranslated, fuzzy, live = problems(load(path))
        done = len(live) - len(untranslated) - len(fuzzy)
        pct = 100 * done / len(live) if live else 100
        lines.append(f"{pct:5.1f}%  {done:4d}/{len(live):<4d} {len(fuzzy):3d} fuzzy  "
                     f"{path.relative_to(ROOT)}")
        if not quiet:
            for e in fuzzy + untranslated:
                kind = "fuzzy" if e in fuzzy else "untranslated"
                first = e.msgid.splitlines()[0][:70] if e.msgid else ""
                lines.append(f"        {kind:12s} [{e.msgctxt}] {first}")
    return "\n".join(lines)


# ----------------------------------------------------------------- build
def translations(path):
    """{(msgctxt, msgid): msgstr} of the finished messages of a catalog."""
    if not path.exists():
        return {}
    return {(e.msgctxt, e.msgid): e.msgstr for e in load(path)
            if not e.obsolete and e.msgstr and "fuzzy" not in e.flags}


def glossary_map():
    """English headword -> Chinese headword, from the glossary's catalog."""
    out = {}
    for (ctxt, msgid), msgstr in translations(LOCALES / "book" / "glossary.po").items():
        if ctxt and ctxt.startswith("term: "):
            out[ctxt[6:].replace("$", "")] = msgstr.splitlines()[0].strip().replace("$", "")
    return out


def labels_by_doc():
    """Every label / document name -> the English document (notebooks/NN or book/x)."""
    out = {}
    for f in toc_files():
        path = ROOT / (f + (".ipynb" if f.startswith("notebooks/") else ".md"))
        if path.suffix == ".ipynb":
            text = "\n\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                               if c.cell_type == "markdown")
        else:
            text = path.read_text()
        out[Path(f).name] = f
        for lab in re.findall(r"^\(([\w-]+)\)=|:label:\s*([\w-]+)", text, flags=re.M):
            out[lab[0] or lab[1]] = f
    return out


ROLE = re.compile(r"\{(term|ref|doc|numref)\}`([^`<]*?)\s*<([^`>]+)>`|\{(term|ref|doc|numref)\}`([^`<]+)`")


def localise_refs(text, published, here, terms, labels):
    """Term targets -> the Chinese headword; references to a chapter not in the
    Chinese edition -> a link to the English page, marked (English)."""
    def sub(m):
        role = m.group(1) or m.group(4)
        shown = m.group(2) if m.group(1) else None
        target = (m.group(3) if m.group(1) else m.group(5)).strip()
        if role == "term":
            zh_target = terms.get(target.replace("$", ""), target)
            return f"{{term}}`{shown or target} <{zh_target}>`"
        doc = labels.get(target.lstrip("./").removesuffix(".ipynb").removesuffix(".md"))
        if doc is None or doc in published:
            return m.group(0)
        depth = here.count("/")
        href = "../" * (depth + 1) + doc + ".html" + ("" if role == "doc" else "#" + target)
        return f'<a href="{href}">{shown or target}（英文版）</a>'
    return ROLE.sub(sub, text)


CJK_CHAR = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef“”‘’"


def join_cjk_lines(text):
    """A line break between two Chinese characters removed: browsers (Chromium) show it
    as a space. Code, math blocks, tables, headings and list items are left alone."""
    lines, out, code, math = text.split("\n"), [], False, False
    block = re.compile(r"\s*([#|>:`$*+-]|\d+\.|\{|<)")
    for line in lines:
        fence = re.match(r"\s*(```+|~~~+)(.*)", line)
        if fence:
            info = fence.group(2).strip()
            code = (not code and info and not (info.startswith("{") and not info.startswith("{code"))) or \
                   (not code and not info and not out_in_directive(out))
            out.append(line)
            continue
        if line.strip() == "$$":
            math = not math
        prev = out[-1] if out else ""
        if (not code and not math and prev and line and not block.match(line) and not block.match(prev[:1] or " ")
                and re.search(f"[{CJK_CHAR}]$", prev) and re.match(f"[{CJK_CHAR}]", line)
                and not prev.lstrip().startswith(("#", "|", ":", "$$"))):
            out[-1] = prev + line
        else:
            out.append(line)
    return "\n".join(out)


def out_in_directive(lines):
    """Whether the text so far has an open ```{directive} (its closing ``` ends no code block)."""
    depth = 0
    for line in lines:
        m = re.match(r"\s*```+(.*)", line)
        if m:
            depth += 1 if m.group(1).strip() else -1
    return depth > 0


def fill(template_zh, values):
    return re.sub(r"\{(\d+)\}", lambda m: values[int(m.group(1))], template_zh).replace(
        "{{", "{").replace("}}", "}")


def build_page(path, published, terms, labels):
    tr = translations(catalog_path(path))
    rel = str(path.relative_to(ROOT).with_suffix(""))
    cells = {msgid: s for (c, msgid), s in tr.items() if c == "cell"}
    out = []
    for key, kind, text in page_walk(path):
        if kind == "glossary":
            head, terms_en, tail = glossary_terms(text)
            out.append("\n".join([head, "\n\n".join(tr[(term_key(t), t)] for t in terms_en), tail]))
        elif kind == "verbatim":
            out.append(text)
        elif kind == "table":
            rows = []
            for row_key, row in text:
                if row_key is None:
                    cs = row_cells(row)
                    rows.append("| " + " | ".join([cs[0]] + [cells.get(c, c) for c in cs[1:]]) + " |")
                else:
                    t, values = mask_numbers(row)
                    rows.append(fill(tr[(row_key, t)], values))
            out.append("\n".join(rows))
        elif kind == "template":
            t, values = mask_numbers(text)
            out.append(fill(tr[(key, t)], values))
        else:
            out.append(tr[(key, text)])
    text = "\n\n".join(out) + "\n"
    return zh_style.cjk_emphasis(join_cjk_lines(localise_refs(text, published, rel, terms, labels)))


class _Translator(dict):
    """A translator of its own (a fresh copy of attention_book/i18n.py): ns["tr"],
    ns["_width"], ns["_tr_table"]; setting ns["BOOK_MESSAGES"] gives it its messages."""

    def __init__(self):
        import importlib.util
        spec = importlib.util.spec_from_file_location(f"_book_i18n_{id(self)}", PACKAGE / "i18n.py")
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)
        super().__init__(tr=self.module.tr, _width=self.module.width, _tr_table=self.module.tr_table,
                         _Wide=self.module.Wide, _tr_compiled=self.module._compiled, BOOK_MESSAGES={})

    def __setitem__(self, key, value):
        if key == "BOOK_MESSAGES":
            self.module.MESSAGES.clear()
            self.module.MESSAGES.update(value)
            self.module._compiled.clear()
        super().__setitem__(key, value)


def setup_functions():
    """The book's translator (attention_book.i18n: tr and its helpers), for use outside a notebook."""
    return _Translator()


def translate_alt(alt, messages):
    """Alt text made by describe() in English, in Chinese: the same parts, each
    translated by the setup cell's tr() (alt text drops $ and extra spaces)."""
    ns = setup_functions()
    clean = {" ".join(k.replace("$", "").split()): " ".join(v.replace("$", "").split())
             for k, v in messages.items()}
    ns["BOOK_MESSAGES"] = {**clean, **messages}
    tr = ns["tr"]
    out = []
    kinds = "Picture|Heat map|Bar chart|Line plot|Scatter plot|Diagram"
    for part in re.split(rf"\. (?=panel \d+, |{kinds}|colour scale: )", alt.rstrip(".")):
        m = re.match(rf"^(panel \d+, [a-z ]+|{kinds})(?:: (.*))?$", part, flags=re.S)
        if m:
            name = tr(m.group(1)) if m.group(1).startswith("panel") else tr(m.group(1).lower()).capitalize()
            bits = []
            for b in re.split(r"; (?=[xy]: )", m.group(2)) if m.group(2) else []:
                # the titles before "x: " may hold "; " themselves: whole first, else one by one
                axis = f"{b[0]}: {{clean(ax.get_{b[0]}label())}}"  # describe()'s own "x: {label}"
                if b.startswith(("x: ", "y: ")) and axis in messages:  # not another "{a}: {b}" template
                    bits.append(messages[axis].replace(axis[3:], tr(b[3:])))
                else:
                    bits += [tr(b)] if tr(b) != b else [tr(t) for t in b.split("; ")]
            out.append(name + ("：" + "；".join(bits) if bits else ""))
        elif part.startswith("colour scale: "):  # each colour bar's label on its own
            labels = ", ".join(tr(b) for b in part[len("colour scale: "):].split(", "))
            out.append(tr(f"colour scale: {labels}"))
        else:
            out.append(tr(part))
    return "。".join(out) + "。"


LANGUAGE_CELL = '''# The language this notebook runs in (generated by tools/i18n.py from
# locales/zh_CN/; the code cells are the English edition's): from here on the
# book's tr() translates figure texts, quizzes, exercise messages and printed
# sentences (attention_book/i18n.py says how a message is found).
BOOK_LANGUAGE = "zh_CN"
BOOK_MESSAGES = '''

LANGUAGE_CELL_END = "print = use_language(BOOK_LANGUAGE, BOOK_MESSAGES)\n"


def build_notebook(path, published, terms, labels, setup_msgs):
    po_msgs = translations(catalog_path(path))
    nb = nbformat.read(path, as_version=4)
    rel = str(path.relative_to(ROOT).with_suffix(""))
    messages = {msgid: s for (c, msgid), s in setup_msgs.items() if c == "code"}
    messages |= {msgid: s for (c, msgid), s in po_msgs.items() if c == "code"}
    comments = {msgid: s for (c, msgid), s in po_msgs.items() if c == "comment"}
    prompts = {msgid: s for (c, msgid), s in setup_msgs.items() if c == "prompt"}
    setup_comments = {msgid: s for (c, msgid), s in setup_msgs.items() if c == "comment"}
    number = chapter_numbers(toc()).get(rel) if renumbered(published) else None
    cells = []
    for cell in nb.cells:
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            cell.source = zh_style.cjk_emphasis(join_cjk_lines(
                localise_refs(po_msgs[(cell.id, cell.source)], published, rel, terms, labels)))
            if number and cell.source.startswith("# "):  # 第 6 章 · title, as in English
                cell.source = f"# 第 {number} 章 · " + cell.source[2:]
                number = None
        elif cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            meta = cell.metadata.get("mystnb", {})
            for k in ("code_prompt_show", "code_prompt_hide"):
                if k in meta:
                    meta[k] = prompts.get(meta[k], meta[k])
            if meta.get("image", {}).get("alt"):
                meta["image"]["alt"] = translate_alt(meta["image"]["alt"], messages)
            if reader_code(cell):
                cell.source = translate_comments(cell.source, comments)
            if "book-setup" in cell.metadata.get("tags", []):
                # the setup cell (tools/setup_cell.py), its comments translated; then the language
                cell.source = translate_comments(nbtools.setup_source(), setup_comments)
                body = json.dumps(messages, ensure_ascii=False, indent=1, sort_keys=True)
                lang = nbformat.v4.new_code_cell(LANGUAGE_CELL + body + "\n" + LANGUAGE_CELL_END)
                lang.id = "book-language"
                lang.metadata = {"tags": ["remove-cell", "book-language"],
                                 "jupyter": {"source_hidden": True}}
                cells += [cell, lang]
                continue
        cells.append(cell)
    nb.cells = cells
    nb.metadata.setdefault("language_info", {})
    nb.metadata["book_language"] = LANG
    return nb


def wanted_units(source):
    """(msgctxt, msgid) of every message the current English of `source` needs."""
    if source.suffix == ".ipynb":
        out = []
        for cell in nbformat.read(source, as_version=4).cells:
            if cell.cell_type == "markdown":
                out.append((cell.id, cell.source))
            elif cell.cell_type == "code" and "book-setup" not in cell.metadata.get("tags", []):
                out += [("code", t) for t in code_texts(cell.source)]
                out += [("code", t) for module in exercise_modules(cell.source) for t in code_texts(module.read_text())]
                if reader_code(cell):
                    out += [("comment", t) for t in code_comments(cell.source)]
        return out
    return [(k, text) for k, kind, text in page_units(source)]


def up_to_date(source):
    """Every message the current English of `source` needs is translated (not fuzzy)."""
    done = translations(catalog_path(source))
    return all(u in done for u in wanted_units(source))


def setup_up_to_date():
    done = translations(LOCALES / "setup.po")
    return (all(("code", t) in done for t in package_texts())
            and all(("comment", t) in done for t in code_comments(nbtools.setup_source())))


def published_docs():
    """English documents (notebooks/NN, book/x) whose Chinese edition is complete for
    the English as it is now (a changed English text unpublishes its page)."""
    setup_ok = setup_up_to_date()
    out = []
    for f in toc_files():
        if f.startswith("notebooks/"):
            if setup_ok and up_to_date(ROOT / (f + ".ipynb")):
                out.append(f)
        else:
            page = ROOT / (f + ".md")
            deps = [page] + [page.parent / i for i in re.findall(r"```\{include\}\s+(\S+)", page.read_text())]
            if all(up_to_date(p) for p in deps):
                out.append(f)
    return out


def chapter_numbers(t):
    """file -> the number Jupyter Book gives the chapter in toc `t` (numbered parts only)."""
    out, n = {}, 0
    for part in t["parts"]:
        for c in part["chapters"]:
            if part.get("numbered"):
                n += 1
                out[c["file"]] = n
    return out


def renumbered(published):
    """True when the Chinese edition's automatic numbers would differ from the English
    ones (a chapter before a published one is not translated yet)."""
    english = chapter_numbers(toc())
    mine = [f for f in english if f in published]
    return any(english[f] != i for i, f in enumerate(mine, 1))


def zh_toc(published):
    t = toc()
    tr = translations(LOCALES / "_toc.po")
    out = {"format": t["format"], "root": t["root"], "parts": []}
    for part in t["parts"]:
        chs = [c for c in part["chapters"] if c["file"] in published]
        if chs:
            p = {k: v for k, v in part.items() if k != "chapters"}
            p["caption"] = tr.get(("caption", part["caption"]), part["caption"])
            if renumbered(published):  # the titles carry the English numbers instead
                p.pop("numbered", None)
            p["chapters"] = chs
            out["parts"].append(p)
    return out


def generated():
    """{path under zh/: text} of the whole Chinese edition, from the catalogs."""
    published = published_docs()
    if toc()["root"] not in published:
        raise SystemExit("the Chinese edition needs its root page translated first")
    terms, labels = glossary_map(), labels_by_doc()
    setup_msgs = translations(LOCALES / "setup.po")
    files = {"_toc.yml": "# Generated by tools/i18n.py build from locales/zh_CN/: do not edit.\n"
             + yaml.safe_dump(zh_toc(published), allow_unicode=True, sort_keys=False)}
    for f in published:
        src = ROOT / (f + (".ipynb" if f.startswith("notebooks/") else ".md"))
        if f.startswith("notebooks/"):
            nb = build_notebook(src, published, terms, labels, setup_msgs)
            files[f + ".ipynb"] = nbformat.writes(nb) + "\n"
        else:
            files[f + ".md"] = build_page(src, published, terms, labels)
            for inc in re.findall(r"```\{include\}\s+(\S+)", src.read_text()):
                ipath = src.parent / inc
                files[str(ipath.relative_to(ROOT))] = build_page(ipath, published, terms, labels)
    return files


def build():
    files = generated()
    for old in OUT.rglob("*"):
        if old.is_file() and str(old.relative_to(OUT)) not in files:
            old.unlink()
    for rel, text in files.items():
        p = OUT / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
    print(f"zh/: {len(files) - 1} pages ({', '.join(sorted(Path(f).stem for f in files if f != '_toc.yml'))})")


# ----------------------------------------------------------------- check
def roles(text):
    out = []
    for m in re.finditer(r"\{([\w:-]+)\}`([^`]*)`", text):
        role, body = m.groups()
        target = re.search(r"<([^<>]+)>\s*$", body)
        if role in ("glue:text", "glue", "glue:any", "glue:md", "cite", "cite:p", "cite:t",
                    "eq", "numref", "ref", "doc", "term"):
            out.append((role, (target.group(1) if target else body).strip()))
    return sorted(out)


def directives(text):
    return sorted(re.findall(r"^\s*(?:`{3,}|:{3,})\{([\w-]+)\}", text, flags=re.M))


def labels(text):
    return sorted(re.findall(r"^\(([\w-]+)\)=|:label:\s*(\S+)", text, flags=re.M))


def fields(text):
    return sorted(re.findall(r"(?<!\{)\{[^{}]*\}(?!\})", text))


def bad_emphasis(text):
    """`**` or `*` that CommonMark will show literally: an opening run that is not
    left-flanking or a closing one not right-flanking (e.g. 四种**{term}...** in Chinese),
    before the build's fix (zh_style.cjk_emphasis)."""
    return zh_style.bad_emphasis(text)


def check_entry(e):
    """What is wrong with one translation (an empty list when nothing)."""
    s, m = e.msgstr, e.msgid
    errs = []
    if e.msgctxt == "code" or (e.msgctxt and "/" in e.msgctxt and "{0}" in m):
        dropped = set(fields(m)) - set(fields(s))  # only a word chosen in English: {'s' if n != 1 else ''}
        if set(fields(s)) - set(fields(m)) or any(" if " not in f for f in dropped):
            errs.append(f"fields differ: {fields(m)} vs {fields(s)}")
        return errs
    if e.msgctxt == "comment":  # one line of a code cell: the code around it must stay valid
        if "\n" in s:
            errs.append("a comment's translation must be one line")
        return errs
    if e.msgctxt in ("prompt", "title", "caption", "cell"):
        return errs
    if roles(m) != roles(s):
        errs.append(f"roles differ: {sorted(set(roles(m)) ^ set(roles(s)))}")
    if m.count("$") != s.count("$"):
        errs.append(f"$ count {m.count('$')} vs {s.count('$')}")
    if directives(m) != directives(s):
        errs.append(f"directives differ: {directives(m)} vs {directives(s)}")
    if labels(m) != labels(s):
        errs.append(f"labels differ: {labels(m)} vs {labels(s)}")
    if m.count("```") != s.count("```"):
        errs.append("code fences differ")
    heads = lambda t: re.findall(r"(?m)^[ \t]*(#{1,6})[ \t]+\S", t)  # noqa: E731
    if heads(m) != heads(s):
        errs.append(f"headings differ: {heads(m)} vs {heads(s)} (a heading needs a space after its #)")
    # Chinese in a formula only as \text{…}: the Chinese edition's MathJax draws text in the
    # page's font (mtextInheritFont, tools/book_config.py); bare CJK would get no font
    math_cjk = lambda t: {c for m in re.findall(r"\$\$.*?\$\$|\$[^$]*\$", t, flags=re.S)  # noqa: E731
                          for c in re.findall(r"[\u3400-\u9fff]", re.sub(r"\\text\{[^{}]*\}", "", m))}
    if math_cjk(s) - math_cjk(m):
        errs.append("Chinese inside math ($...$) outside \\text{}: MathJax draws it without the book's font; "
                    "put the words outside the formula")
    bad = bad_emphasis(zh_style.cjk_emphasis(s))
    if bad:
        errs.append(f"emphasis shown literally (a space inside ** **?): {bad}")
    for start, end, why in zh_style.space_faults(s):
        errs.append(f"{why} (the spacing rule of CONTRIBUTING.md): …{s[max(0, start - 12):end + 12]!r}…")
    for at, why in zh_style.missing_spaces(s):
        errs.append(f"{why} (the spacing rule of CONTRIBUTING.md): …{s[max(0, at - 12):at + 12]!r}…")
    return errs


def check(only_published=True):
    """Problems of the catalogs of the published chapters and pages (or of all)."""
    published = published_docs() if only_published else None
    sources = {catalog_path(p): p for p in chapters() + pages()}
    out = []
    for path in catalogs():
        src = sources.get(path)
        rel = str(src.relative_to(ROOT).with_suffix("")) if src else None
        if only_published and src is not None and rel not in published and \
                not (src.stem in MEASURED_PAGES and "book/speed" in published):
            continue
        for e in load(path):
            if e.obsolete or not e.msgstr or "fuzzy" in e.flags:
                continue
            for err in check_entry(e):
                out.append(f"{path.relative_to(ROOT)} [{e.msgctxt}] {err}")
    return out


# ----------------------------------------------------------------- import
def import_json(po_path, json_path):
    """Translations {cell id or msgctxt: Chinese} into a catalog (by msgctxt; a code
    text, whose msgctxt is "code", by its English).
    A message already translated differently is overwritten; fuzzy ones are cleared."""
    po = load(Path(po_path))
    data = json.loads(Path(json_path).read_text())
    n = 0
    for e in po:
        key = e.msgctxt if e.msgctxt in data else e.msgid  # code texts: keyed by the English
        if not e.obsolete and key in data and data[key].strip():
            e.msgstr = data[key]
            if "fuzzy" in e.flags:
                e.flags.remove("fuzzy")
                e.previous_msgid = None
            n += 1
    missing = set(data) - {e.msgctxt for e in po} - {e.msgid for e in po}
    po.save(str(po_path))
    print(f"{po_path}: {n} messages imported" + (f"; unknown cell ids: {sorted(missing)}" if missing else ""))


def main(argv):
    cmd, *rest = argv or ["status"]
    if cmd == "extract":
        extract(rest)
    elif cmd == "build":
        build()
    elif cmd == "status":
        print(status())
    elif cmd == "check":
        errs = check(only_published="--all" not in rest)
        print("\n".join(errs) or "check: every published message is translated and well formed")
        sys.exit(1 if errs else 0)
    elif cmd == "import-json":
        import_json(*rest)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
