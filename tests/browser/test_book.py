"""The built book as a reader sees it: offline, no script errors, math
rendered, every slider changes the picture it sits above, every quiz option
explains itself, the language switch leads to the same page in the other
edition, Chinese is drawn with the book's own font.

Page by page, the tests of a page sharing one load (conftest.py); `make
test-browser` runs the English pages and the Chinese ones (-k "zh/") in two
processes, beside the live-kernel tests in a third."""
import os
import re
import sys

import pytest

from conftest import HTML, visit

PAGES = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
               if p.name not in {"genindex.html", "search.html"} and "_static" not in p.parts)
SLIDER_PAGES = [p for p in PAGES if "vnd.jupyter.widget-state+json" in (HTML / p).read_text()]



@pytest.mark.parametrize("page", PAGES)
def test_page_loads_offline_without_errors(loaded, page):
    ctx, tab, log = loaded(page)
    assert not log["foreign"], f"requests to other hosts: {log['foreign']}"
    missing = [u for u in log["missing"]]
    assert not missing, f"missing files: {missing}"
    assert not log["errors"], f"console errors: {log['errors']}"
    assert tab.locator("link[rel='icon']").count(), "no favicon: the browser asks for /favicon.ico (404)"
    if tab.locator("div.math, span.math").count():
        tab.wait_for_selector("mjx-container", state="attached", timeout=10000)
        assert tab.locator("mjx-container").count() > 0, "math was not rendered"
        assert tab.locator("text=/\\\\frac|\\\\sqrt/").count() == 0, "raw TeX is showing"


def test_the_widget_icon_fonts_load_from_the_book(loaded):
    """A widget that draws an icon (Font Awesome class names) makes the page fetch an
    icon font: from the book (the theme's web fonts), not a path that 404s."""
    ctx, tab, log = loaded("notebooks/08_long_range_dependencies.html")
    fonts = []
    tab.on("response", lambda r: fonts.append((r.status, r.url)) if re.search(r"\.(woff2?|ttf)$", r.url) else None)
    tab.evaluate("""() => { for (const c of ['fa fa-play', 'fab fa-github', 'far fa-circle']) {
      const i = document.createElement('i'); i.className = c; i.dataset.probe = '';
      document.querySelector('.jupyter-widgets').appendChild(i); } }""")
    tab.wait_for_timeout(1500)
    tab.evaluate("() => document.querySelectorAll('[data-probe]').forEach(e => e.remove())")
    assert any("fontawesome" in u for _, u in fonts), f"no icon font was fetched: {fonts}"
    assert all(status < 400 for status, _ in fonts), f"icon fonts missing: {fonts}"


HASH_VISIBLE = """root => Promise.all([...root.querySelectorAll('img')]
  .filter(img => img.offsetParent !== null && img.naturalWidth > 0)
  .map(img => fetch(img.src).then(r => r.arrayBuffer())
       .then(b => crypto.subtle.digest('SHA-256', b))
       .then(h => Array.from(new Uint8Array(h)).map(x => x.toString(16)).join(''))))"""


@pytest.mark.parametrize("page", SLIDER_PAGES)
def test_every_slider_changes_its_picture(loaded, page):
    ctx, tab, log = loaded(page)
    boxes = tab.locator("div.cell_output .widget-vbox").filter(
        has=tab.locator(".widget-hslider"))
    boxes = [boxes.nth(i) for i in range(boxes.count())]
    roots = [b for b in boxes if b.locator(".widget-vbox").count() == 0
             or b.evaluate("el => !el.parentElement.closest('.widget-vbox')")]
    assert roots, "no slider figure rendered"
    moved = 0
    for box in roots:
        handles = box.locator(".noUi-handle")
        for i in range(handles.count()):
            for _ in range(40):                  # the frame shown, decoded
                before = box.evaluate(HASH_VISIBLE)
                if len(before) == 1:
                    break
                tab.wait_for_timeout(100)
            assert len(before) == 1, f"expected one visible frame, found {len(before)}"
            handle = handles.nth(i)
            handle.focus()
            at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
            tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            for _ in range(40):                  # the new frame, within 4 s even on a busy machine
                tab.wait_for_timeout(100)
                after = box.evaluate(HASH_VISIBLE)
                if after != before:
                    break
            assert after != before, f"slider {i} of a figure on {page} did not change the picture"
            moved += 1
    assert moved >= 2
    assert not log["errors"], f"console errors: {log['errors']}"


