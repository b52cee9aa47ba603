"""The built book as a reader sees it: offline, no script errors, math
rendered, and every slider changes the picture it sits above."""
import re

import pytest

from conftest import HTML

PAGES = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
               if p.name not in {"genindex.html", "search.html"} and "_static" not in p.parts)
SLIDER_PAGES = [p for p in PAGES if "vnd.jupyter.widget-state+json" in (HTML / p).read_text()]



def visit(browser, server, page):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = ctx.new_page()
    log = {"errors": [], "foreign": [], "missing": []}
    tab.on("pageerror", lambda e: log["errors"].append(str(e)))
    tab.on("console", lambda m: log["errors"].append(m.text) if m.type == "error" else None)
    tab.on("request", lambda r: log["foreign"].append(r.url)
           if not r.url.startswith((server, "data:", "blob:")) else None)
    tab.on("response", lambda r: log["missing"].append(r.url)
           if r.status >= 400 else None)
    tab.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())
    tab.goto(f"{server}/{page}", wait_until="load")
    tab.wait_for_timeout(1500)
    return ctx, tab, log


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_offline_without_errors(browser, server, page):
    ctx, tab, log = visit(browser, server, page)
    try:
        assert not log["foreign"], f"requests to other hosts: {log['foreign']}"
        missing = [u for u in log["missing"]]
        assert not missing, f"missing files: {missing}"
        assert not log["errors"], f"console errors: {log['errors']}"
        assert tab.locator("link[rel='icon']").count(), "no favicon: the browser asks for /favicon.ico (404)"
        if tab.locator("div.math, span.math").count():
            tab.wait_for_selector("mjx-container", state="attached", timeout=10000)
            assert tab.locator("mjx-container").count() > 0, "math was not rendered"
            assert tab.locator("text=/\\\\frac|\\\\sqrt/").count() == 0, "raw TeX is showing"
    finally:
        ctx.close()


HASH_VISIBLE = """root => Promise.all([...root.querySelectorAll('img')]
  .filter(img => img.offsetParent !== null && img.naturalWidth > 0)
  .map(img => fetch(img.src).then(r => r.arrayBuffer())
       .then(b => crypto.subtle.digest('SHA-256', b))
       .then(h => Array.from(new Uint8Array(h)).map(x => x.toString(16)).join(''))))"""


@pytest.mark.parametrize("page", SLIDER_PAGES)
def test_every_slider_changes_its_picture(browser, server, page):
    ctx, tab, log = visit(browser, server, page)
    try:
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
                before = box.evaluate(HASH_VISIBLE)
                assert len(before) == 1, f"expected one visible frame, found {len(before)}"
                handle = handles.nth(i)
                handle.focus()
                at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
                tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
                tab.wait_for_timeout(150)
                after = box.evaluate(HASH_VISIBLE)
                assert after != before, f"slider {i} of a figure on {page} did not change the picture"
                moved += 1
        assert moved >= 2
        assert not log["errors"], f"console errors: {log['errors']}"
    finally:
        ctx.close()


QUIZ_PAGES = [p for p in SLIDER_PAGES if "widget-radio" in (HTML / p).read_text()
              or "RadioButtons" in (HTML / p).read_text()]


RIGHT, WRONG = ("✓ Right.", "✓ 对。"), ("✗ Not quite.", "✗ 不太对。")  # English, Chinese edition


@pytest.mark.parametrize("page", QUIZ_PAGES)
def test_quiz_answers_explain_themselves_offline(browser, server, page):
    ctx, tab, log = visit(browser, server, page)
    try:
        boxes = tab.locator(".widget-radio-box")
        assert boxes.count() >= 2, "fewer than two quiz questions rendered"
        right = 0
        for i in range(boxes.count()):
            labels = boxes.nth(i).locator("label")
            for j in range(labels.count()):
                labels.nth(j).click()
                tab.wait_for_timeout(100)
                shown = boxes.nth(i).locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]").inner_text()
                assert any(m in shown for m in RIGHT + WRONG), \
                    f"question {i + 1}, option {j + 1}: no explanation shown"
                right += any(m in shown for m in RIGHT)
        assert right == boxes.count(), "each question should have exactly one right option"
    finally:
        ctx.close()


@pytest.mark.parametrize("query, expected", [
    ("自注意力", "05_self_attention"), ("多头注意力", "06_positions_and_heads"),
    ("self-attention", "04_attention_vs_self_attention"), ("softmax", "02_attention_scores"),
    ("因果掩码", "05_self_attention"), ("squeeze-and-excitation", "11_channel_spatial_attention"),
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


SWITCH_PAGES = [p for p in PAGES if p.startswith("zh/") and "lang-switch" in (HTML / p).read_text()]


@pytest.mark.parametrize("page", SWITCH_PAGES)
def test_language_switch_leads_to_the_same_page_and_back(browser, server, page):
    """中文 → English → 中文 on every page of the Chinese edition, by clicking the switch."""
    ctx, tab, log = visit(browser, server, page)
    try:
        tab.locator("a.lang-switch").first.click()
        tab.wait_for_load_state("load")
        assert tab.url == f"{server}/{page[3:]}", f"English switch of {page} led to {tab.url}"
        assert tab.locator("html").get_attribute("lang").startswith("en")
        tab.locator("a.lang-switch").first.click()
        tab.wait_for_load_state("load")
        assert tab.url == f"{server}/{page}", f"back from English led to {tab.url}"
        assert tab.locator("html").get_attribute("lang").startswith("zh")
    finally:
        ctx.close()
