"""The chapters' modules: attention_book/chNN.py, generated from the cells marked `#@save`.

    python tools/package.py          # write attention_book/chNN.py for every chapter that saves code
    python tools/package.py --check  # fail if a module differs from its chapter (tests do this too)

A function lives once, in view, in the chapter that teaches it. A code cell whose
first line is `#@save` is saved: its functions, classes and constants (names
bound to a literal, such as `d_model = 16` or `TILE = 64`) go, in order, into
attention_book/chNN.py, after every import the chapter makes; the rest of the
cell (data, a demonstration that prints) stays in the chapter only. A later
chapter imports a function in one visible line, `from attention_book.ch05
import attention`; that line is one of its imports, so its own saved functions
may use the earlier chapter's. Each definition is preceded by a
"Defined in" line naming the chapter and cell. (d2l marks the functions of its
`d2l` package the same way, with `#@save`.)

The generated files are committed (Colab installs the package from the
repository), and a test fails when one is not what this script makes of the
chapters, or when a saved function uses a name its module does not define.
"""
import ast
import re
import symtable
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
PACKAGE = ROOT / "attention_book"
MARK = "#@save"
IMPORT = re.compile(r"^from attention_book\.ch\d\d import .+$", re.M)


def chapters():
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def module_path(chapter):
    return PACKAGE / f"ch{chapter.name[:2]}.py"


def saved_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(MARK)]


def _kept(node):
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        literal = node.value is not None and not any(  # a constant expression: 16, 2 ** 19, (1, 2)
            isinstance(n, (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Lambda, ast.comprehension))
            for n in ast.walk(node.value))
        return literal and all(isinstance(t, ast.Name) for t in targets)
    return False


def _segment(source, node):
    """The node's source with its decorators and the comment lines right above it."""
    lines = source.splitlines()
    first = (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno) - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#") and not lines[first - 1].startswith(MARK):
        first -= 1
    return "\n".join(lines[first:node.end_lineno])


def module_source(chapter):
    """attention_book/chNN.py as the chapter's saved cells make it, or None if it saves nothing."""
    nb = nbformat.read(chapter, as_version=4)
    cells = saved_cells(nb)
    if not cells:
        return None
    imports = []  # every top-level import of the chapter (the setup cell's aside), earlier chapters' too,
    for cell in nb.cells:  # but not its exercise checks (attention_book.exercises): no saved function uses them
        if cell.cell_type == "code" and "book-setup" not in cell.metadata.get("tags", []):
            try:
                nodes = ast.parse(cell.source).body
            except SyntaxError:
                continue
            imports += [t for t in (ast.get_source_segment(cell.source, n) for n in nodes
                                    if isinstance(n, (ast.Import, ast.ImportFrom))
                                    and not (getattr(n, "module", None) or "").startswith("attention_book.exercises"))
                        if t not in imports]
    body = []
    for cell in cells:
        source = cell.source
        for node in ast.parse(source).body:
            if not _kept(node):
                continue
            text = _segment(source, node)
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            body.append(f"# Defined in chapter {int(chapter.name[:2])}, {chapter.name} (cell {cell.id})\n{text}")
    head = (f'"""The functions chapter {int(chapter.name[:2])} teaches ({chapter.name}).\n\n'
            f"Generated from the chapter's cells marked #@save by tools/package.py\n"
            f'(make package): edit the chapter, not this file."""\n')
    return head + "import numpy as np\n" + "".join(i + "\n" for i in imports if i != "import numpy as np") \
        + "\n\n" + "\n\n\n".join(body) + "\n"


def undefined_names(source, name="module"):
    """Global names a function of `source` uses that the module does not define."""
    import builtins
    top = symtable.symtable(source, name, "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    missing = set()

    def walk(table):
        for child in table.get_children():
            if child.get_type() == "function":
                missing.update(n for n in child.get_globals() if n not in defined and not hasattr(builtins, n))
            walk(child)
    walk(top)
    return sorted(missing)


def build(check=False):
    stale, problems = [], []
    for chapter in chapters():
        text, path = module_source(chapter), module_path(chapter)
        if text is None:
            if path.exists():
                stale.append(f"{path.relative_to(ROOT)} (the chapter saves nothing now)")
                if not check:
                    path.unlink()
            continue
        missing = undefined_names(text, path.name)
        if missing:
            problems.append(f"{path.relative_to(ROOT)}: its functions use {', '.join(missing)}, which "
                            f"{chapter.name} defines in no #@save cell (save that cell, or import it)")
            continue
        if not path.exists() or path.read_text() != text:
            stale.append(str(path.relative_to(ROOT)))
            if not check:
                path.write_text(text)
    if problems:
        sys.exit("\n".join(problems))
    if check and stale:
        sys.exit("not what the chapters make (run `make package`): " + ", ".join(stale))
    for s in stale:
        print("wrote", s)


if __name__ == "__main__":
    build(check="--check" in sys.argv[1:])
