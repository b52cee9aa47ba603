"""Every page of both editions, for a reader with a screen reader, a keyboard or
an unsteady finger (issue 37).

- axe-core (axe-playwright-python, pinned; it carries axe.min.js, so it runs
  offline) finds no serious or critical violation on any page, at 1280 px;
- every slider is named by its visible label and announces the value it shows
  ("2", "fur", 猫毛), not its position index;
- the first slider of a page is at most 20 Tab presses from the top, or a skip
  link that leads to it is (a formula is not a Tab stop: MathJax's menu is left
  out of the Tab order, its hidden MathML stays for screen readers);
- slider handles, quiz radios and fold buttons are at least 24 x 24 CSS px,
  and the sliders' and quizzes' text is the size of the body text.

Each page is opened once (conftest.py's `loaded`, 1280 x 900) and shared by the
tests below and test_book.py's tests of the same page."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import HTML

PAGES = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
               if p.name not in {"genindex.html", "search.html"} and "_static" not in p.parts)
SLIDER_PAGES = [p for p in PAGES if "widget-state+json" in (HTML / p).read_text()
                and "SelectionSliderModel" in (HTML / p).read_text()]
WIDGET_PAGES = [p for p in PAGES if "widget-state+json" in (HTML / p).read_text()]
FOLD_PAGES = [p for p in PAGES if "<details" in (HTML / p).read_text()]

AXE = Axe()
# every rule of WCAG 2.0-2.2 levels A and AA, axe's best practices and its experimental
# rules (label-content-name-mismatch is one); not the AAA rules (enhanced contrast)
# preload off: axe would fetch each stylesheet again and resolve its @import against
# the page, not the stylesheet (a request for /basic.css that fails), on the page the
# other tests of this page share
AXE_OPTIONS = {"resultTypes": ["violations"], "preload": False,
               "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                                    "best-practice", "experimental"]}}
MOST_TABS = 20
SMALLEST_TARGET = 24   # CSS px, WCAG 2.2's target size (minimum), which axe checks


@pytest.mark.parametrize("page", PAGES)
def test_axe_finds_no_serious_or_critical_violation(loaded, page):
    ctx, tab, log = loaded(page)
    found = AXE.run(tab, options=AXE_OPTIONS).response["violations"]
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    report = "; ".join(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes: "
                       f"{v['nodes'][0]['target']} {v['nodes'][0]['failureSummary'][:160]!r})" for v in bad)
    assert not bad, f"{page}: axe-core finds {len(bad)} serious or critical rules: {report}"


SLIDERS = """() => [...document.querySelectorAll('.widget-hslider')].map(s => {
  const h = s.querySelector('.noUi-handle'), r = s.querySelector(':scope > .widget-readout');
  const named = h.getAttribute('aria-labelledby');
  return {name: named ? named.split(/\\s+/).map(id => document.getElementById(id)?.textContent.trim() || '').join(' ')
                      : (h.getAttribute('aria-label') || ''),
          label: s.querySelector(':scope > .widget-label')?.textContent.trim() || '',
          valuetext: h.getAttribute('aria-valuetext'), shown: r ? r.textContent.trim() : null}; })"""


@pytest.mark.parametrize("page", SLIDER_PAGES)
def test_sliders_are_named_and_announce_the_value_shown(loaded, page):
    """Named by the visible label; aria-valuetext is the readout, before and after a
    move by keyboard (End or Home: the last or first value)."""
    ctx, tab, log = loaded(page)
    sliders = tab.evaluate(SLIDERS)
    assert sliders, f"{page}: no slider drawn"
    unnamed = [s for s in sliders if not s["name"] or s["name"] != s["label"]]
    assert not unnamed, f"{page}: sliders without their visible label as name: {unnamed[:3]}"
    wrong = [s for s in sliders if s["valuetext"] != s["shown"]]
    assert not wrong, f"{page}: sliders announcing something else than the value shown: {wrong[:3]}"
    handle = tab.locator(".widget-hslider .noUi-handle").first
    handle.focus()
    for key, back in (("End", "Home"), ("Home", "End")):   # a slider may start at either end
        tab.keyboard.press(key)
        tab.wait_for_timeout(300)
        moved = tab.evaluate(SLIDERS)[0]
        if moved["shown"] != sliders[0]["shown"]:
            tab.keyboard.press(back)
            tab.wait_for_timeout(300)
            break
    assert moved["shown"] != sliders[0]["shown"], f"{page}: the End and Home keys did not move the first slider"
    assert moved["valuetext"] == moved["shown"], f"{page}: after a move the slider says {moved['valuetext']!r}, shows {moved['shown']!r}"


FOCUSED = """() => { const e = document.activeElement;
  return !e ? null : e.closest('.noUi-handle') ? 'slider' : e.classList.contains('book-skip-to-slider') ? 'skip' : null; }"""
# Tab from the top of the page: the focus (and the point Tab moves on from) before
# the page's first element, as on a fresh load
FROM_THE_TOP = """() => { const mark = document.createElement('span'); mark.tabIndex = -1;
  document.body.prepend(mark); mark.focus(); mark.remove(); window.scrollTo(0, 0); }"""
FIRST_FOCUSED = """() => document.activeElement === document.querySelector('.widget-hslider .noUi-handle')"""


@pytest.mark.parametrize("page", SLIDER_PAGES)
def test_the_first_slider_is_a_few_tab_presses_away(loaded, page):
    """From the top of the page, at most 20 Tab presses reach the first slider, or a
    skip link whose Enter puts the focus on it."""
    ctx, tab, log = loaded(page)
    tab.evaluate(FROM_THE_TOP)
    for presses in range(1, MOST_TABS + 1):
        tab.keyboard.press("Tab")
        reached = tab.evaluate(FOCUSED)
        if reached:
            break
    else:
        at = tab.evaluate("() => document.activeElement.outerHTML.slice(0, 80)")
        pytest.fail(f"{page}: the first slider is more than {MOST_TABS} Tab presses away (at {MOST_TABS}: {at})")
    if reached == "skip":
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(300)
    assert tab.evaluate(FIRST_FOCUSED), f"{page}: {reached} after {presses} Tab presses, but the focus is not on the first slider"
    tab.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")


TARGETS = """() => [...document.querySelectorAll(
    '.widget-hslider .noUi-handle, .widget-radio-box input[type=radio], details > summary, button.toggle-button')]
  .filter(e => e.getClientRects().length)
  .map(e => { const r = e.getBoundingClientRect();
              return {what: e.className || e.tagName, w: r.width, h: r.height}; })"""


@pytest.mark.parametrize("page", sorted(set(WIDGET_PAGES) | set(FOLD_PAGES)))
def test_targets_are_at_least_24_px_and_widget_text_is_body_size(loaded, page):
    ctx, tab, log = loaded(page)
    targets = tab.evaluate(TARGETS)
    assert targets, f"{page}: no slider handle, radio or fold drawn"
    small = [t for t in targets if min(t["w"], t["h"]) < SMALLEST_TARGET - 0.01]
    assert not small, f"{page}: {len(small)} of {len(targets)} targets under {SMALLEST_TARGET} px: {small[:3]}"
    sizes = tab.evaluate("""() => { const px = e => parseFloat(getComputedStyle(e).fontSize);
      return {body: px(document.querySelector('article p') || document.body),
              widgets: [...document.querySelectorAll('.widget-hslider > .widget-label, .widget-readout,'
                                                    + ' .widget-radio-box label, .widget-html-content p, .widget-html-content b')]
                       .filter(e => e.getClientRects().length && e.textContent.trim()).map(px)}; }""")
    off = sorted({s for s in sizes["widgets"] if abs(s - sizes["body"]) > 0.5})
    assert not off, f"{page}: slider or quiz text at {off} px, the body text at {sizes['body']} px"


FIGURE_SCALE = """() => [...document.querySelectorAll('.cell_output img')]
  .filter(i => i.naturalWidth && i.getBoundingClientRect().width > 0)
  .map(i => ({scale: i.getBoundingClientRect().width
                     / (parseFloat(i.getAttribute('width') || i.style.width) || i.naturalWidth / 2),
              alt: (i.alt || '').slice(0, 60)}))"""


@pytest.mark.parametrize("page", [p for p in PAGES if "cell_output" in (HTML / p).read_text()])
def test_a_desktop_shows_every_figure_at_its_drawn_size(loaded, page):
    """At 1280 px every figure is shown at the size it was drawn at (never shrunk), so
    its text is as large as tests/test_figures.py measured it (at least 11 CSS px)."""
    ctx, tab, log = loaded(page)
    shrunk = [f for f in tab.evaluate(FIGURE_SCALE) if f["scale"] < 0.999]
    assert not shrunk, f"{page}: figures shrunk on a desktop: {shrunk[:3]}"
