"""Every chapter is built, shares the setup cell, has d_k and n sliders, is
seeded, and is stored executed from top to bottom with clean outputs."""
import ast
import re
from pathlib import Path

import yaml
from fontTools.ttLib import TTFont

from conftest import NOTEBOOKS, ROOT, calls, code_cells, read

from nbtools import setup_source  # noqa: E402
SETUP = setup_source()
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc["parts"]:
        files += [c["file"] for c in part["chapters"]]
    return files


def test_the_chapters_are_exactly_the_toc_chapters_in_its_order():
    """notebooks/NN_*.ipynb, in file order, are the chapters _toc.yml lists, in reading
    order: none missing, none extra, every one present (and the tests cover them all)."""
    chapters = [f for f in toc_files() if f.startswith("notebooks/")]
    assert len(chapters) >= 12, f"_toc.yml lists only {len(chapters)} chapters: {chapters}"
    assert [f"notebooks/{p.stem}" for p in NOTEBOOKS] == chapters, \
        f"notebooks/ holds {[p.stem for p in NOTEBOOKS]}, _toc.yml lists {chapters}"
    assert [p.stem[:2] for p in NOTEBOOKS] == [f"{i:02d}" for i in range(1, len(NOTEBOOKS) + 1)], \
        "chapters are not numbered 01, 02, ... in order"
    for p in NOTEBOOKS:
        assert code_cells(read(p)), f"{p.name} has no code"


def test_every_notebook_is_in_the_toc_and_every_toc_entry_exists():
    listed = toc_files()
    for nb in NOTEBOOKS:
        assert f"notebooks/{nb.stem}" in listed, f"{nb.name} is not in _toc.yml"
    for entry in listed:
        assert list(ROOT.glob(entry + ".*")), f"_toc.yml lists {entry}, which does not exist"


def test_setup_cell_is_in_sync(notebook):
    path, nb = notebook
    first = code_cells(nb)[0]
    assert "book-setup" in first.metadata.get("tags", []), "first code cell is not the setup cell"
    assert first.source.strip() == SETUP, f"{path.name}: setup cell differs; run `make sync`"


def test_setup_cell_is_a_few_lines_the_reader_sees(notebook):
    """The first code cell imports the book's package and is shown like any cell: not
    folded in the book (hide-input) nor in Jupyter and Colab (jupyter.source_hidden)."""
    path, nb = notebook
    first = code_cells(nb)[0]
    assert len(first.source.splitlines()) <= 8, f"{path.name}: the setup cell has grown"
    assert "from attention_book.book import *" in first.source
    assert not {"hide-input", "remove-input", "remove-cell"} & set(first.metadata.get("tags", [])), \
        f"{path.name}: the setup cell is folded in the book"
    assert not first.metadata.get("jupyter", {}).get("source_hidden"), \
        f"{path.name}: the setup cell opens folded in Jupyter and Colab"


def test_notebooks_store_no_widget_state():
    """Committed notebooks carry no embedded widget state (the book build makes it anew),
    so a two-line code change is a diff of about that size; the Chinese ones neither."""
    heavy = [str(p.relative_to(ROOT)) for p in NOTEBOOKS + sorted((ROOT / "zh" / "notebooks").glob("*.ipynb"))
             if "widgets" in read(p).metadata]
    assert not heavy, f"widget state stored in {heavy}: run `make sync`"


