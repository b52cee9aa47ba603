"""English left on a Chinese page: run a zh notebook's code and list every printed
line and figure text that still holds a run of 3 or more English words.

    python tools/zh_english.py [-nN] [--setup FILE] zh/notebooks/NN_name.ipynb [...]

-nN: report runs of N words or more (default 3); --setup FILE: run with another
setup cell (to try a change to tools/setup_cell.py); ZH_FIGURES=DIR keeps every
figure drawn as a PNG there, to look at.

The code cells run in one namespace (Agg backend, no sliders drawn ahead),
after the language cell and the setup cell; every figure is drawn (so the setup
cell's tr() translates its texts) and its texts are collected, and printed
output is captured. Used by tests/test_i18n.py.
"""
import contextlib
import io
import os
import re
import sys
from pathlib import Path

import nbformat

# Words that stay in Latin letters in the Chinese edition: names of methods,
# libraries and formulae, units, code identifiers.
KEEP = {"softmax", "layernorm", "relu", "gelu", "tanh", "rnn", "rnns", "bptt", "adam", "numpy", "torch",
        "pytorch", "se", "cbam", "flashattention", "float32", "float64", "dtype", "nan", "inf",
        "qk", "norm", "ms", "mb", "kb", "gb", "nats", "bits", "exp", "log", "max", "min", "argmax",
        "argmin", "sigmoid", "conv", "relu", "mlp", "ffn", "lstm", "gru", "sdpa", "blas", "cpu", "gpu",
        "id", "ids", "pad", "s", "bos", "eos", "none", "true", "false", "shape", "np", "plt", "rope",
        "frobenius", "spearman", "nadaraya", "watson", "jacobian", "transformer", "resnet", "attention_loops",
        "threadpoolctl", "valueerror", "keyerror", "assertionerror", "einsum", "matmul", "qkv", "e.g"}


def english_runs(text, n=3):
    """Runs of n or more English words in `text` (math, code and KEEP words removed)."""
    t = re.sub(r"\$[^$]*\$|`[^`]*`|<[^>]*>|\([^()]*[=_^/][^()]*\)", " ", text)
    runs, cur = [], []
    for tok in re.split(r"(\s+|[^\w'.-]|(?<=\w)\.(?=\s|$))", t):
        if tok is None or not tok.strip():
            continue
        w = tok.strip(".-'")
        if re.fullmatch(r"[A-Za-z]+(?:'[a-z]+)?(?:-[A-Za-z]+)*", w) and w.lower() not in KEEP \
                and not re.fullmatch(r"[A-Z]|[a-z]_?", w) or w.lower() in ("a", "i"):
            cur.append(w)
            continue
        if re.fullmatch(r"[,;:]", tok.strip()):
            continue  # punctuation inside an English clause keeps the run going
        if len(cur) >= n:
            runs.append(" ".join(cur))
        cur = []
    if len(cur) >= n:
        runs.append(" ".join(cur))
    return runs


# --- every word of English on a built Chinese page (tests/browser-free: tests/test_i18n.py)
# What a reader of the Chinese edition may meet in Latin letters: names (of people, from
# the references; of methods, models, libraries, tools), acronyms, units, symbols and code
# (shown as code, or an identifier with a digit or an underscore), a term's English in
# full-width parentheses after it (自注意力（self-attention）), the glossary's English
# headwords, citations, and a chapter's own English data (its example sentences).
NAMES = {"numpy", "python", "pytorch", "jupyter", "jupyterlab", "colab", "transformer", "transformers", "adam",
         "nadaraya", "watson", "brent", "hugging", "face", "smollm", "llama", "meta", "rope", "alibi", "rmsnorm",
         "swiglu", "relu", "silu", "gelu", "flashattention", "spearman", "frobenius", "annotated", "vs", "code",
         "notebook", "chromium", "firefox", "safari", "chrome", "github", "pypi", "xelatex", "latex", "tex", "logits",
         "ln", "sin", "cos", "var", "std", "sqrt", "diag", "lse", "tokenizer", "sphinx", "mathjax", "google",
         "openblas", "mkl", "macos", "linux", "windows", "anywidget", "ipywidgets", "matplotlib", "debian",
         "webp", "png", "svg", "logit", "apache", "scikit", "learn", "longformer", "chatgpt", "gpt", "bert", "kv", "vs",
         "streamingllm", "javascript", "webassembly", "simd", "sha", "top", "gguf", "web", "crypto"}
