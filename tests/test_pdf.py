"""The PDF editions made by `make pdf` (tools/pdf.py): _build/pdf/attention-{en,zh}.pdf.

These tests read the built PDFs (with poppler's pdftotext and pdfimages) and
the LaTeX files next to them; they do not build them. Where TeX cannot be had
(not root, no xelatex) they are skipped with the reason, except under CI
(CI=true), where a missing PDF is a failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache

import pytest
import yaml

from conftest import ROOT, calls

sys.path.insert(0, str(ROOT / "tools"))
import pdf as pdfbuild  # noqa: E402

EDITIONS = ["en", "zh"]
WIDGET_REPR = re.compile(r"(?<![.\w])(VBox|HBox|SelectionSlider|RadioButtons|Stack|HTML|IntProgress|FloatProgress|"
                         r"Output|Button|Dropdown|\w*Slider)\(|children=\(")   # not widgets.HBox( in code
WORDS = [None, "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN",
         "ELEVEN", "TWELVE", "THIRTEEN", "FOURTEEN", "FIFTEEN", "SIXTEEN", "SEVENTEEN", "EIGHTEEN",
         "NINETEEN", "TWENTY", "TWENTYONE", "TWENTYTWO"]   # squeezed: "TWENTY ONE" without its space
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def pdf_path(edition):
    return pdfbuild.OUT / pdfbuild.pdf_name(edition)


def latex_dir(edition):
    return pdfbuild.OUT / edition / "_build" / "latex"


def need(e):
    """Skip (fail under CI=true) when the edition's PDF or poppler is missing, saying why."""
    reason = None
    if not pdf_path(e).exists():
        missing = pdfbuild.tex_missing()
        reason = (f"no TeX here ({', '.join(missing)}) and no PDF built: as root, `make pdf` "
                  "installs TeX and builds both PDFs" if missing else
                  f"{pdf_path(e).name} is not built: run `make pdf` (after `make book`)")
    else:
        tool = next((t for t in ("pdftotext", "pdfimages") if not shutil.which(t)), None)
        if tool:
            reason = f"{tool} missing: `apt-get install poppler-utils` (make pdf installs it as root)"
    if reason and os.environ.get("CI") == "true":
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


@pytest.fixture(params=EDITIONS)
def edition(request):
    need(request.param)
    return request.param


@lru_cache(maxsize=None)
def pages(edition):
    """The text of each page (pdftotext, reading order)."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf_path(edition)), "-"],
                         capture_output=True, text=True, check=True).stdout
    return out.split("\f")[:-1] if out.endswith("\f") else out.split("\f")


def squeeze(text):
    """Text without spaces and line breaks (pdftotext breaks lines and inserts spaces), and
    with Sphinx's curly apostrophes and quotes made straight (Chapter 15’s → Chapter 15's),
    and the two marks the Chinese PDF's font draws as others (… as ⋯, · as ・) made one."""
    return re.sub(r"\s+", "", text).translate(str.maketrans("’‘“”⋯・", "''\"\"…·"))


def toc(edition):
    """[(docname, numbered)] of the edition's _toc.yml (zh/_toc.yml for 中文), in order."""
    t = yaml.safe_load(((ROOT if edition == "en" else ROOT / "zh") / "_toc.yml").read_text())
    return [(c["file"], part.get("numbered", False)) for part in t["parts"] for c in part["chapters"]]


def title(edition, docname):
    """The first heading of a page (its chapter title)."""
    base = ROOT if edition == "en" else ROOT / "zh"
    if (base / f"{docname}.ipynb").exists():
        nb = json.loads((base / f"{docname}.ipynb").read_text())
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    else:
        text = (base / f"{docname}.md").read_text()
    return re.search(r"^# (.+)$", text, re.M)[1].strip()


def detex(s):
    """A title as LaTeX writes it (\\sphinxhyphen{}, \\_, ...) back to text."""
    s = re.sub(r"\\sphinxhyphen\s*\{\}", "-", s).replace("\\textquotesingle{}", "'")
    s = re.sub(r"\\([_&%$#])", r"\1", s)
    return re.sub(r"\\[A-Za-z]+\s*|[{}]", "", s)