def test_a_rerun_changes_only_what_changed(notebook):
    """Stored outputs are as tools/nbtools.py's tidy_outputs leaves them, so running a
    notebook again changes no line by itself: widget views carry the model_id made
    from the notebook, cell and output (not a random one) and a cell's stdout is one
    piece (how a stream is cut depends on timing). Cells that time something keep
    their stored timings (tag `measured`), so they must not hold anything nbval checks."""
    import hashlib
    path, nb = notebook
    for cell in code_cells(nb):
        streams = [o.name for o in cell.get("outputs", []) if o.output_type == "stream"]
        assert len(streams) == len(set(streams)), f"{path.name} cell {cell.get('id')}: stdout stored in pieces: run `make execute`"
        for k, out in enumerate(cell.get("outputs", [])):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view is not None:
                assert view["model_id"] == hashlib.sha1(f"{path.stem}/{cell.get('id')}/{k}".encode()).hexdigest()[:32], \
                    f"{path.name} cell {cell.get('id')}: a random widget model_id: run `make execute`"
        tags = cell.metadata.get("tags", [])
        if "measured" in tags:
            checked = [o for o in cell.get("outputs", []) if o.output_type == "stream"
                       or set(o.get("data", {})) - {"image/png", "text/plain", "application/papermill.record/text/plain"}]
            assert "nbval-ignore-output" in tags or not checked, \
                f"{path.name} cell {cell.get('id')}: a `measured` cell prints: tag it nbval-ignore-output too"


def test_the_package_is_what_the_chapters_make():
    """attention_book/chNN.py is what tools/package.py makes of the chapters' #@save cells,
    every saved function's names are defined in its module, and every module imports."""
    import importlib
    import package
    for chapter in package.chapters():
        text, path = package.module_source(chapter), package.module_path(chapter)
        if text is None:
            assert not path.exists(), f"{path.name}: {chapter.name} saves nothing now; run `make package`"
            continue
        assert path.exists() and path.read_text() == text, \
            f"{path.relative_to(ROOT)} is not what {chapter.name} makes: run `make package`"
        assert not package.undefined_names(text), (path.name, package.undefined_names(text))
        importlib.import_module(f"attention_book.{path.stem}")


def test_a_later_chapter_imports_an_earlier_ones_function_instead_of_a_copy():
    """No chapter redefines a function that an earlier chapter saved and it imports,
    and no cell is a hidden copy of earlier code (the `carried-over` tag is gone)."""
    import package
    for path in NOTEBOOKS:
        nb = read(path)
        imported = set()
        for cell in code_cells(nb):
            assert "carried-over" not in cell.metadata.get("tags", []), f"{path.name}: a hidden copy"
            for m in package.IMPORT.finditer(cell.source):
                imported |= {n.strip() for n in m.group().split(" import ", 1)[1].split(",")}
        for cell in code_cells(nb):
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef):
                    assert node.name not in imported, \
                        f"{path.name} imports {node.name} from an earlier chapter and defines it again"


def test_has_sliders_for_d_k_and_n(notebook):
    path, nb = notebook
    found = []
    for cell in code_cells(nb):
        for call in calls(cell.source, "sliders"):
            names = {k.arg for k in call.keywords}
            found.append(names)
            assert "nbval-ignore-output" in cell.metadata.get("tags", []), \
                f"{path.name}: a sliders(...) cell must be tagged nbval-ignore-output"
    assert any({"d_k", "n"} <= names for names in found), \
        f"{path.name}: no sliders(...) figure with both d_k and n sliders"


def test_randomness_is_seeded(notebook):
    path, nb = notebook
    for cell in code_cells(nb):
        src = cell.source
        assert not re.search(r"np\.random\.(?!default_rng)\w+\(", src), \
            f"{path.name}: use np.random.default_rng(seed), not the global RNG:\n{src[:200]}"
        for call in calls(src, "default_rng") + [c for c in ast.walk(ast.parse(src))
                                                 if isinstance(c, ast.Call)
                                                 and getattr(c.func, "attr", None) == "default_rng"]:
            assert call.args or call.keywords, \
                f"{path.name}: default_rng() without a seed: {ast.get_source_segment(src, call)}"


MAX_CELLS = 90   # issue 34: at most 90 cells a chapter; the book aims at 70


def test_a_chapter_has_at_most_90_cells(notebook):
    """A chapter is read, and run, cell by cell: at most MAX_CELLS of them. What a reader
    need not read to learn the mechanism goes elsewhere: the exercise checks into the
    package (attention_book/exercises/chNN.py, made by one hidden cell), glue into the
    hidden figure cell of the same step where there is one."""
    path, nb = notebook
    assert len(nb.cells) <= MAX_CELLS, \
        f"{path.name}: {len(nb.cells)} cells, at most {MAX_CELLS} (move bookkeeping into attention_book/)"


