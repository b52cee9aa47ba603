"""Markup a screen reader can follow, in every page the book writes (issue 37).

The theme, myst-nb and docutils write a few controls whose spoken name is not
what they show (axe-core's label-content-name-mismatch, "serious") and a list
whose items have a deprecated role (aria-required-children, "critical"). When
the build has written its pages, each page gets the fixes below; a fix whose
markup is not found changes nothing (tests/browser/test_a11y.py then reports
the rule that fails).
"""
import re
from pathlib import Path

FIXES = [
    # myst-nb's folds: <summary aria-label="Toggle hidden content"> said that in
    # place of what the fold shows ("Show the solution", "Show code cell source");
    # without the label a screen reader says the fold's own visible words
    (re.compile(r'<summary aria-label="[^"]*">'), "<summary>"),
    # the search field shows "Search Ctrl+K" but was named only "Search": named by
    # what it shows (its tooltip still says "Search")
    (re.compile(r'(<button class="btn search-button-field [^"]*"[^>]*?) aria-label="[^"]*"'), r"\1"),
    # the colour-mode button: its three icons carry titles (Light, Dark, System
    # Settings), which Font Awesome writes into the button as text that is not its
    # name ("Color mode"); the icons are decoration, the button's tooltip stays
    (re.compile(r'(<i class="theme-switch [^"]*"[^>]*?) title="[^"]*"'), r"\1"),
    (re.compile(r'(<i class="theme-switch [^"]*"(?![^>]*aria-hidden)[^>]*?)>'), r'\1 aria-hidden="true">'),
    # the references: docutils' role="list" around entries whose role
    # (doc-biblioentry) ARIA 1.3 deprecates, so the list had no list items
    (re.compile(r'(<div class="citation" id="[^"]*") role="doc-biblioentry">'), r'\1 role="listitem">'),
]


_TABLE = re.compile(r'<table class="table">.*?</table>', re.S)
_EMPTY_HEADER = '<th class="head"><p></p></th>'
_ROW_START = re.compile(r'(<tr class="row-(?:even|odd)">)<td>(.*?)</td>', re.S)


def _row_headers(table):
    """A table with an empty column header (chapter 3's comparison: the top-left
    corner; the speed tables: the verdict column) names its rows in its first
    column: those cells become row headers (<th scope="row">), so every data cell
    has a header (axe-core's td-has-header, "critical"), and an empty header cell
    an ordinary one."""
    if _EMPTY_HEADER not in table:
        return table
    head, _, body = table.partition("</thead>")
    return (head.replace(_EMPTY_HEADER, "<td></td>") + "</thead>"
            + _ROW_START.sub(r'\1<th scope="row">\2</th>', body))


def fix(html):
    """The page's markup with FIXES applied."""
    for pattern, replacement in FIXES:
        html = pattern.sub(replacement, html)
    return _TABLE.sub(lambda m: _row_headers(m.group(0)), html)


def _fix_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        if "_static" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        fixed = fix(text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _fix_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