def toc_lines(edition):
    """[(number, title, page)] of the chapters in the LaTeX table of contents."""
    text = (latex_dir(edition) / f"book-{edition}.toc").read_text()
    rows = []
    for m in re.finditer(r"\\contentsline\s*\{chapter\}\{(.*)\}\{(\w+)\}\{[^{}]*\}%?\s*$", text, re.M):
        body = m[1]
        num = re.match(r"\\numberline\s*\{(\d+)\}", body)
        name = re.sub(r"\\numberline\s*\{\d+\}", "", body)
        rows.append((int(num[1]) if num else None, name, m[2]))
    return rows


def chapter_pages(edition):
    """{docname: (first page index, last page index)} of each printed chapter,
    found by its opening: "CHAPTER ONE" and the title in capitals, or "第1章" and the title."""
    docs = [d for d, _ in toc(edition) if d != pdfbuild.HOW_TO_USE]
    texts = [squeeze(p) for p in pages(edition)]
    starts, at = {}, 0
    for k, d in enumerate(docs, 1):
        want = squeeze(title(edition, d))
        head = f"第{k}章{want}" if edition == "zh" else f"CHAPTER{WORDS[k]}{want.upper()}"
        for i in range(at, len(texts)):
            if (texts[i] if edition == "zh" else texts[i].upper()).startswith(head):
                starts[d] = i
                at = i + 1
                break
    order = [d for d in docs if d in starts]
    return {d: (starts[d], starts[order[k + 1]] - 1 if k + 1 < len(order) else len(texts) - 1)
            for k, d in enumerate(order)}


# --- the build ---------------------------------------------------------------------
def test_pdf_built_without_latex_errors_or_missing_glyphs(edition):
    log = (pdfbuild.OUT / f"attention-{edition}.log").read_text(errors="replace")
    errors = re.findall(r"^(?:! .*|.*:\d+: .*Error.*)$", log, re.M)
    assert not errors, f"LaTeX errors in the {edition} log: {errors[:5]}"
    missing = sorted(set(re.findall(r"^Missing character: There is no (.+?) in font", log, re.M)))
    assert not missing, f"{edition}: glyphs missing from the fonts: {missing[:20]}"
    assert pdf_path(edition).stat().st_size <= 10e6, "over the 10 MB budget"


def test_every_chapter_in_order_with_its_number(edition):
    """Each page of _toc.yml (but How to use, which is about the HTML book) is a
    chapter of the PDF, in the same order; chapter N of the book is chapter N."""
    expected = [(d, n) for d, n in toc(edition) if d != pdfbuild.HOW_TO_USE]
    rows = [r for r in toc_lines(edition) if r[0] is not None]   # not the bibliography, put last
    assert len(rows) == len(expected), (rows, expected)
    number = 0
    for (doc, numbered), (num, name, _) in zip(expected, rows):
        assert squeeze(title(edition, doc)) == squeeze(detex(name)), (doc, name)
        if numbered:  # notebooks/NN_name is chapter NN
            number += 1
            assert num == int(re.search(r"/(\d\d)_", doc)[1]) == number, (doc, num)
    found = chapter_pages(edition)
    assert list(found) == [d for d, _ in expected], f"chapters not found in order in the text: {found}"
    for doc, (first, _) in found.items():
        m = re.search(r"/(\d\d)_", doc)
        if m and edition == "zh":
            assert f"第{int(m[1])}章" in squeeze(pages(edition)[first]), (doc, first)
        elif m:  # CHAPTER ONE
            assert f"CHAPTER{WORDS[int(m[1])]}" in squeeze(pages(edition)[first]).upper(), (doc, first)


# --- widgets, printed --------------------------------------------------------------
def test_no_widget_text_repr(edition):
    bad = [(i + 1, WIDGET_REPR.search(p)[0]) for i, p in enumerate(pages(edition)) if WIDGET_REPR.search(p)]
    assert not bad, f"{edition}: a widget printed as text on pages {bad[:10]}"


def slider_counts():
    """{docname: number of slider figures} from the notebooks' code."""
    counts = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        n = sum(len(calls("".join(c["source"]), "sliders")) for c in nb["cells"]
                if c["cell_type"] == "code" and "book-setup" not in c["metadata"].get("tags", []))
        counts[f"notebooks/{path.stem}"] = n
    return counts


