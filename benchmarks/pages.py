"""Page weight of the built book (_build/html): each page with what it loads
from the book (images, scripts, styles; the shared vendored scripts counted
once, separately), and the whole folder.
Budget: each page <= 3 MB; each edition (English; 中文 in zh/) <= 40 MB, not
counting its PDF, a download no page loads (make pdf; each PDF <= 10 MB).
    python benchmarks/pages.py
"""
import re
from pathlib import Path

from _common import ROOT, table

HTML = ROOT / "_build" / "html"
PAGE_MB, BOOK_MB, PDF_MB = 3.0, 40.0, 10.0
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
    shared = sum(f.stat().st_size for f in (HTML / "_static").rglob("*") if f.is_file()) / MB
    rows.append(("shared scripts, styles, fonts (_static/, once per edition)", f"{shared:.2f}", ""))
    files = [f for f in HTML.rglob("*") if f.is_file() and f.suffix != ".pdf"]
    zh = sum(f.stat().st_size for f in files if f.relative_to(HTML).parts[0] == "zh") / MB
    english = sum(f.stat().st_size for f in files) / MB - zh
    for name, size in (("**English edition** (_build/html without zh/)", english),
                       ("**中文版** (_build/html/zh)", zh)):
        rows.append((name, f"{size:.2f}", "ok" if size <= BOOK_MB else "OVER"))
    for pdf in sorted(HTML.rglob("attention-*.pdf")):    # make pdf's, copied into the HTML book
        size = pdf.stat().st_size / MB
        rows.append((f"{pdf.relative_to(HTML)} (the PDF edition, a download: ≤ {PDF_MB:g} MB)",
                     f"{size:.2f}", "ok" if size <= PDF_MB else "OVER"))
    return rows


if __name__ == "__main__":
    print(table(["page", "MB", f"≤ {PAGE_MB:g} MB page, ≤ {BOOK_MB:g} MB edition"], measure()))