def test_stored_executed_top_to_bottom_without_errors(notebook):
    path, nb = notebook
    counts = [c.execution_count for c in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), \
        f"{path.name}: not executed top to bottom in one run: {counts}; run `make execute`"
    for cell in code_cells(nb):
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{path.name}: stored error {out.get('ename')}"
            assert not (out.output_type == "stream" and out.name == "stderr"), \
                f"{path.name}: stderr in stored output: {out.text[:200]}"


def stored_glue_keys(nb):
    """The keys a notebook glued in its stored run (myst-nb's glue outputs): exact, even
    for keys built with an f-string (glue(f"ch02_std_dot_{d_k}", ...))."""
    return {o.metadata["scrapbook"]["name"] for cell in code_cells(nb) for o in cell.get("outputs", [])
            if "scrapbook" in o.get("metadata", {})}


def test_every_glued_number_is_computed(notebook):
    """Every {glue} key the text quotes is a key the code glues, matched exactly: a
    literal key as written, an f-string key as one of the keys the stored run made
    with it (a key the f-string could make but the run did not is not enough)."""
    path, nb = notebook
    used = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            used |= set(re.findall(r"\{glue(?::\w+)?\}`([\w]+)", cell.source))
            used |= set(re.findall(r"^[`:]{3,}\{glue(?::\w+)?\}\s+(\w+)", cell.source, re.M))
    literal, patterns = set(), []
    for cell in code_cells(nb):
        for call in calls(cell.source, "glue"):
            name = call.args[0]
            if isinstance(name, ast.JoinedStr):  # glue(f"ch2_var_{d_k}", ...)
                patterns.append("".join(re.escape(v.value) if isinstance(v, ast.Constant) else r"\w+"
                                        for v in name.values))
            else:
                literal.add(name.value)
    stored = stored_glue_keys(nb)
    assert literal <= stored, f"{path.name}: glued in the code but not in the stored run: " \
        f"{sorted(literal - stored)}; run `make execute`"
    made = {k for k in stored if any(re.fullmatch(p, k) for p in patterns)}
    glued = literal | made
    assert stored <= glued, f"{path.name}: the stored run glued keys no glue call makes: {sorted(stored - glued)}"
    never = used - glued
    assert not never, f"{path.name}: text quotes numbers never glued: {never}"


def book_text_files():
    """Every text file of the book in git (chapters, pages, config, tools, tests,
    translations), without vendored code and the fonts themselves."""
    import subprocess
    try:
        names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):   # not a git checkout
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                 and not any(part.startswith((".", "_build")) for part in p.relative_to(ROOT).parts)]
    skip = ("book/_assets/vendor/", "attention_book/fonts/", "book/_assets/fonts/")
    suffixes = {".ipynb", ".md", ".py", ".yml", ".yaml", ".po", ".pot", ".html", ".css", ".js",
                ".bib", ".txt", ".cfg"}
    return [ROOT / n for n in names if not n.startswith(skip) and Path(n).suffix in suffixes
            and (ROOT / n).exists()]


def test_both_book_fonts_cover_every_chinese_character_the_book_uses():
    """Figures (matplotlib, .otf) and the HTML book (.woff2): no character drawn as a box."""
    used = {}
    for path in book_text_files():
        for ch in CJK.findall(path.read_text(encoding="utf-8", errors="ignore")):
            used.setdefault(ch, path.relative_to(ROOT))
    assert len(used) > 200, f"only {len(used)} Chinese characters found: is the scan broken?"
    for font in (ROOT / "attention_book" / "fonts" / "BookCJK-Regular.otf",
                 ROOT / "book" / "_assets" / "fonts" / "BookCJK-Regular.woff2",
                 ROOT / "book" / "_assets" / "fonts" / "BookCJK-Bold.woff2",
                 ROOT / "book" / "_assets" / "fonts" / "BookMono-Regular.woff2"):
        cmap = TTFont(font).getBestCmap()
        missing = {ch: str(where) for ch, where in used.items() if ord(ch) not in cmap}
        assert not missing, f"{font.name} lacks {missing}; run `make font`"