QUIZ_PAGES = [p for p in SLIDER_PAGES if "widget-radio" in (HTML / p).read_text()
              or "RadioButtons" in (HTML / p).read_text()]


RIGHT, WRONG = ("✓ Right.", "✓ 对。"), ("✗ Not quite.", "✗ 不太对。")  # English, Chinese edition


@pytest.mark.parametrize("page", QUIZ_PAGES)
def test_quiz_answers_explain_themselves_offline(loaded, page):
    ctx, tab, log = loaded(page)
    boxes = tab.locator(".widget-radio-box")
    assert boxes.count() >= 2, "fewer than two quiz questions rendered"
    right = 0
    for i in range(boxes.count()):
        labels = boxes.nth(i).locator("label")
        for j in range(labels.count()):
            question = boxes.nth(i).locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")
            before = question.inner_text()
            labels.nth(j).click()
            for _ in range(40):                  # its explanation, within 4 s even on a busy machine
                shown = question.inner_text()
                if shown != before and any(m in shown for m in RIGHT + WRONG):
                    break
                tab.wait_for_timeout(100)
            assert any(m in shown for m in RIGHT + WRONG), \
                f"question {i + 1}, option {j + 1}: no explanation shown"
            right += any(m in shown for m in RIGHT)
    assert right == boxes.count(), "each question should have exactly one right option"


@pytest.mark.parametrize("query, expected", [
    ("自注意力", "05_self_attention"), ("多头注意力", "06_positions_and_heads"),
    ("self-attention", "04_attention_vs_self_attention"), ("softmax", "02_attention_scores"),
    ("因果掩码", "05_self_attention"), ("squeeze-and-excitation", "12_channel_spatial_attention"),
    # the Chinese edition (_build/html/zh): its own index, split by jieba
    ("zh:注意力分数", "01_selective_focus"), ("zh:图像块", "01_selective_focus"),
    ("zh:softmax", "01_selective_focus")])
def test_search_finds_english_and_chinese_terms(browser, server, query, expected):
    edition, _, query = query.rpartition(":")
    if edition and not (HTML / edition / "search.html").exists():
        pytest.skip("the Chinese edition is not built")
    ctx, tab, log = visit(browser, server, f"{edition + '/' if edition else ''}search.html?q={query}")
    try:
        tab.wait_for_selector("#search-results li", timeout=15000)
        hits = [a.get_attribute("href") for a in tab.locator("#search-results li a").all()]
        assert any(expected in (h or "") for h in hits), f"{query!r} did not find {expected}: {hits[:8]}"
    finally:
        ctx.close()


SEARCHED = """() => { const s = document.querySelector('#search-results .search-summary');
  return !!s && s.textContent.trim().length > 0 && !document.querySelector('#search-results .search-progress'); }"""


@pytest.mark.parametrize("edition, query, first", [
    ("", "softmax", "02_attention_scores"), ("", "scaled", "07_why_sqrt_dk"),
    ("zh", "位置编码", "06_positions_and_heads"), ("zh", "缩放", "07_why_sqrt_dk")])