UNITS = {"ms", "mb", "mib", "gib", "kib", "kb", "gb", "tb", "ns", "us", "hz", "ghz", "px", "dpi", "fps", "s"}


def bib_names(path=None):
    """The surnames of the references' authors (book/references.bib), lower case."""
    text = Path(path or Path(__file__).resolve().parents[1] / "book" / "references.bib").read_text()
    names = set()
    for authors in re.findall(r"author\s*=\s*\{(.*)\},?\s*$", text, flags=re.M):
        for a in authors.split(" and "):
            names |= {w.lower() for w in re.findall(r"[A-Za-z]+", a.split(",")[0])}
    return names


def page_texts(html):
    """(kind, text) of what a reader sees on a built page: 'prose', 'output' (a cell's
    printed output), 'widget' (labels, options and texts in the page's widget state)
    and 'ui' (texts the page's scripts show: a folded box's hint)."""
    import json
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(html, "html.parser")
    out = []
    for s in soup.find_all("script", type="application/vnd.jupyter.widget-state+json"):
        for m in json.loads(s.string)["state"].values():
            st = m.get("state", {})
            for k in ("description", "value", "_options_labels", "placeholder", "tooltip"):
                v = st.get(k)
                if k == "value" and m.get("model_name") not in ("HTMLModel", "LabelModel", "HTMLMathModel"):
                    continue
                for x in (v if isinstance(v, list) else [v]):
                    if isinstance(x, str) and x.strip():
                        h = BeautifulSoup(x, "html.parser")
                        for t in h.select("code, script, style"):
                            t.decompose()
                        out.append(("widget", h.get_text(" ")))
    for m in re.finditer(r"let toggleHint(?:Show|Hide) = '([^']*)'", html):   # a folded box's hint, made in the page
        out.append(("ui", m.group(1)))
    main = soup.find("article") or soup
    for table in main.select("table"):           # a bilingual table: its column headed "English" is meant
        heads = [th.get_text(strip=True) for th in table.select("thead th")]
        if "English" in heads:
            k = heads.index("English")
            for row in table.select("tr"):
                cells = row.find_all(["td", "th"])
                if len(cells) > k:
                    cells[k].decompose()
    for tag in main.select("div.cell_input, script, style, span.math, div.math, code, kbd, .guilabel, .menuselection, "
                           ".headerlink, img, .bibtex-citation, .citation, dl.glossary dt, pre"):
        if tag.name == "pre" and tag.find_parent("div", class_="cell_output"):
            continue
        tag.decompose()
    for o in main.select("div.cell_output"):
        out.append(("output", o.get_text("\n")))
        o.decompose()
    out.append(("prose", main.get_text(" ")))
    return out


WORD = re.compile(r"(?<![A-Za-z0-9_\\.])[A-Za-z][A-Za-z0-9_'’-]*")
GLOSS = re.compile(r"（[^（）]*）")


