"""Every number the text quotes through glue is tied to what the text says of it.

A chapter glues a computed value with `glue(key, value, check=...)`: `check`
states the text's claim ("more than 99 %": `lambda v: v > 0.99`) and the cell
fails when it no longer holds. A key without a check must be listed, with its
reason, in tests/glue_exceptions.txt (`key: reason`; timings, constants, memory
the text makes no claim about). f-string keys are expanded over the values of
the loops around the call, so every key is matched exactly, never by a prefix.
"""
import ast
import itertools
import re

import pytest

from conftest import NOTEBOOKS, ROOT, code_cells, read

EXCEPTIONS_FILE = ROOT / "tests" / "glue_exceptions.txt"
ROLE = re.compile(r"\{glue(?::\w+)?\}`([^`<>:]+)")          # {glue:text}`key` (a `key:fmt` too)
DIRECTIVE = re.compile(r"^[`:]{3,}\{glue(?::\w+)?\}\s+(\S+)", re.M)


def exceptions():
    """{key: reason} from tests/glue_exceptions.txt (# comments and blank lines skipped)."""
    found = {}
    for number, line in enumerate(EXCEPTIONS_FILE.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, reason = line.partition(":")
        assert sep and reason.strip(), f"glue_exceptions.txt line {number}: `key: reason` expected, got {line!r}"
        assert key.strip() not in found, f"glue_exceptions.txt lists {key.strip()} twice"
        found[key.strip()] = reason.strip()
    return found


def literal_names(nb):
    """NAME = <literal> anywhere at the top level of the notebook's code cells."""
    names = {}
    for cell in code_cells(nb):
        for node in ast.parse(cell.source).body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target, value = node.targets[0], node.value
            pairs = ([(target, value)] if isinstance(target, ast.Name)    # A, B = [1, 2], [3]
                     else zip(target.elts, value.elts) if isinstance(target, ast.Tuple)
                     and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) else [])
            for t, v in pairs:
                try:
                    if isinstance(t, ast.Name):
                        names[t.id] = ast.literal_eval(v)
                except ValueError:
                    pass
    return names


def loop_values(loop, known):
    """The bindings of a `for` target over its iterable, as a list of dicts;
    element parts that are not literals are left unbound."""
    it = loop.iter
    if isinstance(it, ast.Name) and it.id in known:
        items = [ast.Constant(v) for v in known[it.id]]
    elif isinstance(it, (ast.Tuple, ast.List)):
        items = it.elts
    elif isinstance(it, ast.Call) and getattr(it.func, "id", None) == "range":
        items = [ast.Constant(v) for v in range(*[ast.literal_eval(a) for a in it.args])]
    else:
        raise ValueError(f"loop over {ast.unparse(it)!r}: not a literal")

    def bind(target, value, into):
        if isinstance(target, ast.Name):
            try:
                into[target.id] = value.value if isinstance(value, ast.Constant) else ast.literal_eval(value)
            except ValueError:
                pass
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = (value.elts if isinstance(value, (ast.Tuple, ast.List))
                      else [ast.Constant(v) for v in value.value])
            for t, v in zip(target.elts, values, strict=True):
                bind(t, v, into)
        return into
    return [bind(loop.target, item, {}) for item in items]


def glued_keys(nb):
    """[(key, has_check, where)] for every glue(...) call of the notebook's code,
    an f-string key expanded over its enclosing loops (ValueError if it cannot be)."""
    known = literal_names(nb)
    out = []
    for index, cell in enumerate(code_cells(nb)):
        if "book-setup" in cell.metadata.get("tags", []):
            continue
        tree = ast.parse(cell.source)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "glue"):
                continue
            key = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "name")
            check = any(k.arg == "check" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
                        for k in call.keywords) or len(call.args) >= 3
            where = f"code cell {index}: {ast.unparse(call)[:80]}"
            if isinstance(key, ast.Constant):
                out.append((key.value, check, where))
                continue
            if not isinstance(key, ast.JoinedStr):
                raise ValueError(f"{where}: the key is neither a string nor an f-string")
            loops, node = [], call
            while node in parents:
                node = parents[node]
                if isinstance(node, ast.For):
                    loops.append(node)
            choices = [loop_values(loop, known) for loop in reversed(loops)]
            code = compile(ast.Expression(key), "<glue key>", "eval")
            keys = set()
            for combo in itertools.product(*choices):
                env = {k: v for binding in combo for k, v in binding.items()}
                try:
                    keys.add(eval(code, {"__builtins__": {}}, env))
                except NameError as err:
                    raise ValueError(f"{where}: cannot expand the f-string key ({err})") from None
            out += [(k, check, where) for k in sorted(keys)]
    return out


def markdown_keys(nb):
    used = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            used |= {k.strip() for k in ROLE.findall(cell.source) + DIRECTIVE.findall(cell.source)}
    return used


def test_exceptions_file_is_well_formed():
    assert exceptions(), "tests/glue_exceptions.txt lists no key: is the parser broken?"


def test_the_scan_expands_f_string_keys_exactly():
    nb = read(next(p for p in NOTEBOOKS if p.name.startswith("02_")))
    keys = {k for k, _, _ in glued_keys(nb)}
    assert {"ch02_std_dot_16", "ch02_std_dot_1024", "ch02_std_score_16", "ch02_std_score_1024"} <= keys
    assert not any("{" in k for k in keys)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_glued_value_is_checked_or_excused(path):
    """glue(key, value, check=...) or `key: reason` in glue_exceptions.txt."""
    excused = exceptions()
    unchecked = sorted({f"{key}  ({where})" for key, check, where in glued_keys(read(path))
                        if not check and key not in excused})
    assert not unchecked, (f"{path.name}: glued values the text quotes with no check= stating its claim, "
                           f"and not in tests/glue_exceptions.txt:\n  " + "\n  ".join(unchecked))


def test_every_excused_key_is_still_glued_and_unchecked():
    glued = {}
    for path in NOTEBOOKS:
        for key, check, _ in glued_keys(read(path)):
            glued[key] = glued.get(key, False) or check
    stale = sorted(k for k in exceptions() if k not in glued)
    assert not stale, f"tests/glue_exceptions.txt lists keys no notebook glues: {stale}"
    checked = sorted(k for k in exceptions() if glued[k])
    assert not checked, f"tests/glue_exceptions.txt lists keys that now have a check=: {checked}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_quoted_key_is_glued_in_its_notebook(path):
    nb = read(path)
    glued = {key for key, _, _ in glued_keys(nb)}
    missing = sorted(markdown_keys(nb) - glued)
    assert not missing, f"{path.name}: the text quotes glue keys this notebook never glues: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_scan_finds_every_key_the_stored_run_glued(path):
    """The static scan against the stored outputs (myst-nb records each glued key):
    a key the run glued but the scan missed would escape the checks above."""
    nb = read(path)
    scanned = {key for key, _, _ in glued_keys(nb)}
    stored = {out.metadata["scrapbook"]["name"] for cell in code_cells(nb) for out in cell.get("outputs", [])
              if "scrapbook" in out.get("metadata", {})}
    assert stored <= scanned, f"{path.name}: glued when run but not found by the scan: {sorted(stored - scanned)}"