def test_search_ranks_by_relevance_with_a_snippet_from_the_copy_on_disk(browser, edition, query, first):
    """The search page opened from the copy on disk (file://, as `make book` leaves it):
    results ordered by relevance (the chapter about the term first, not titles in the
    order 1, 10, 11, 2), each with a snippet showing the term, and no console error or
    failed request (Sphinx fetched every result page for its snippet: from file:// each
    fetch failed)."""
    page = HTML / edition / "search.html"
    if not page.exists():
        pytest.skip("the Chinese edition is not built")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = ctx.new_page()
    errors, failed = [], []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("requestfailed", lambda r: failed.append(r.url))
    try:
        tab.goto(f"{page.as_uri()}?q={query}", wait_until="load")
        tab.wait_for_function(SEARCHED, timeout=20000)
        tab.wait_for_timeout(500)
        items = tab.locator("#search-results li")
        assert items.count() >= 3, f"{query!r}: {items.count()} results"
        hrefs = [items.nth(i).locator("a").first.get_attribute("href") for i in range(items.count())]
        assert first in hrefs[0], f"{query!r}: the first result is {hrefs[0]}, not {first} ({hrefs[:6]})"
        for i in range(items.count()):
            context = items.nth(i).locator(".context")
            assert context.count() == 1, f"{query!r}: result {hrefs[i]} has no snippet"
            shown = context.locator(".highlighted")          # the word found (or its stem: scaled, scaling)
            assert shown.count() == 1 and shown.inner_text().lower()[:3] == query.lower()[:3], \
                f"{query!r}: the snippet of {hrefs[i]} does not show it: {context.inner_text()[:120]!r}"
        assert not failed, f"failed requests: {failed[:5]} ({len(failed)})"
        assert not errors, f"console errors: {errors[:5]} ({len(errors)})"
    finally:
        ctx.close()


def test_every_figure_has_alt_text():
    """Plain figures and every slider frame (in the embedded widget state), on every chapter page."""
    import json
    missing, frames_seen = {}, 0
    for page in [p for p in PAGES if p.startswith(("notebooks/", "zh/notebooks/"))]:
        text = (HTML / page).read_text()
        outside = re.sub(r"<script\b.*?</script>", "", text, flags=re.S)
        imgs = [i for i in re.findall(r"<img\b[^>]*>", outside)
                if "_static/images/logo_" not in i]    # the theme's launch-button logos
        bad = [i[:80] for i in imgs if not re.search(r'\balt="[^"]{20,}"', i)]
        for state in re.findall(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>',
                                text, re.S):
            for model in json.loads(state)["state"].values():
                value = model.get("state", {}).get("value")
                if isinstance(value, str) and value.startswith("<img"):
                    frames_seen += 1
                    if not re.search(r'\balt="[^"]{20,}"', value):
                        bad.append(f"slider frame: {value[-120:]!r}")
        if bad:
            missing[page] = bad[:3]
    assert frames_seen > 100, f"only {frames_seen} slider frames found"
    assert not missing, f"figures without alt text: {missing}"


CONTRAST = """el => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const bg = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] > 0) return c; }
    return rgb(getComputedStyle(document.body).backgroundColor); };
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }"""


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_text_and_slider_labels_are_readable_in_light_and_dark_mode(browser, server, mode):
    page = "notebooks/05_self_attention.html"
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=mode)
    ctx.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    tab = ctx.new_page()
    try:
        tab.goto(f"{server}/{page}", wait_until="load")
        tab.wait_for_selector(".widget-hslider .widget-label", timeout=15000)
        assert tab.evaluate("document.documentElement.dataset.theme") == mode
        for selector in ["article p", ".widget-hslider .widget-label", ".widget-readout"]:
            ratio = tab.locator(selector).first.evaluate(CONTRAST)
            assert ratio >= 4.5, f"{mode} mode: {selector} has contrast {ratio:.1f}:1 (WCAG AA needs 4.5)"
    finally:
        ctx.close()


# Dark mode: the figures keep the light card they are drawn on (opaque white,
# dark text), so they read the same in both themes; transparent figures would
# need a second, light-on-dark set of every precomputed frame. What is tested:
# every figure shown in dark mode is opaque and light under its text (its edge
# pixels), and its slider labels stay readable against the card they sit on.
FIGURE_EDGES = """img => { const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0);
  const w = c.width, h = c.height, px = [];
  for (const [x, y] of [[1, 1], [w - 2, 1], [1, h - 2], [w - 2, h - 2], [w >> 1, 1]])
    px.push(Array.from(g.getImageData(x, y, 1, 1).data));
  return px; }"""


