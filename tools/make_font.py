"""Make the book's CJK font: a subset of Noto Sans CJK SC (SIL OFL 1.1).

The subset holds the 3755 characters of GB2312 level 1 (the most common
simplified Chinese characters), CJK punctuation and full-width forms, so
chapters can use ordinary Chinese words in figures without regenerating it.
Needs Debian's fonts-noto-cjk (the .ttc it reads) and fontTools, which
matplotlib already depends on.  Run: python tools/make_font.py
"""
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

SRC = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
OUT = Path(__file__).resolve().parents[1] / "notebooks" / "fonts" / "BookCJK-Regular.otf"


def characters():
    """GB2312 level 1, CJK punctuation, full-width forms."""
    chars = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    chars.update(chr(c) for c in range(0x3000, 0x3040))   # CJK punctuation
    chars.update(chr(c) for c in range(0xFF01, 0xFF5F))   # full-width forms
    chars.update("·—‘’“”…")
    return chars


def main():
    collection = TTCollection(SRC)
    font = next(f for f in collection.fonts
                if "Noto Sans CJK SC" in f["name"].getDebugName(1))
    opts = subset.Options()
    opts.name_IDs = ["*"]
    opts.layout_features = []
    opts.hinting = False
    opts.desubroutinize = True
    sub = subset.Subsetter(opts)
    sub.populate(text="".join(sorted(characters())))
    sub.subset(font)
    # a family name of its own, so it never shadows a system Noto font
    for rec in font["name"].names:
        if rec.nameID in (1, 4, 16):
            rec.string = "Attention Book CJK"
        elif rec.nameID == 6:
            rec.string = "AttentionBookCJK-Regular"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    font.save(OUT)
    print(f"{OUT}: {OUT.stat().st_size / 1024:.0f} KiB, {len(characters())} characters")


if __name__ == "__main__":
    main()
