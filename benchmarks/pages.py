"""Page weight of the built book (_build/html): each page with what it loads
from the book (images, scripts, styles; the shared vendored scripts counted
once, separately), and the whole folder.
Budget: each page <= 3 MB; each edition (English; 中文 in zh/) <= 50 MB of what
its pages load (pages, images, shared scripts, styles, fonts, search index).
(15 chapters at the page budget would be 45 MB, plus 13 MB of shared files.)
Downloads no page loads are counted apart: the chapters as notebooks (_sources/,
the page's .ipynb download; each <= 1.5 MB), the PDF (make pdf; <= 10 MB) and
chapter 15's model (_static/model/, fetched only when the reader presses Load; one
copy that both editions load).
    python benchmarks/pages.py
"""
import re
from pathlib import Path

from _common import ROOT, table

HTML = ROOT / "_build" / "html"
PAGE_MB, BOOK_MB, PDF_MB, NOTEBOOK_MB = 3.0, 50.0, 10.0, 1.5
MB = 1e6


def page_bytes(page):
    """The page, plus its images (shared scripts and styles are counted once, apart)."""
    text = page.read_text(errors="replace")
    own = page.stat().st_size
    for src in set(re.findall(r'<img[^>]+src="([^"]+)"', text)):
        f = (page.parent / src.split("?")[0]).resolve()
        if f.is_file():
            own += f.stat().st_size
    return own


def measure():
    rows = []
    for page in sorted(HTML.rglob("*.html")):
        if "_static" in page.parts or page.name in {"genindex.html", "search.html"}:
            continue
        size = page_bytes(page) / MB
        rows.append((str(page.relative_to(HTML)), f"{size:.2f}", "ok" if size <= PAGE_MB else "OVER"))
    def model(f):
        return f.relative_to(HTML).parts[:2] == ("_static", "model")
    shared = sum(f.stat().st_size for f in (HTML / "_static").rglob("*") if f.is_file() and not model(f)) / MB
    rows.append(("shared scripts, styles, fonts (_static/, once per edition)", f"{shared:.2f}", ""))
    def edition(f):
        return "zh" if f.relative_to(HTML).parts[0] == "zh" else "en"

    def download(f):
        return f.suffix == ".pdf" or "_sources" in f.relative_to(HTML).parts or model(f)
    files = [f for f in HTML.rglob("*") if f.is_file()]
    for code, name in (("en", "**English edition** (`_build/html` without `zh/`)"), ("zh", "**中文版** (`_build/html/zh`)")):
        size = sum(f.stat().st_size for f in files if edition(f) == code and not download(f)) / MB
        rows.append((name, f"{size:.2f}", "ok" if size <= BOOK_MB else "OVER"))
    for code, name in (("en", "English"), ("zh", "中文版")):
        notebooks = [f for f in files if edition(f) == code and f.suffix == ".ipynb" and download(f)]
        if notebooks:
            big = max(notebooks, key=lambda f: f.stat().st_size)
            rows.append((f"{name}: the chapters as notebooks (a download: ≤ {NOTEBOOK_MB:g} MB each; "
                         f"largest {big.name}, {len(notebooks)} together "
                         f"{sum(f.stat().st_size for f in notebooks) / MB:.1f} MB)",
                         f"{big.stat().st_size / MB:.2f}", "ok" if big.stat().st_size / MB <= NOTEBOOK_MB else "OVER"))
    parts = [f for f in files if model(f)]
    copies = [f for f in files if "model" in f.relative_to(HTML).parts[:-1] and f.name.startswith("SmolLM2")]
    if parts:
        rows.append((f"chapter 15's model (`_static/model/`, {len(parts)} files, loaded on the reader's click; "
                     f"{'one copy for both editions' if len(copies) == len(parts) else f'{len(copies) // len(parts)} copies'})",
                     f"{sum(f.stat().st_size for f in parts) / MB:.2f}", "ok" if len(copies) == len(parts) else "OVER"))
    for pdf in sorted(HTML.rglob("attention-*.pdf")):    # make pdf's, copied into the HTML book
        size = pdf.stat().st_size / MB
        rows.append((f"`{pdf.relative_to(HTML)}` (the PDF edition, a download: ≤ {PDF_MB:g} MB)",
                     f"{size:.2f}", "ok" if size <= PDF_MB else "OVER"))
    return rows


if __name__ == "__main__":
    print(table(["page", "MB", f"≤ {PAGE_MB:g} MB page, ≤ {BOOK_MB:g} MB edition"], measure(), code=(0,)))