@pytest.mark.parametrize("page", ["notebooks/05_self_attention.html", "zh/notebooks/10_costs.html"])
def test_figures_are_light_cards_in_dark_mode(browser, server, page):
    if not (HTML / page).exists():
        pytest.skip(f"{page} is not built")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    ctx.add_init_script("localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');")
    tab = ctx.new_page()
    try:
        tab.goto(f"{server}/{page}", wait_until="load")
        tab.wait_for_selector(".widget-hslider", timeout=15000)
        assert tab.evaluate("document.documentElement.dataset.theme") == "dark"
        images = tab.locator("div.cell_output img")
        shown = [images.nth(i) for i in range(images.count()) if images.nth(i).is_visible()]
        assert len(shown) >= 3, f"only {len(shown)} figures visible"
        for img in shown:
            img.scroll_into_view_if_needed()
            img.evaluate("i => i.decode()")
            for r, g, b, a in img.evaluate(FIGURE_EDGES):
                assert a == 255, f"a transparent figure on {page}: its text would vanish in dark mode"
                assert min(r, g, b) >= 230, f"a figure on {page} has a dark edge {r, g, b}"
        ratio = tab.locator(".widget-hslider .widget-label").first.evaluate(CONTRAST)
        assert ratio >= 4.5, f"slider label contrast {ratio:.1f}:1 in dark mode"
    finally:
        ctx.close()


SWITCH_PAGES = [p for p in PAGES if "lang-switch" in (HTML / p).read_text()]


def counterpart(page):
    """The same page in the other edition: zh/x.html <-> x.html."""
    return page[3:] if page.startswith("zh/") else "zh/" + page


@pytest.mark.parametrize("page", SWITCH_PAGES)
def test_language_switch_leads_to_the_same_page_in_the_other_edition(loaded, server, page):
    """Clicking the switch on every page of both editions (so both ways on every
    page pair) opens the same page in the other language. The page's last test:
    it leaves the page. The new page is checked as it arrives (its address and
    the language its HTML declares), not parsed and drawn a second time."""
    ctx, tab, log = loaded(page)
    try:
        with tab.expect_response(lambda r: r.request.is_navigation_request()) as arrived, \
                tab.expect_navigation(wait_until="commit"):
            tab.locator("a.lang-switch").first.click()
        assert tab.url == f"{server}/{counterpart(page)}", f"the switch of {page} led to {tab.url}"
        html = re.search(r"<html\b[^>]*>", arrived.value.text())[0]
        lang = re.search(r'\blang="([^"]+)"', html)[1]
        assert lang.startswith("en" if page.startswith("zh/") else "zh"), \
            f"the switch of {page} led to a page in {lang}"
    finally:
        loaded.forget(page)


# --- Chinese text is drawn with the book's own font -------------------------------
# Chinese text in the built book is drawn with the book's own font.
# 
# A Chromium whose fontconfig sees only a Latin font folder (no system CJK font,
# as on a reader's machine without fonts-noto-cjk) opens every page. On each,
# the book's FontFace is loaded, `document.fonts.check` holds for the page's
# Chinese characters, and Chromium reports (DevTools `CSS.getPlatformFontsForNode`)
# that every Chinese character on screen was drawn with that font, not as a box.


FAMILY = "Attention Book CJK"
FONT_PAGES = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
               if "_static" not in p.parts and p.name != "genindex.html"
               and 'http-equiv="Refresh"' not in p.read_text()[:300])     # index.html redirects
CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"

