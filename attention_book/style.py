"""The book's plot style and its Chinese font for figures (applied on import)."""
import os
from pathlib import Path

import matplotlib as mpl

FONT = Path(__file__).parent / "fonts" / "BookCJK-Regular.otf"   # made by `make font`

# Static mode (set by `make book`): every slider frame is drawn in advance and
# switched in the browser, so the sliders work in the HTML book with no kernel.
STATIC = os.environ.get("ATTENTION_BOOK_STATIC") == "1"


def apply():
    """Figures at 72 dpi (1 pt of text = 1 CSS px), viridis, 11 pt text, retina
    output in Jupyter; the book's CJK font after DejaVu Sans (Latin keeps its font)."""
    mpl.rcParams.update({"figure.dpi": 72, "savefig.dpi": 72,
                         "image.cmap": "viridis", "font.size": 11,
                         # titles at a fixed height: matplotlib need not search for a
                         # free place above each panel every time a frame is drawn
                         "axes.titley": 1.0})
    try:  # plain figures at twice the pixels, shown at their size: sharp on 2x screens
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("retina")
    except Exception:  # not in IPython, or an older matplotlib-inline: 1x figures
        pass
    if CJK_FONT:
        mpl.rcParams["font.family"] = ["DejaVu Sans", CJK_FONT]


def _cjk_font():
    """Register the book's CJK font (or a system one); return its family name or None."""
    from matplotlib import font_manager
    if FONT.exists():
        font_manager.fontManager.addfont(str(FONT))
        return font_manager.FontProperties(fname=str(FONT)).get_name()
    for name in ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
                 "SimHei", "Microsoft YaHei", "PingFang SC"):
        if any(f.name == name for f in font_manager.fontManager.ttflist):
            return name
    return None


CJK_FONT = _cjk_font()


def zh(chinese, pinyin):
    """A label in Chinese, or in pinyin where no CJK font can be had."""
    return chinese if CJK_FONT else pinyin
