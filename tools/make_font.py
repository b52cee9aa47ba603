"""Make the book's CJK fonts: subsets of Noto Sans CJK SC (SIL OFL 1.1).

Two files, from one font and the book's own text:

- attention_book/fonts/BookCJK-Regular.otf, for matplotlib (figure labels): the 3755
  characters of GB2312 level 1 (the most common simplified Chinese
  characters), CJK punctuation, full-width forms, and every Chinese character
  the book uses, so a chapter can put ordinary Chinese words in a figure
  without regenerating it.
- book/_assets/fonts/BookCJK-Regular.woff2 and BookCJK-Bold.woff2, for the
  HTML book (served by the book itself, loaded by book/_assets/cjk-font.css;
  a real bold face, so bold Chinese is bold): every Chinese character
  the book uses (its text, code, glossary, configuration, templates and
  translations), CJK punctuation and full-width forms. Kept small: it is
  downloaded with the page.

Needs Debian's fonts-noto-cjk (the .ttc it reads), fontTools and brotli
(requirements.txt). Run: `make font` (or python tools/make_font.py).
tests/test_structure.py fails when a character the book uses is missing from
either file.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parents[1]
NOTO = Path("/usr/share/fonts/opentype/noto")
SRC = NOTO / "NotoSansCJK-Regular.ttc"
SRC_BOLD = NOTO / "NotoSansCJK-Bold.ttc"
OTF = ROOT / "attention_book" / "fonts" / "BookCJK-Regular.otf"
WOFF2 = ROOT / "book" / "_assets" / "fonts" / "BookCJK-Regular.woff2"
WOFF2_BOLD = ROOT / "book" / "_assets" / "fonts" / "BookCJK-Bold.woff2"
# printed output in the Chinese edition: Noto Sans Mono CJK SC, whose Latin letters are
# exactly half as wide as its Chinese characters, so printed tables line up on screen
WOFF2_MONO = ROOT / "book" / "_assets" / "fonts" / "BookMono-Regular.woff2"
FAMILY = "Attention Book CJK"

# Han ideographs (with extension A and compatibility forms), CJK punctuation and
# full-width forms: the ranges the web font covers (its CSS unicode-range).
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
UNICODE_RANGE = "U+3000-303F, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FF00-FFEF"

# The book's text: every text file in git (chapters, pages, table of contents,
# configuration, templates, tools, tests, translations), vendored code aside.
SUFFIXES = {".ipynb", ".md", ".py", ".yml", ".yaml", ".po", ".pot", ".html", ".css", ".js",
            ".bib", ".txt", ".cfg"}
SKIP = ("book/_assets/vendor/", "attention_book/fonts/", "book/_assets/fonts/")


def text_files(root=ROOT):
    """The book's text files: tracked or new (not ignored) in git, else every file."""
    try:
        names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                               cwd=root, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                 and not any(part.startswith((".", "_build")) for part in p.relative_to(root).parts)]
    return [root / n for n in names
            if not n.startswith(SKIP) and Path(n).suffix in SUFFIXES and (root / n).is_file()]


def book_characters(root=ROOT):
    """Every CJK character (in the ranges above) in the book's own text files."""
    chars = set()
    for path in text_files(root):
        chars.update(CJK.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return chars


def common_characters():
    """GB2312 level 1, CJK punctuation, full-width forms."""
    chars = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars | punctuation()


def punctuation():
    """CJK punctuation and full-width forms, and the typographic marks between them."""
    chars = {chr(c) for c in range(0x3000, 0x3040)} | {chr(c) for c in range(0xFF01, 0xFF5F)}
    return chars | set("·—‘’“”…")


def subset_font(text, flavor=None, src=SRC, mono=False):
    """Noto Sans CJK SC (mono: Noto Sans Mono CJK SC) cut down to `text`, renamed so it
    never shadows a system font."""
    collection = TTCollection(src)
    source = "Noto Sans Mono CJK SC" if mono else "Noto Sans CJK SC"
    font = next(f for f in collection.fonts if f["name"].getDebugName(1) == source)
    family = "Attention Book Mono" if mono else FAMILY
    opts = subset.Options()
    opts.name_IDs = ["*"]
    opts.layout_features = []
    opts.hinting = False
    opts.desubroutinize = True
    opts.flavor = flavor
    sub = subset.Subsetter(opts)
    sub.populate(text="".join(sorted(text)))
    sub.subset(font)
    style = "Bold" if src == SRC_BOLD else "Regular"
    for rec in font["name"].names:
        if rec.nameID in (1, 16):
            rec.string = family
        elif rec.nameID == 4:
            rec.string = f"{family} {style}" if style == "Bold" else family
        elif rec.nameID == 6:
            rec.string = f"{family.replace(' ', '')}-{style}"
    if flavor:
        font.flavor = flavor
    return font


def main():
    if not SRC.exists():
        sys.exit(f"{SRC} not found: install Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk)")
    used = book_characters()
    subset_font(common_characters() | used).save(OTF)
    WOFF2.parent.mkdir(parents=True, exist_ok=True)
    subset_font(punctuation() | used, flavor="woff2").save(WOFF2)
    subset_font(punctuation() | used, flavor="woff2", src=SRC_BOLD).save(WOFF2_BOLD)
    ascii_ = {chr(c) for c in range(0x20, 0x7F)} | set("·—‘’“”…×−≈≤≥²³ᵀ√→←‖∂σρτμ")
    subset_font(ascii_ | punctuation() | used, flavor="woff2", mono=True).save(WOFF2_MONO)
    shutil.copy(OTF.parent / "LICENSE.txt", WOFF2.parent / "LICENSE.txt")
    han = {c for c in used if "\u3400" <= c <= "\u9fff"}
    print(f"the book uses {len(used)} CJK characters ({len(han)} Han)")
    print(f"{OTF.relative_to(ROOT)}: {OTF.stat().st_size / 1024:.0f} KiB, "
          f"{len(common_characters() | used)} characters")
    for path in (WOFF2, WOFF2_BOLD, WOFF2_MONO):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KiB, "
              f"{len(punctuation() | used)} characters")


if __name__ == "__main__":
    main()
