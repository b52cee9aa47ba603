"""Keep the notebooks in shape: setup cell in sync, executed top to bottom.

    python tools/nbtools.py sync      # copy tools/setup_cell.py into every notebook
    python tools/nbtools.py execute   # run every notebook in place (live mode)
    python tools/nbtools.py execute notebooks/01_*.ipynb
    python tools/nbtools.py execute --remeasure notebooks/09_*.ipynb   # timings stored anew too
    python tools/nbtools.py alt       # alt text for every figure, from the figure itself
"""
import os
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SETUP_TAG = "book-setup"


def repository():
    """The book's GitHub repository (`repository.url` in _config.yml), or "" when it has none."""
    import yaml
    return (yaml.safe_load((ROOT / "_config.yml").read_text()).get("repository") or {}).get("url") or ""


def setup_source():
    """The setup cell every chapter starts with: tools/setup_cell.py, installing the
    book's package from `repository.url` of _config.yml where it is missing (Colab);
    a book with no repository says how to get the package instead."""
    text = (ROOT / "tools" / "setup_cell.py").read_text().strip()
    url = repository()
    if url:
        return text.replace("git+REPOSITORY", f"git+{url}")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "subprocess.run" in line)
    lines[at - 2:at + 2] = ["except ImportError:  # not installed here: say how to get it",
                            '    raise ImportError("the book\'s package attention_book: run `make lab` "',
                            '                      "in a clone of the book, or `pip install` the clone")']
    return "\n".join(lines)


def notebooks(args=()):
    paths = [Path(a).resolve() for a in args] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    return paths