def test_every_slider_figure_printed_with_its_setting(edition):
    """Each slider figure: an image, and under it the line naming the setting shown."""
    out = subprocess.run(["pdfimages", "-list", str(pdf_path(edition))],
                         capture_output=True, text=True, check=True).stdout
    image_pages = {int(line.split()[0]) for line in out.splitlines()[2:] if line.split()}
    caption = ("在 HTML 版和笔记本里可以拖动滑块" if edition == "zh"
               else "its sliders move in the HTML book and in the notebook")
    ranges = chapter_pages(edition)
    for doc, n in slider_counts().items():
        first, last = ranges[doc]
        where = [i for i in range(first, last + 1) for _ in range(squeeze(pages(edition)[i]).count(squeeze(caption)))]
        assert len(where) == n, f"{edition} {doc}: {len(where)} slider captions, {n} slider figures"
        for i in where:   # pdfimages counts pages from 1
            assert {i, i + 1} & image_pages, f"{edition} {doc}: no image before the caption on page {i + 1}"


def test_every_quiz_printed_with_options_and_answer(edition):
    answer = "答案：" if edition == "zh" else "Answer:"
    # the printed quiz's line "Answer: b)"; a code comment such as "# 你的答案：…" is not one
    marker = re.compile(re.escape(squeeze(answer)) + r"[a-h]\)")
    total = sum(len(marker.findall(squeeze(p))) for p in pages(edition))
    quizzes = 0
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        quizzes += sum(len(calls("".join(c["source"]), "quiz")) for c in nb["cells"] if c["cell_type"] == "code"
                       and "book-setup" not in c["metadata"].get("tags", []))
    assert total == quizzes, f"{edition}: {total} printed quiz answers, {quizzes} quizzes"


# --- the Chinese edition is in Chinese ---------------------------------------------------
def code_lines():
    """Every line of code and of code output of the Chinese edition's notebooks, as built
    for the PDF and, where the PDF's copy of a notebook lacks a cell's outputs (chapter 15's
    sampled continuations), for the HTML book."""
    lines = set()
    built = [pdfbuild.OUT / "zh" / "_build" / "jupyter_execute", ROOT / "_build" / "zh" / "_build" / "jupyter_execute"]
    for path in (p for d in built for p in d.rglob("*.ipynb")):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            text = "".join(cell["source"])
            for o in cell.get("outputs", []):
                text += "\n" + "".join(o.get("text", ""))
                for kind, data in o.get("data", {}).items():
                    if kind.startswith("text/"):
                        text += "\n" + re.sub(r"<[^>]*>", " ", "".join(data))
            lines.update(squeeze(line) for line in text.splitlines() if squeeze(line))
    return lines


def is_code(line, code, joined):
    """A printed line that is (part of) a line of code or output; wrapped code
    lines end in a continuation mark."""
    q = squeeze(line).rstrip("␣↪\\")
    return q in code or (len(q) > 8 and q in joined)


IDENTIFIER = re.compile(r"[\w.]*[_(=\[][\w()\[\]=.,'\"]*", re.A)   # attention_layer(X_tgt, np.array([...
CITATION = re.compile(r"\[[^\[\]]*\d{4}[a-z]?\]")                       # [Vaswani et al., 2017]
GLOSS = re.compile(r"（[A-Za-z][\w \-–'’/]*", re.A)                          # 位置编码（positional encoding）


def test_chinese_prose_is_chinese():
    """On the chapters' pages, at least 80 % of the letters are Chinese, leaving
    out code and outputs, code names in the text, citations, the English term
    after a Chinese one (位置编码（positional encoding）), and the running
    header and footer (a section title may quote English: “I will go to school”)."""
    need("zh")
    code = code_lines()
    joined = "\n".join(code)
    for doc, (first, last) in chapter_pages("zh").items():
        if not doc.startswith("notebooks/"):
            continue
        prose = [line for i in range(first, last + 1) for line in pages("zh")[i].strip().splitlines()[1:-1]
                 if squeeze(line) and not is_code(line, code, joined)]
        text = GLOSS.sub("（", CITATION.sub("", IDENTIFIER.sub("", "\n".join(prose))))
        cjk, latin = len(CJK.findall(text)), len(re.findall(r"[A-Za-z]", text))
        print(f"{doc}: {cjk / max(1, cjk + latin):.0%} of {cjk + latin} letters Chinese")
        assert cjk / max(1, cjk + latin) >= 0.8, f"{doc}: {cjk} CJK and {latin} Latin letters in its prose"
