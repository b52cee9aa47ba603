"""The built book, both editions, read as files (no browser needed; run after
`make book` with the browser tests, which fail under CI=true if it is not built):
every language switch leads to an existing page, and no Chinese paragraph shows
literal ** (MyST emphasis next to Chinese characters needs spaces)."""
import re

from conftest import HTML

BUILT = sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts) if HTML.exists() else []


def test_every_language_switch_points_at_an_existing_page():
    bad, seen = [], 0
    for page in BUILT:
        for href in re.findall(r'<a class="lang-switch" href="([^"]+)"', page.read_text()):
            seen += 1
            target = (page.parent / href.split("#")[0]).resolve()
            if not target.is_file():
                bad.append(f"{page.relative_to(HTML)} -> {href}")
    assert seen > 20 and not bad, f"{seen} switches, broken: {bad[:5]}"


def test_no_literal_bold_markers_on_chinese_pages():
    bad = []
    for page in [p for p in BUILT if "zh" in p.relative_to(HTML).parts[:1]]:
        body = re.sub(r"<(script|style|pre|code)\b.*?</\1>", "", page.read_text(), flags=re.S)
        for para in re.findall(r"<(?:p|li)\b[^>]*>(.*?)</(?:p|li)>", body, flags=re.S):
            if "**" in re.sub(r"<[^>]+>", "", para):
                bad.append(f"{page.relative_to(HTML)}: {re.sub(r'<[^>]+>', '', para)[:80]}")
    assert not bad, bad[:5]


def test_no_space_beside_chinese_on_chinese_pages():
    """The spacing rule of CONTRIBUTING.md on the built Chinese pages (issue 38): in the text
    of every paragraph and list item, no space between two Chinese characters (a space
    beside bold, italic or a term link shows as a gap) and none beside full-width punctuation."""
    import sys
    sys.path.insert(0, str(HTML.parents[1] / "tools"))
    import zh_style
    han, punct = zh_style.CJK, zh_style.FULL_PUNCT
    # (a token quoted with its leading space, ‘ Paris’, is data: chapter 15 glues it so, and
    # Sphinx's smart quotes need the space before it to open the quote)
    rule = re.compile(rf"[{han}{punct}] +[{han}{punct}]|[{punct}] +\S|\S +[{punct}]")
    token = re.compile(r" ?‘ ([A-Za-z][^’]*’)")
    pages = [p for p in BUILT if "zh" in p.relative_to(HTML).parts[:1]]
    bad = []
    for page in pages:
        article = re.search(r"<article\b.*?</article>", page.read_text(), flags=re.S)   # not the theme's chrome
        body = re.sub(r"<(script|style|pre)\b.*?</\1>", "", article.group() if article else "", flags=re.S)
        body = re.sub(r"<(code|mjx-container)\b.*?</\1>", "X", body, flags=re.S)   # code and math: Latin
        for para in re.findall(r"<(?:p|li)\b[^>]*>(.*?)</(?:p|li)>", body, flags=re.S):
            text = re.sub(r"<[^>]+>", "", para)
            text = re.sub(r"\\\[.*?\\\]|\$\$.*?\$\$", "\n", text, flags=re.S)   # display math: a block
            text = re.sub(r"\\\(.*?\\\)|\$[^$\n]*\$", "x", text)                  # inline math: Latin
            for line in text.split("\n"):
                line = token.sub(r"‘\1", line)
                for m in rule.finditer(line.strip()):
                    bad.append(f"{page.relative_to(HTML)}: …{line.strip()[max(0, m.start() - 12):m.end() + 12]}…")
    assert len(pages) > 15 and not bad, f"{len(bad)} spaces:\n" + "\n".join(bad[:20])


def test_exercise_titles_on_chinese_pages_use_full_width_brackets():
    """sphinx-exercise writes 'Exercise 5.2 (title)'; the Chinese pages show 练习 5.2（标题）
    (book/_ext/zh_chrome.py), with no space beside the full-width bracket."""
    bad, seen = [], 0
    for page in [p for p in BUILT if "zh" in p.relative_to(HTML).parts[:1]]:
        for title in re.findall(r'<p class="admonition-title">(.*?)</p>', page.read_text(), flags=re.S):
            if "练习" not in title:
                continue
            seen += 1
            text = re.sub(r"<[^>]+>", "", title)
            if "(" in text.split("练习", 1)[1][:12] or re.search(r"\s（", text):
                bad.append(f"{page.relative_to(HTML)}: {text[:40]}")
    assert seen >= 30 and not bad, f"{seen} exercise titles; half-width or spaced: {bad[:5]}"
