"""Every notebook, English and Chinese (zh/notebooks), runs under the widget
and plotting versions Colab ships.

Run by `make test-colab` inside .venv-colab (requirements-colab.txt), where
ipywidgets is 7.7 (no Stack widget) and myst-nb is absent, as on Colab.
"""
import os
import re
from pathlib import Path

import ipywidgets
import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
# the English chapters and the Chinese edition's (zh/notebooks, same code, one language cell)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + \
    sorted((ROOT / "zh" / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_the_books_package_is_installed_as_the_setup_cell_installs_it_on_colab():
    """attention_book comes from a pip install of the repository (here the checkout,
    offline: make's .venv-colab target), not from the working tree, and is current."""
    import subprocess
    import sys
    where = subprocess.run([sys.executable, "-c", "import attention_book; print(attention_book.__file__)"],
                           cwd=ROOT / "notebooks", capture_output=True, text=True, check=True).stdout
    installed = Path(where.strip()).resolve().parent     # as the notebooks' kernel (cwd notebooks/) finds it
    assert installed != (ROOT / "attention_book").resolve() and installed.parent.name == "site-packages", \
        f"attention_book is not the installed copy but {installed}"
    web = sorted((ROOT / "attention_book" / "web").iterdir())
    for source in sorted((ROOT / "attention_book").glob("*.py")) + [ROOT / "attention_book" / "playground.js"] + web:
        name = source.relative_to(ROOT / "attention_book")
        assert (installed / name).read_bytes() == source.read_bytes(), \
            f"{name}: the installed package is not the checkout's (run make .venv-colab/.installed)"
    assert (installed / "fonts" / "BookCJK-Regular.otf").is_file(), "the figures' Chinese font was not installed"


def test_this_is_the_colab_environment():
    assert ipywidgets.__version__.startswith("7.7"), ipywidgets.__version__
    with pytest.raises(ImportError):
        import myst_nb  # noqa: F401


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.parent.parent.name + "/" + p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_builds_its_sliders(path):
    os.environ.pop("ATTENTION_BOOK_STATIC", None)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    sliders = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            assert out.output_type != "error", f"{out.ename}: {out.evalue}"
            assert not (out.output_type == "stream" and out.name == "stderr"), out.text[:300]
        if re.search(r"^sliders\(", cell.source, re.M):
            views = [o for o in cell.outputs
                     if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
            assert views, f"a sliders(...) cell made no widget:\n{cell.source[:200]}"
            sliders += 1
    assert sliders >= 1
