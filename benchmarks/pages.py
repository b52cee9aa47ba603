"""Page weight of the built book (_build/html): each page with what it loads
from the book (images, scripts, styles; the shared vendored scripts counted
once, separately), and the whole folder.
Budget: each page <= 3 MB, the whole book <= 40 MB.
    python benchmarks/pages.py
"""
import re
from pathlib import Path

from _common import ROOT, table

HTML = ROOT / "_build" / "html"
PAGE_MB, BOOK_MB = 3.0, 40.0
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
    total = sum(f.stat().st_size for f in HTML.rglob("*") if f.is_file()) / MB
    rows.append(("shared scripts, styles, fonts (_static/, once)", f"{shared:.2f}", ""))
    rows.append(("**whole book** (_build/html)", f"{total:.2f}", "ok" if total <= BOOK_MB else "OVER"))
    return rows


if __name__ == "__main__":
    print(table(["page", "MB", f"≤ {PAGE_MB:g} MB page, ≤ {BOOK_MB:g} MB book"], measure()))
