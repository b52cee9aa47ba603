"""The book's search: results by relevance, each with a snippet, with no request.

Sphinx's search page lists pages whose index terms match, orders pages of equal
score by title (1, 10, 11, 2 ...), and fetches every result page to cut a snippet
from it: from a copy on disk (file://) each fetch fails (a console error and a failed
request per result). This extension writes the text of every page into
`_static/search-text.js` when the book is built, loaded by the search page only;
`book/_assets/search-scorer.js` (html_search_scorer) scores each result by how often
the words searched for occur in that text (ties in the book's order), and
`book/_assets/search-snippets.js` shows beside each result the sentence around the
first occurrence. Sphinx's own snippet fetch is off (html_show_search_summary)."""
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from sphinx.application import Sphinx

HERE = Path(__file__).resolve().parent
SKIP = {"script", "style", "template", "noscript"}


class _Text(HTMLParser):
    """The reader's text of a page: its article, without scripts, permalinks,
    widget previews (aria-hidden) and the folded source of code cells' prompts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0          # inside <article>
        self.skip = []          # open tags being skipped
        self.parts = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.depth += 1
        if self.skip:
            if tag not in ("br", "img", "input", "meta", "link", "hr", "source", "wbr"):
                self.skip.append(tag)
            return
        classes = (a.get("class") or "").split()
        if tag in SKIP or a.get("aria-hidden") == "true" or "headerlink" in classes:
            if tag not in ("br", "img", "input", "meta", "link", "hr", "source", "wbr"):
                self.skip.append(tag)
        elif tag in ("p", "li", "div", "h1", "h2", "h3", "h4", "td", "th", "pre", "dt", "dd"):
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if self.skip:
            self.skip.pop()
        elif tag == "article":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.parts.append(data)

    def text(self):
        return re.sub(r"\s+", " ", "".join(self.parts)).strip()


def page_text(html):
    parser = _Text()
    parser.feed(html)
    return parser.text()


def search_page(app, pagename, templatename, context, doctree):
    if pagename == "search":
        app.add_js_file("search-text.js")
        app.add_js_file("search-snippets.js")


def write_texts(app, exception):
    if exception or app.builder.format != "html":
        return
    out = Path(app.outdir)
    texts = {}
    order = []

    def walk(doc):                  # the book's reading order (its table of contents)
        if doc not in order:
            order.append(doc)
            for child in app.env.toctree_includes.get(doc, []):
                walk(child)
    walk(app.config.root_doc)
    for docname in list(dict.fromkeys(order + sorted(app.env.found_docs))):
        page = out / f"{docname}.html"
        if page.is_file():
            texts[docname] = page_text(page.read_text(encoding="utf-8", errors="replace"))
    (out / "_static").mkdir(exist_ok=True)
    (out / "_static" / "search-text.js").write_text(
        "// The text of every page, for the search page's relevance and snippets (book/_ext/search_snippets.py)\n"
        "window.BOOK_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False) + ";\n"
        "window.BOOK_SEARCH_ORDER = " + json.dumps(list(texts)) + ";\n", encoding="utf-8")


def configure(app, config):
    config.html_show_search_summary = False      # no fetch per result: search-snippets.js does it
    config.html_search_scorer = str(HERE.parent / "_assets" / "search-scorer.js")


def setup(app: Sphinx):
    app.connect("config-inited", configure)
    app.connect("html-page-context", search_page)
    app.connect("build-finished", write_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
