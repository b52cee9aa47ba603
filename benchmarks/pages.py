"""Weight of the built book (_build/html) as a whole: each edition's folder, and
the downloads apart. What one page loads on a reader's first visit (everything a
fresh browser fetches for it, shared scripts included; budget <= 5 MB a page) is
measured in Chromium by benchmarks/first_visit.py.
Budget: each edition (English; 中文 in zh/) <= 50 MB of what its pages load
(pages, images and slider frames, shared scripts, styles, fonts, search index).
Downloads no page loads are counted apart: the chapters as notebooks (_sources/,
the page's .ipynb download; each <= 1.5 MB), the PDF (make pdf; <= 10 MB) and
chapter 15's model (_static/model/, fetched only when the reader presses Load; one
copy that both editions load).
    python benchmarks/pages.py
"""
from pathlib import Path

from _common import ROOT, table

HTML = ROOT / "_build" / "html"
BOOK_MB, PDF_MB, NOTEBOOK_MB = 50.0, 10.0, 1.5
MB = 1e6


def measure():
    rows = []

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
    print(table(["what", "MB", f"≤ {BOOK_MB:g} MB edition"], measure(), code=(0,)))