# Mark every visible element with Chinese in its own text nodes; return their counts.
MARK = """cjk => { const re = new RegExp(cjk, 'g'); const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el; el = walker.nextNode()) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName)) continue;
    if (el.closest('mjx-assistive-mml')) continue;   // MathJax's hidden copy of a formula, for screen readers
    let n = 0, text = '';
    for (const child of el.childNodes)
      if (child.nodeType === 3) { const m = child.data.match(re); if (m) { n += m.length; text += m.join(''); } }
    if (!n || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    el.setAttribute('data-cjk-i', out.length);
    out.push({n, text});
  }
  return out; }"""


@pytest.fixture(scope="module")
def latin_only_browser(browser, latin_fonts):
    """The tests' Chromium, which sees only Latin fonts (tests/browser/conftest.py)."""
    if latin_fonts is None:
        reason = "no Latin font folder: run `apt-get install fonts-dejavu-core` as root"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return browser


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
    return sum(f["glyphCount"] for f in fonts if f["isCustomFont"]   # the book's font, or its monospace one
               and (FAMILY in f["familyName"] or "AttentionBookCJK" in f.get("postScriptName", "")
                    or "Attention Book Mono" in f["familyName"] or "AttentionBookMono" in f.get("postScriptName", "")))


@pytest.mark.parametrize("page", FONT_PAGES)
def test_chinese_is_drawn_with_the_books_font(latin_only_browser, loaded, page):
    ctx, tab, _ = loaded(page)   # the page as the other tests of it left it
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


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}


def touch_drag(tab, cdp, handle, track):
    """Drag a slider's handle with one finger (Chromium's touch events, so the
    page sees pointerType "touch") to the far end of its track (the roomier side)."""
    hb, tb = handle.bounding_box(), track.bounding_box()
    x, y = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
    to = tb["x"] + tb["width"] - 2 if x < tb["x"] + tb["width"] / 2 else tb["x"] + 2
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                              "touchPoints": [{"x": x + (to - x) * k / 8, "y": y}]})
        tab.wait_for_timeout(15)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("page", SLIDER_PAGES)
def test_every_slider_works_by_touch_on_a_phone(browser, server, page):
    """At 390 x 844 (a phone, touch only): slider rows wrap, every track is at
    least 120 px wide, and dragging each handle with a finger changes the picture."""
    from conftest import RENDERED
    ctx = browser.new_context(**PHONE)
    try:
        tab = ctx.new_page()
        errors = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())
        tab.goto(f"{server}/{page}", wait_until="load")
        tab.wait_for_function(RENDERED, timeout=15000)
        tab.wait_for_timeout(1500)
        cdp = ctx.new_cdp_session(tab)
        boxes = tab.locator("div.cell_output .widget-vbox").filter(has=tab.locator(".widget-hslider"))
        boxes = [boxes.nth(i) for i in range(boxes.count())]
        roots = [b for b in boxes if b.evaluate("el => !el.parentElement.closest('.widget-vbox')")]
        assert roots, "no slider figure rendered"
        for box in roots:
            sliders = box.locator(".widget-hslider")
            for i in range(sliders.count()):
                track = sliders.nth(i).locator(".noUi-target")
                width = track.bounding_box()["width"]
                assert width >= 120, f"slider {i} on {page}: track {width:.0f} px wide on a phone"
                track.scroll_into_view_if_needed()
                for _ in range(40):
                    before = box.evaluate(HASH_VISIBLE)
                    if len(before) == 1:
                        break
                    tab.wait_for_timeout(100)
                touch_drag(tab, cdp, sliders.nth(i).locator(".noUi-handle"), track)
                for _ in range(40):
                    tab.wait_for_timeout(100)
                    after = box.evaluate(HASH_VISIBLE)
                    if after != before:
                        break
                assert after != before, f"dragging slider {i} on {page} by touch did not change the picture"
        assert not errors, f"script errors: {errors}"
    finally:
        ctx.close()


