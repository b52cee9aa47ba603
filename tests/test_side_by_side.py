"""The appendix page "Chapter 15's model in JavaScript" (book/model-in-js.md): its
directive (book/_ext/side_by_side.py) finds each named function in chapter 15's
notebook and in attention_book/web/smollm2.js, whole, in both editions."""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import side_by_side  # noqa: E402
from sphinx.errors import ExtensionError  # noqa: E402

PAGES = [(ROOT / "book" / "model-in-js.md", ROOT), (ROOT / "zh" / "book" / "model-in-js.md", ROOT / "zh")]
NAMES = re.compile(r"^```\{side-by-side\} (\w+)$", re.M)


@pytest.mark.parametrize("page, root", PAGES, ids=["en", "zh"])
def test_every_function_on_the_page_is_found_whole_on_both_sides(page, root):
    names = NAMES.findall(page.read_text(encoding="utf-8"))
    assert {"tokenize", "rms_norm", "swiglu", "rope", "self_attention", "forward"} <= set(names), names
    for name in names:
        py = side_by_side.python_function(root / side_by_side.CHAPTER, name)
        js = side_by_side.js_function(side_by_side.JS, name)
        assert py.startswith(f"def {name}(") and f"def {name}(" not in py[1:], py[:80]
        assert re.match(rf"(export )?function {name}\(", js), js[:80]
        assert js.count("{") == js.count("}") and js.endswith("}"), f"{name}: not the whole function"
        assert not js.startswith(" "), "dedented"


def test_a_name_missing_on_either_side_stops_the_build():
    with pytest.raises(ExtensionError, match="no function 'split_heads' in .*15_real_model"):
        side_by_side.python_function(ROOT / side_by_side.CHAPTER, "split_heads")   # chapter 13's, imported
    with pytest.raises(ExtensionError, match="no function 'find_model' in .*smollm2.js"):
        side_by_side.js_function(side_by_side.JS, "find_model")


def test_a_nested_function_ends_at_its_own_closing_brace(tmp_path):
    js = tmp_path / "a.js"
    js.write_text("function outer() {\n  function inner(x) {\n    if (x) { return 1; }\n    return 2;\n  }\n"
                  "  return inner;\n}\n")
    assert side_by_side.js_function(js, "inner") == "function inner(x) {\n  if (x) { return 1; }\n  return 2;\n}"
    assert side_by_side.js_function(js, "outer").endswith("return inner;\n}")