def test_web_font_is_within_budget_and_licensed():
    fonts = sorted((ROOT / "book" / "_assets" / "fonts").glob("*.woff2"))
    assert [f.name for f in fonts] == ["BookCJK-Bold.woff2", "BookCJK-Regular.woff2", "BookMono-Regular.woff2"]
    assert all(f.read_bytes()[:4] == b"wOF2" for f in fonts), "not WOFF2 files"
    size = sum(f.stat().st_size for f in fonts)
    assert size <= 1.5 * 1024 * 1024, f"web fonts {size} bytes: over 1.5 MB"
    assert "SIL OPEN FONT LICENSE" in (fonts[0].parent / "LICENSE.txt").read_text().upper()
    css = (ROOT / "book" / "_assets" / "cjk-font.css").read_text()
    assert css.count("@font-face") == 3 and all(f"fonts/{f.name}" in css for f in fonts)
    # printed tables line up in Chinese: Latin exactly half as wide as Chinese in the mono font
    mono = TTFont(fonts[2])
    widths = {mono["hmtx"][mono.getBestCmap()[ord(c)]][0] for c in "a|0"}
    assert widths == {mono["hmtx"][mono.getBestCmap()[ord("注")]][0] // 2}, widths
    assert re.search(r'html\[lang\|="zh"\] pre \{\s*font-family: "Attention Book Mono"', css)
    for var in ("--pst-font-family-base", "--pst-font-family-heading"):
        assert re.search(var + r':[^;]*"Attention Book CJK"', css), f"{var} does not fall back to the book font"
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "cjk-font.css" in config["sphinx"]["config"]["html_css_files"]


def test_github_workflow_tests_with_the_project_commands_and_publishes_the_tested_book():
    import yaml
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    triggers = flow[True] if True in flow else flow["on"]      # YAML reads `on:` as True
    assert "push" in triggers and "pull_request" in triggers
    steps = flow["jobs"]["test"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "bash .ci/run" in runs, "the workflow does not run the project's CI script"
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload and upload[0]["with"]["path"] == "_build/html"
    assert "main" in upload[0]["if"]
    deploy = flow["jobs"]["publish"]
    assert deploy["needs"] == "test" and deploy["steps"][0]["uses"].startswith("actions/deploy-pages")


def test_colour_maps_are_perceptually_uniform_and_colour_blind_safe(notebook):
    """Only viridis-family maps (readable in grey and by colour-blind readers)."""
    path, nb = notebook
    safe = {"viridis", "magma", "cividis", "inferno", "plasma", "gray", "Greys"}
    for cell in code_cells(nb):
        used = set(re.findall(r"cmap=\"(\w+)\"", cell.source)) | set(re.findall(r"plt\.cm\.(\w+)", cell.source))
        assert used <= safe, f"{path.name}: colour map(s) {used - safe} in {cell.source[:60]!r}"


def test_vendored_widget_manager_is_patched():
    """The book's widget manager (tools/widget-manager, built into
    book/_assets/vendor/widget-manager/manager.js) guards processMessage against a
    disposed view in both Lumino wrappers of ipywidgets (tools/widget-manager/README.md):
    without the guard, moving a slider now and then logs a TypeError in the reader's
    console."""
    source = (ROOT / "tools/widget-manager/src/index.js").read_text()
    assert re.search(r"\[\[base\.JupyterLuminoWidget, Widget\], \[base\.JupyterLuminoPanelWidget, Panel\]\]", source)
    assert "if (this._view) this._view.processLuminoMessage(msg);" in source
    js = (ROOT / "book/_assets/vendor/widget-manager/manager.js").read_text()
    assert "this._view&&this._view.processLuminoMessage(" in js, "run `make widget-manager`: the built file lacks the guard"
    assert not (ROOT / "book/_assets/vendor/html-manager").exists(), "the old html-manager is still vendored"


EXACT = re.compile(r"\b(?:np\.)?(?:array_equal|array_equiv|testing\.assert_array_equal|testing\.assert_equal)\(")


def exact_float_comparisons(source):
    """Lines of a chapter's code that compare arrays bit for bit (array_equal, array_equiv,
    assert_array_equal) without a `# exact: <why>` note on the line, the line above, or the
    cell's first line: the last bits of what BLAS computes move with the CPU, kernel and
    thread count, so a computed float is compared with a tolerance (np.allclose)."""
    lines = source.splitlines()
    cell_note = bool(lines) and lines[0].lstrip().startswith("# exact:")
    return [line.strip() for k, line in enumerate(lines)
            if EXACT.search(line.split("#")[0]) and not cell_note and "# exact:" not in line
            and not (k and lines[k - 1].lstrip().startswith("# exact:"))]


def test_no_chapter_compares_computed_floats_bit_for_bit(notebook):
    path, nb = notebook
    found = [(i, line) for i, c in enumerate(code_cells(nb)) for line in exact_float_comparisons(c.source)]
    assert not found, (f"{path.name}: exact comparison of arrays (use np.allclose with a tolerance, "
                       f"or say why it is exact with '# exact: ...'): {found}")


def test_the_exact_comparison_scan_catches_what_it_should():
    assert exact_float_comparisons("assert np.array_equal(A[0], A[4])")
    assert exact_float_comparisons("ok = np.testing.assert_array_equal(O, O2)")
    assert not exact_float_comparisons("assert np.allclose(A[0], A[4], atol=1e-12)")
    assert not exact_float_comparisons("# exact: boolean masks\nassert np.array_equal(m, keep)")
    assert not exact_float_comparisons("x = 1  # np.array_equal(a, b) in a comment")


def test_theme_macros_copy_differs_only_by_font_awesome_script():
    """book/_templates/static/webpack-macros.html is the theme's own, without the
    1.46 MB Font Awesome script on every page (issue 37: the icons are drawn by the
    theme's stylesheet and web fonts): after a theme update it must be copied again."""
    import pydata_sphinx_theme
    theirs = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
              / "webpack-macros.html").read_text()
    ours = (ROOT / "book" / "_templates" / "static" / "webpack-macros.html").read_text()

    def macros(text):
        text = re.sub(r"\{#.*?#\}|<!--.*?-->", "", text, flags=re.S)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return [line for line in lines if "fontawesome.js" not in line]
    assert "fontawesome.js" in theirs, "the theme no longer loads Font Awesome's script: drop our copy"
    assert not any("fontawesome" in line for line in macros(ours) + [re.sub(r"\{#.*?#\}", "", ours, flags=re.S)])
    assert macros(ours) == macros(theirs)


def test_layout_copy_drops_only_the_search_scripts_of_other_pages():
    """book/_templates/layout.html keeps the theme's `extrahead` block except the search
    scripts and index it loads on every page (issue 37: 0.18-0.26 MB of every first visit);
    pydata-sphinx-theme's search page loads them itself."""
    import pydata_sphinx_theme
    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    block = re.search(r"\{%- block extrahead %\}(.*?)\{%- endblock extrahead %\}",
                      (theme / "layout.html").read_text(), re.S).group(1)
    ours = re.search(r"\{%- block extrahead %\}(.*?)\{%- endblock extrahead %\}",
                     (ROOT / "book" / "_templates" / "layout.html").read_text(), re.S).group(1)
    kept = re.sub(r"\{% if pagename == 'search' %\}.*?\{% endif %\}", "", block, flags=re.S)
    assert [l.strip() for l in kept.splitlines() if l.strip() and not l.strip().startswith("{#")] == \
        [l.strip() for l in ours.splitlines() if l.strip()]
    assert "searchindex.js" in (theme / "search.html").read_text(), "the search page must load its index itself"