def english_words(text, allowed=frozenset()):
    """The words of `text` a Chinese reader should not meet (see NAMES above); `allowed`:
    more words (lower case) that may stay, e.g. the page's English data."""
    t = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]|\$[^$]*\$|`[^`]*`|《[^《》]*》", " ", text, flags=re.S)
    # a term's English in full-width parentheses: 自注意力（self-attention；…）, 瓶颈（bottleneck，…）
    t = GLOSS.sub(lambda m: "（" + "，".join(p for p in re.split(r"[，；、]", m.group()[1:-1])
                                           if re.search(r"[\u4e00-\u9fff]", p)) + "）", t)
    t = re.sub(r"\b[A-Z][a-z]+ (et al|and [A-Z][a-z]+)\b", " ", t)        # a citation
    t = re.sub(r"“[^“”\u4e00-\u9fff]*”|\"[^\"\u4e00-\u9fff]*\"", " ", t)  # English quoted as an example
    t = re.sub(r"\b[A-Za-z_]\w*\([^()]*\)|\b\w+/\w+\b", " ", t)       # code and math: exp(big), dL/dZ
    t = re.sub(r"\b(?:pip|apt-get|python|make) install [\w.=<>\[\]-]+", " ", t)  # a command to type
    t = re.sub(r"\b[A-Za-z_]\w*[:：]?\s*\(\d+(, \d+)*\)", " ", t)       # a named shape: Xb (3, 6, 8)
    left = []
    for w in WORD.findall(t):
        if re.search(r"\d", w):                  # a name with a digit: SmolLM2-135M-Instruct, float32
            continue
        for part in w.strip("-'’").split("-"):
            low = part.lower()
            if (len(part) < 2 or re.search(r"[\d_]", part) or re.fullmatch(r"[A-Z]{2,6}s?", part)
                    or low in KEEP or low in NAMES or low in UNITS or low in allowed):
                continue
            left.append(part)
    return left


def run_notebook(path, setup=None, namespace=False):
    """(printed lines, figure texts, errors) of a zh notebook run in this process
    (setup: another setup cell's source, to try a change to tools/setup_cell.py)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    texts, out, errors = [], io.StringIO(), []
    ns = {"__name__": "__main__"}
    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parents[1] / "notebooks")  # fonts/ and data, as for the English notebook
    old_draw = Figure.draw
    from attention_book import course, figures, i18n, playground, style
    book_modules = (figures, course, playground)
    old_widgets = [m.widgets for m in book_modules]
    i18n.use_language(None, {})
    style.STATIC = False

    def collect(fig):
        for t in fig.findobj(Text):
            if t.get_visible() and t.get_text().strip():
                texts.append(t.get_text())

    def show(*a, **k):
        for num in plt.get_fignums():
            fig = plt.figure(num)
            fig.canvas.draw()
            collect(fig)
            if os.environ.get("ZH_FIGURES"):  # a folder: keep each figure as a PNG, to look at
                folder = Path(os.environ["ZH_FIGURES"])
                folder.mkdir(parents=True, exist_ok=True)
                fig.savefig(folder / f"{path.stem[:2]}_{len(list(folder.glob(path.stem[:2] + '_*')))}.png")
        plt.close("all")
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            source = setup if setup and "book-setup" in cell.metadata.get("tags", []) else cell.source
            src = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!")))
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(src, f"{path.name}[{i}]", "exec"), ns)
                    if "book-setup" in cell.metadata.get("tags", []):
                        for module in book_modules:    # sliders: the first setting, drawn by plt.show
                            module.widgets = None
                        ns["plt"].show = show
                        inner = Figure.draw

                        def draw(self, renderer, inner=inner):
                            r = inner(self, renderer)
                            collect(self)
                            return r
                        Figure.draw = draw
                    show()
            except Exception as e:  # an exercise left unanswered, or a real error: report it
                errors.append(f"cell {i}: {type(e).__name__}: {e}")
    finally:
        Figure.draw = old_draw
        for module, w in zip(book_modules, old_widgets):
            module.widgets = w
        i18n.use_language(None, {})  # the language does not outlive the run
        plt.close("all")
        os.chdir(cwd)
    result = out.getvalue().splitlines(), texts, errors
    return result + (ns,) if namespace else result


def report(path, n=3, setup=None):
    lines, texts, errors = run_notebook(path, setup)
    found = []
    for kind, items in (("print", lines), ("figure", texts)):
        seen = set()
        for s in items:
            if s in seen:
                continue
            seen.add(s)
            for r in english_runs(s, n):
                found.append((kind, r, s))
    return found, errors


if __name__ == "__main__":
    args = sys.argv[1:]
    n, setup = 3, None
    while args and args[0].startswith("-"):
        if args[0].startswith("-n"):
            n, args = int(args[0][2:]), args[1:]
        elif args[0] == "--setup":
            setup, args = Path(args[1]).read_text(), args[2:]
    for p in args:
        found, errors = report(p, n, setup)
        print(f"== {p}: {len(found)} English runs, {len(errors)} errors")
        for kind, r, s in found:
            print(f"  {kind:6s} «{r}»  in: {s[:110]!r}")
        for e in errors:
            print("  ERROR", e[:200])
