"""Chinese text in the built book is drawn with the book's own font.

A Chromium whose fontconfig sees only a Latin font folder (no system CJK font,
as on a reader's machine without fonts-noto-cjk) opens every page. On each,
the book's FontFace is loaded, `document.fonts.check` holds for the page's
Chinese characters, and Chromium reports (DevTools `CSS.getPlatformFontsForNode`)
that every Chinese character on screen was drawn with that font, not as a box.
"""
import os
import re
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, HTML

FAMILY = "Attention Book CJK"
LATIN_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation")]
PAGES = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
               if "_static" not in p.parts and p.name != "genindex.html"
               and 'http-equiv="Refresh"' not in p.read_text()[:300])     # index.html redirects
CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"

# Mark every visible element with Chinese in its own text nodes; return their counts.
MARK = """cjk => { const re = new RegExp(cjk, 'g'); const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el; el = walker.nextNode()) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName)) continue;
    let n = 0, text = '';
    for (const child of el.childNodes)
      if (child.nodeType === 3) { const m = child.data.match(re); if (m) { n += m.length; text += m.join(''); } }
    if (!n || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    el.setAttribute('data-cjk-i', out.length);
    out.push({n, text});
  }
  return out; }"""


@pytest.fixture(scope="module")
def latin_only_browser(playwright, tmp_path_factory):
    """Chromium with a fontconfig that lists only Latin fonts."""
    latin = [d for d in LATIN_DIRS if d.is_dir()]
    if not latin:
        pytest.fail("no Latin font folder found (install Debian's fonts-dejavu-core)")
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    + "".join(f"  <dir>{d}</dir>\n" for d in latin)
                    + f"  <cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=env)
    yield b
    b.close()


def test_the_test_browser_has_no_cjk_font(latin_only_browser, server):
    """Without the book's font, Chinese would not be drawn: proves the set-up."""
    ctx = latin_only_browser.new_context()
    tab = ctx.new_page()
    try:
        tab.set_content('<p style="font-family: sans-serif">注意力机制</p>')
        drawn = platform_fonts(ctx, tab, "p")
        assert not any(f["isCustomFont"] for f in drawn)
        assert not any(re.search("CJK|Han|Hei|Ming|Song|WenQuanYi", f["familyName"]) for f in drawn), \
            f"a system CJK font is visible to the test browser: {drawn}"
    finally:
        ctx.close()


def platform_fonts(ctx, tab, selector):
    cdp = ctx.new_cdp_session(tab)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]


def drawn_with_ours(fonts):
    """How many glyphs of a node Chromium drew with the book's font."""
    return sum(f["glyphCount"] for f in fonts if f["isCustomFont"]
               and (FAMILY in f["familyName"] or "AttentionBookCJK" in f.get("postScriptName", "")))


@pytest.mark.parametrize("page", PAGES)
def test_chinese_is_drawn_with_the_books_font(latin_only_browser, server, page):
    ctx = latin_only_browser.new_context(viewport={"width": 1280, "height": 900})
    tab = ctx.new_page()
    tab.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())
    try:
        tab.goto(f"{server}/{page}", wait_until="load")
        marked = tab.evaluate(MARK, CJK)
        assert marked, f"{page}: no Chinese text on the page (every page has the book's title)"
        faces = tab.evaluate(f"""document.fonts.ready.then(() => [...document.fonts]
            .filter(f => f.family.replace(/["']/g, '') === '{FAMILY}').map(f => f.status))""")
        assert faces == ["loaded", "loaded"], f"{page}: the book's two FontFaces are {faces or 'missing'}"
        chars = "".join(sorted({c for m in marked for c in m["text"]}))
        assert tab.evaluate("t => document.fonts.check(`16px \"" + FAMILY + "\"`, t)", chars)
        cdp = ctx.new_cdp_session(tab)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-cjk-i]"})["nodeIds"]
        not_ours, drawn = [], 0
        for node in ids:
            attrs = cdp.send("DOM.getAttributes", {"nodeId": node})["attributes"]
            i = int(attrs[attrs.index("data-cjk-i") + 1])
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            if drawn_with_ours(fonts) < marked[i]["n"]:
                # Chromium may report text below the fold as shaped before the font
                # arrived: look again once it has been scrolled into view and painted
                tab.evaluate(f"document.querySelector('[data-cjk-i=\"{i}\"]').scrollIntoView()")
                tab.wait_for_timeout(300)
                fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            if not fonts:          # laid out but never painted (inside a collapsed box)
                continue
            drawn += 1
            if drawn_with_ours(fonts) < marked[i]["n"]:
                not_ours.append((marked[i]["text"][:20], fonts))
        assert drawn, f"{page}: Chromium reports no font for any Chinese text"
        assert not not_ours, f"{page}: Chinese not drawn with the book's font: {not_ours[:3]}"
    finally:
        ctx.close()
