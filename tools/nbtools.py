"""Keep the notebooks in shape: setup cell in sync, executed top to bottom.

    python tools/nbtools.py sync      # copy tools/setup_cell.py into every notebook
    python tools/nbtools.py execute   # run every notebook in place (live mode)
    python tools/nbtools.py execute notebooks/01_*.ipynb
    python tools/nbtools.py alt       # alt text for every figure, from the figure itself
"""
import os
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SETUP_TAG = "book-setup"


def setup_source():
    """The setup cell every chapter starts with."""
    return (ROOT / "tools" / "setup_cell.py").read_text().strip()


def notebooks(args=()):
    paths = [Path(a).resolve() for a in args] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    return paths


def tidy_exercises(nb):
    """Solutions, checking code, figure code (cells tagged `figure-code`) and code
    carried over from an earlier chapter (tagged `carried-over`) stay
    folded until the reader opens them: `hide-input` in the book, collapsed in
    Jupyter and Colab (jupyter.source_hidden)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.setdefault("tags", [])
        if cell.source.lstrip().startswith("quiz("):  # the code would give the answer away
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
        elif cell.source.lstrip().startswith("def check_"):
            what = "checking code"
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
        cell.metadata["tags"] = [SETUP_TAG, "hide-input"]
        tidy_exercises(nb)
        nbformat.write(nb, path)
        print("synced", path.relative_to(ROOT))


def run_code(path, after_setup=None, after_cell=None):
    """Run a notebook's code cells in a plain namespace and return its globals.

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
    finally:
        os.chdir(old)
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


def execute(paths):
    from nbclient import NotebookClient
    os.environ.pop("ATTENTION_BOOK_STATIC", None)  # stored notebooks are live-mode
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}},
                                store_widget_state=True)
        client.execute()
        for cell in nb.cells:  # keep stored files free of run-specific noise
            cell.metadata.pop("execution", None)
        nbformat.write(nb, path)
        print("executed", path.relative_to(ROOT))


if __name__ == "__main__":
    command, *rest = sys.argv[1:] or ["sync"]
    {"sync": sync, "execute": execute, "alt": alt}[command](notebooks(rest))