FIGURE_SHAPE = """() => [...document.querySelectorAll('.cell_output img')]
    .filter(i => i.naturalWidth && i.getBoundingClientRect().width > 0)
    .map(i => { const r = i.getBoundingClientRect();
                const drawn = parseFloat(i.getAttribute('width') || i.style.width) || i.naturalWidth / 2;
                // the box it scrolls in: the nearest one that scrolls and is narrower than it
                let box = i.parentElement;
                while (box && !(['auto', 'scroll'].includes(getComputedStyle(box).overflowX)
                                && box.clientWidth < r.width - 0.5)) box = box.parentElement;
                const b = box ? box.getBoundingClientRect() : r;
                return {shown: r.width / r.height, drawn: i.naturalWidth / i.naturalHeight,
                        scale: r.width / drawn, box: [Math.round(b.left), Math.round(b.right)],
                        alt: (i.alt || "").slice(0, 60)}; })"""
SMALLEST_DRAWN_PX = 10   # a figure's smallest text where it is drawn at its size (tests/test_figures.py)
SMALLEST_PHONE_PX = 9    # ... and the smallest a phone may show


@pytest.mark.parametrize("page", [p for p in PAGES if "cell_output" in (HTML / p).read_text()])
def test_a_phone_shows_every_figure_in_its_shape_and_no_page_slides_sideways(browser, server, page):
    """At 390 x 844 (a phone): every figure (static images and slider frames alike, the
    one on screen) keeps the aspect ratio it was drawn with and its text stays
    readable (shrunk at most to 9/10 of its drawn size: its text at least 9 CSS px);
    a figure wider than the screen scrolls sideways inside its own box, which fits the
    screen, and the page is no wider than the screen (nothing to scroll sideways), in
    both editions."""
    ctx = browser.new_context(**PHONE)
    try:
        tab = ctx.new_page()
        tab.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())
        tab.goto(f"{server}/{page}", wait_until="load")
        tab.wait_for_timeout(1500)
        figures = tab.evaluate(FIGURE_SHAPE)
        squashed = [f for f in figures if abs(f["shown"] / f["drawn"] - 1) > 0.03]
        assert not squashed, f"{page}: {len(squashed)} of {len(figures)} figures squashed on a phone: {squashed[:3]}"
        small = [f for f in figures if f["scale"] * SMALLEST_DRAWN_PX < SMALLEST_PHONE_PX - 1e-6]
        assert not small, (f"{page}: {len(small)} of {len(figures)} figures shrunk so far that their text is "
                           f"under {SMALLEST_PHONE_PX} px on a phone: {small[:3]}")
        outside = [f for f in figures if f["box"][0] < 0 or f["box"][1] > 390]
        assert not outside, f"{page}: a figure's box reaches past the phone's screen: {outside[:3]}"
        wide = tab.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"{page}: the page is {wide} px wide on a 390 px phone (it slides sideways)"
        cut = tab.evaluate(CUT_OFF)
        assert not cut, f"{page}: code or output cut off in its box on a phone (no scrolling to it): {cut[:3]}"
    finally:
        ctx.close()


# a code or output box (or anything in it) wider than its box that cannot be scrolled
CUT_OFF = """() => [...document.querySelectorAll('article pre, article div.highlight, article .output, article .cell_output')]
  .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1
               && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
  .map(e => e.tagName + ' ' + e.className + ': ' + (e.textContent || '').trim().slice(0, 40))"""


PLAYGROUND_PAGES = [p for p in SLIDER_PAGES   # the playground (an anywidget) in the page's widget state
                    if re.search(r'"_model_module": *"anywidget"', (HTML / p).read_text())
                    and "attention-playground" in (HTML / p).read_text()]
SETTINGS = [(16, 64, 1.0, False, 0), (128, 512, 1.0, False, 0), (128, 512, 0.5, True, 3), (2, 1, 0.05, False, 9),
            (50, 20, 0.7, True, 1), (77, 300, 2.0, False, 5), (3, 512, 1.0, True, 7)]


