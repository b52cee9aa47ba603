"""A Sphinx directive for the appendix page "Chapter 15's model in JavaScript":

    ```{side-by-side} rms_norm
    ```

shows chapter 15's numpy function of that name (read from the chapter's notebook,
notebooks/15_real_model.ipynb under the book being built, so each edition shows its
own notebook's code) beside the JavaScript function of the same name in
attention_book/web/smollm2.js. Both are read when the book is built: the page cannot
drift from the code. A name missing on either side stops the build."""
import ast
import hashlib
import json
import re
import textwrap
from pathlib import Path

from docutils import nodes
from sphinx.directives.code import container_wrapper
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

JS = Path(__file__).resolve().parents[2] / "attention_book" / "web" / "smollm2.js"
CHAPTER = Path("notebooks") / "15_real_model.ipynb"


def python_function(notebook, name):
    """The source of `def name` in the notebook's code cells (the first cell defining it)."""
    for cell in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            tree = ast.parse(source)
        except SyntaxError:          # a cell with IPython syntax (%magic) defines nothing here
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                lines = source.splitlines()
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                return "\n".join(lines[start - 1:node.end_lineno])
    raise ExtensionError(f"side-by-side: no function {name!r} in {notebook}")


def js_function(path, name):
    """The source of `function name(…) { … }` in a JavaScript file: from its line to the
    closing brace at the same indentation, dedented."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    head = re.compile(rf"^(\s*)(?:export\s+)?(?:async\s+)?function\s+{re.escape(name)}\s*\(")
    for i, line in enumerate(lines):
        m = head.match(line)
        if not m:
            continue
        end = m.group(1) + "}"
        for j in range(i, len(lines)):
            if lines[j].rstrip() == end or (j == i and line.rstrip().endswith("}")):
                return textwrap.dedent("\n".join(lines[i:j + 1]))
        raise ExtensionError(f"side-by-side: {path}: function {name} has no closing brace at its indentation")
    raise ExtensionError(f"side-by-side: no function {name!r} in {path}")


class SideBySide(SphinxDirective):
    """Chapter 15's numpy function and the page's JavaScript one, side by side."""
    required_arguments = 1
    has_content = False

    def run(self):
        name = self.arguments[0]
        notebook = Path(self.env.srcdir) / CHAPTER
        for path in (notebook, JS):
            self.env.note_dependency(str(path))
        row = nodes.container(classes=["side-by-side", "full-width"])   # into the margin where the theme has one
        for code, language, caption in [
                (python_function(notebook, name), "python", f"numpy · {CHAPTER.as_posix()}"),
                (js_function(JS, name), "javascript", "JavaScript · attention_book/web/smollm2.js")]:
            block = nodes.literal_block(code, code, language=language)
            self.set_source_info(block)
            row += container_wrapper(self, block, caption)
        return [row]


def setup(app):
    app.add_directive("side-by-side", SideBySide)
    # a change to this file re-reads the pages (Sphinx keeps their doctrees otherwise)
    version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": version}