def tidy_exercises(nb):
    """Quizzes (their code gives the answer away: removed), solutions, checking code
    (the exercise checks, or the cell that imports them from attention_book.exercises),
    figure code (cells tagged `figure-code`) and code
    carried over from an earlier chapter (tagged `carried-over`) stay
    folded until the reader opens them: `hide-input` in the book, collapsed in
    Jupyter and Colab (jupyter.source_hidden)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.setdefault("tags", [])
        if cell.source.lstrip().startswith(("quiz(", "display(quiz(")):  # the code would give the answer away
            if "remove-input" not in tags:
                tags.append("remove-input")
            cell.metadata["jupyter"] = {"source_hidden": True}
            continue
        if "figure-code" in tags:      # code that only draws a figure: not the mechanism
            what = "figure code"
        elif "solution" in tags:
            what = "solution"
        elif "carried-over" in tags:   # an earlier chapter's code, repeated so the notebook runs alone
            what = "code carried over"
        elif cell.source.lstrip().startswith("def check_") or "from attention_book.exercises." in cell.source:
            what = "checking code"     # the checks themselves, or the cell that makes them from the package
        else:
            continue
        if "hide-input" not in tags:
            tags.append("hide-input")
        cell.metadata["jupyter"] = {"source_hidden": True}
        cell.metadata.setdefault("mystnb", {}).update({"code_prompt_show": f"Show the {what}",
                                                       "code_prompt_hide": f"Hide the {what}"})


def sync(paths):
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        cells = [c for c in nb.cells if SETUP_TAG in c.metadata.get("tags", [])]
        if cells:
            cell = cells[0]
        else:
            cell = nbformat.v4.new_code_cell()
            first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
            nb.cells.insert(first_code, cell)
        cell.source = setup_source()
        cell.metadata["tags"] = [SETUP_TAG]  # a few lines a reader understands: shown, not folded
        cell.metadata.pop("jupyter", None)
        cell.metadata.pop("mystnb", None)
        tidy_exercises(nb)
        nb.metadata.pop("widgets", None)  # widget state: the book build makes it anew
        nbformat.write(nb, path)
        print("synced", path.relative_to(ROOT))


def book_namespace(static=False):
    """The names a chapter's setup cell gives it (`from attention_book.book import *`)
    and the package's own private ones, for tests and benchmarks; in English, and
    in static (the HTML book's) or live mode."""
    from attention_book import book, course, figures, i18n, playground, style
    reset_book(static)
    ns = {}
    for module in (i18n, style, figures, course, playground, book):
        ns.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return ns


def reset_book(static=False):
    """The package as a new kernel has it: English (no language set), live or static mode."""
    from attention_book import i18n, style
    i18n.use_language(None, {})
    style.STATIC = static


def run_code(path, after_setup=None, after_cell=None, until=None):
    """Run a notebook's code cells in a plain namespace and return its globals
    (with `until`, a cell id: only the cells up to that one, included).

    Live-slider mode, Agg backend, from the notebook's folder, printing
    nowhere. after_setup(ns), if given, runs right after the setup cell (the
    benchmarks use it to catch sliders(...) calls); after_cell(i, ns), if given,
    runs after code cell i, while its figures are still open. Used by tests,
    benchmarks and `alt`.
    """
    import contextlib
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = {"__name__": "__main__"}
    old = os.getcwd()
    os.environ.pop("ATTENTION_BOOK_STATIC", None)
    reset_book()
    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
            for i, cell in enumerate(cells):
                exec(compile(cell.source, path.name, "exec"), ns)
                if i == 0 and after_setup is not None:
                    after_setup(ns)
                if after_cell is not None:
                    after_cell(i, ns)
                plt.close("all")
                if until is not None and cell.get("id") == until:
                    break
            else:
                if until is not None:
                    raise KeyError(f"{path.name} has no code cell with id {until!r}")
    finally:
        os.chdir(old)
        reset_book()  # a Chinese notebook's language does not outlive its run
    return ns


def alt(paths):
    """Give every figure an alt text: the setup cell's describe(fig) of each figure
    a cell shows goes into the cell's metadata (mystnb.image.alt), which the book
    puts on the <img>. Slider frames get theirs when they are drawn."""
    import matplotlib.pyplot as plt
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        found = {}

        def after_cell(i, ns):
            texts = [ns["describe"](plt.figure(num)) for num in plt.get_fignums()]
            if texts:
                found[i] = " ".join(texts)
        run_code(path, after_cell=after_cell)
        for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            meta = cell.metadata.setdefault("mystnb", {})
            if i in found:
                meta.setdefault("image", {})["alt"] = found[i]
            else:
                meta.get("image", {}).pop("alt", None)
                if meta.get("image") == {}:
                    del meta["image"]
            if not meta:
                del cell.metadata["mystnb"]
        nbformat.write(nb, path)
        print(f"alt text for {len(found)} figure cells in", path.relative_to(ROOT))


MEASURED = "measured"   # a cell whose outputs are measurements of this run (timings)


def tidy_outputs(nb, name, before=None, remeasure=False):
    """Keep a re-run's diff to what changed (a two-line code change is a diff of
    about that size): stdout and stderr pieces of one cell joined (how a stream
    is cut depends on timing; nbval joins them too), every widget view given a
    model_id made from the notebook, cell and output (not a random one: the
    committed notebooks carry no widget state, so the id points nowhere until
    the book or a kernel makes the widget anew), and cells tagged `measured`
    (timings, and figures and glued numbers drawn from them) keep their stored
    outputs while their code is unchanged, unless `remeasure`."""
    import hashlib
    old = {c.get("id"): c for c in (before.cells if before else []) if c.cell_type == "code"}
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        was = old.get(cell.get("id"))
        if (not remeasure and was is not None and MEASURED in cell.metadata.get("tags", [])
                and was.source == cell.source):
            cell.outputs = was.outputs
            continue
        joined = []
        for out in cell.outputs:
            if (out.output_type == "stream" and joined and joined[-1].output_type == "stream"
                    and joined[-1].name == out.name):
                joined[-1].text += out.text
            else:
                joined.append(out)
        cell.outputs = joined
        for k, out in enumerate(cell.outputs):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view is not None:
                view["model_id"] = hashlib.sha1(f"{name}/{cell.get('id')}/{k}".encode()).hexdigest()[:32]


def execute(paths, remeasure=False):
    """Run each notebook top to bottom in a kernel (live mode) and store its outputs,
    tidied by tidy_outputs (`--remeasure`: timings stored anew too)."""
    from nbclient import NotebookClient
    os.environ.pop("ATTENTION_BOOK_STATIC", None)  # stored notebooks are live-mode
    for path in paths:
        before = nbformat.read(path, as_version=4)
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}},
                                store_widget_state=False)  # the book build stores its own
        client.execute()
        for cell in nb.cells:  # keep stored files free of run-specific noise
            cell.metadata.pop("execution", None)
        tidy_outputs(nb, path.stem, before, remeasure)
        nbformat.write(nb, path)
        print("executed", path.relative_to(ROOT))


if __name__ == "__main__":
    command, *rest = sys.argv[1:] or ["sync"]
    if command == "execute":
        execute(notebooks([a for a in rest if a != "--remeasure"]), remeasure="--remeasure" in rest)
    else:
        {"sync": sync, "alt": alt}[command](notebooks(rest))