@pytest.mark.parametrize("page", PLAYGROUND_PAGES)
def test_playground_computes_attention_in_the_page(loaded, page):
    """The playground (no kernel) at many settings: the weights the page computed
    equal numpy's softmax(Q Kᵀ / √d_k / T) on the same Q and K (from the setup
    cell's playground_inputs) within 1e-6; its readout states the largest weight.
    (Its time per move is a budget in benchmarks/playground.py, not a test.)"""
    import numpy as np
    from conftest import ROOT
    sys.path.insert(0, str(ROOT / "tools"))
    from nbtools import book_namespace
    ns = book_namespace()
    ctx, tab, log = loaded(page)
    el = tab.locator(".attention-playground").first
    el.wait_for(state="visible", timeout=15000)
    el.scroll_into_view_if_needed()

    def put(name, value):
        el.locator(f"input[data-name={name}]").evaluate(
            "(e, v) => { e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); }", value)
    for n, d_k, T, causal, seed in SETTINGS:
        for name, v in (("n", n), ("d_k", d_k), ("temperature", T), ("seed", seed)):
            put(name, v)
        box = el.locator("input[data-name=causal]")
        if box.is_checked() != causal:
            box.click()
        tab.wait_for_function("el => el.__playground && el.__playground.params.n == %d && "
                              "el.__playground.params.d_k == %d && el.__playground.params.causal == %s"
                              % (n, d_k, str(causal).lower()), arg=el.element_handle(), timeout=5000)
        A = np.array(el.evaluate("el => Array.from(el.__playground.A)")).reshape(n, n)
        Q, K = ns["playground_inputs"](n, d_k, seed)
        S = Q @ K.T / np.sqrt(d_k) / T
        if causal:
            S = np.where(np.tri(n, dtype=bool), S, -np.inf)
        want = np.exp(S - S.max(axis=1, keepdims=True))
        want /= want.sum(axis=1, keepdims=True)
        assert np.abs(A - want).max() < 1e-6, f"n={n}, d_k={d_k}, T={T}, causal={causal}, seed={seed}"
        assert f"{want.max():.2f}" in el.locator(".pg-read").inner_text()
    assert not log["errors"], f"console errors: {log['errors']}"


CHROME_LABELS = """() => {
  const attrs = ['aria-label', 'title', 'data-bs-title', 'data-bs-original-title', 'placeholder', 'data-toggle-hint'];
  const out = [];
  for (const el of document.querySelectorAll(attrs.map(a => `[${a}]`).join(','))) {
    // the book's own content: outputs, formulas, a citation's reference in its tooltip
    if (el.closest('.cell_output, .jupyter-widgets, mjx-container, .widget-preview, a.reference')) continue;
    for (const a of attrs) { const v = el.getAttribute(a); if (v) out.push(v); }
  }
  for (const item of document.querySelectorAll('footer .footer-item')) out.push(item.innerText.trim());
  return out; }"""


@pytest.mark.parametrize("page", [p for p in PAGES if p.startswith("zh/")])
def test_the_chinese_edition_chrome_is_chinese(loaded, page):
    """The theme's labels on a Chinese page (folds, permalinks, colour mode, sidebar
    toggles, the footer's author, the print button) are Chinese, in Simplified wording:
    no label written in English only, and no Taiwan wording (列印)."""
    ctx, tab, log = loaded(page)
    labels = tab.evaluate(CHROME_LABELS)
    english = sorted({v for v in labels if re.search(r"[A-Za-z]{3,}", v) and not re.search(r"[\u4e00-\u9fff]", v)
                      and v != "English"})          # the link to the English edition says where it goes
    assert not english, f"English labels on a Chinese page: {english}"
    footer = [v for v in labels if "作者" in v]
    assert footer and not any("Attention Book authors" in v for v in footer), f"the footer: {footer}"
    html = (HTML / page).read_text() + "".join(labels)
    taiwan = [w for w in ("列印", "程式") if w in html]
    assert not taiwan, f"Taiwan wording in a Simplified edition: {taiwan}"
