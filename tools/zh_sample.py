"""A random sample of the Chinese edition's sentences, for an editor's review.

    python tools/zh_sample.py SEED [N] [--html _build/html/zh] > sample.md

Reads the built Chinese pages (what a reader sees: the article's text, printed
output and figure captions included; code, formulas and the theme's chrome left
out), splits them into sentences at 。！？； and at line and block ends, keeps
those with at least four Chinese characters, and draws N (default 240) of them
without replacement with random.Random(SEED). Every sentence has the same chance,
so each page is sampled in proportion to its length. Each line names the page and
gives the sentence before it, for context. A review of a fresh sample uses a new
seed (issue 38: count the sentences an editor would change, by kind).
"""
import argparse
import random
import re
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3400-\u9fff]")
END = re.compile(r"(?<=[。！？；])")


def sentences(html_file):
    """The sentences of one built page, in reading order."""
    soup = BeautifulSoup(html_file.read_text(encoding="utf-8"), "html.parser")
    main = soup.find("article") or soup.find("main")
    if main is None:
        return []
    for tag in main.select(".math"):                 # a formula: its TeX, as the reader reads it
        tag.replace_with(tag.get_text().strip())
    for tag in main.select("script, style, .highlight, button, .headerlink, nav"):
        tag.decompose()
    found = []
    for block in main.find_all(["p", "li", "dt", "dd", "td", "th", "h1", "h2", "h3", "h4",
                                "figcaption", "pre", "summary"]):
        if block.find(["p", "li", "pre"]):        # a container: its children are read instead
            continue
        text = block.get_text().strip()
        for line in text.splitlines():
            for part in END.split(re.sub(r"\s+", " ", line).strip()):
                if len(CJK.findall(part)) >= 4:
                    found.append(part.strip())
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("n", type=int, nargs="?", default=240)
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html" / "zh")
    args = parser.parse_args()
    pages = sorted(p for p in args.html.rglob("*.html")
                   if not p.name.startswith(("genindex", "search")) and "_static" not in p.parts)
    pool = []
    for page in pages:
        found = sentences(page)
        pool += [(page.relative_to(args.html), i, s, found[i - 1] if i else "") for i, s in enumerate(found)]
    if len(pool) < args.n:
        raise SystemExit(f"only {len(pool)} sentences in {args.html}: is the Chinese edition built (make book)?")
    sample = random.Random(args.seed).sample(pool, args.n)
    print(f"# {args.n} of {len(pool)} sentences of {args.html} (seed {args.seed})\n")
    for k, (page, i, s, before) in enumerate(sample, 1):
        print(f"{k}. [{page} #{i}] {s}")
        if before:
            print(f"   (before: {before[-120:]})")


if __name__ == "__main__":
    main()
