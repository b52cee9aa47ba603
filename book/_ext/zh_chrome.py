"""The Chinese edition's chrome in Chinese (Simplified wording).

The theme's labels come from three places, and the Chinese edition
(language zh_CN) met English or Taiwan wording in each: gettext catalogs whose
zh_CN translation is missing ("Link to this heading", "Color mode") or Taiwan
wording ("列印成 PDF"), and labels written into a template or a script with no
catalog at all ("Toggle primary sidebar", "Toggle hidden content"). The
translations are in locales/zh_CN/theme.po, with the catalog as msgctxt:
"sphinx" and "booktheme" messages go before the installed catalogs of those
domains; "literal" messages replace the quoted English label ("Toggle hidden
content") in the Chinese edition's built pages and in the scripts that write it
(_static/togglebutton.js). tests/browser/test_book.py checks the Chinese pages as
drawn. Only for a build whose language is Chinese; the English edition is untouched.
"""
import gettext
import re
from pathlib import Path

from sphinx import locale
from sphinx.application import Sphinx

CATALOG = Path(__file__).resolve().parents[2] / "locales" / "zh_CN" / "theme.po"
SCRIPTS = ["togglebutton.js"]


class _Table(gettext.NullTranslations):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def gettext(self, message):
        if message in self.table:
            return self.table[message]
        return self._fallback.gettext(message) if self._fallback else message


def messages():
    """{msgctxt: {English: Chinese}} from locales/zh_CN/theme.po."""
    import polib
    out = {}
    for entry in polib.pofile(str(CATALOG)):
        if entry.msgstr and not entry.obsolete and "fuzzy" not in entry.flags:
            out.setdefault(entry.msgctxt, {})[entry.msgid] = entry.msgstr
    return out


def chinese(app):
    return (app.config.language or "").startswith("zh")


def translate_catalogs(app):
    """Our translations first in the theme's gettext domains."""
    if not chinese(app):
        return
    for domain, table in messages().items():
        if domain == "literal":
            continue
        translator = locale.translators.get(("general", domain))
        if translator is not None and hasattr(translator, "_catalog"):
            translator._catalog.update(table)     # the object the templates already hold
        else:
            ours = _Table(table)
            if translator is not None:
                ours.add_fallback(translator)
            locale.translators[("general", domain)] = ours


def replace_literals(app, exception):
    """The quoted English labels of templates and scripts, in the built Chinese pages."""
    if exception or not chinese(app) or app.builder.format != "html":
        return
    table = messages().get("literal", {})
    out = Path(app.outdir)
    files = [p for p in out.rglob("*.html") if "_static" not in p.relative_to(out).parts]
    files += [out / "_static" / name for name in SCRIPTS if (out / "_static" / name).is_file()]
    for path in files:
        text = original = path.read_text(encoding="utf-8")
        if path.suffix == ".html":      # sphinx-exercise's "练习 5.2 (title)": full-width, no space
            text = re.sub(r'(<span class="caption-number">练习 [\d.]+) </span> \((.*?)\)</p>',
                          r'\1</span>（\2）</p>', text, flags=re.S)
        for english, zh in table.items():
            if path.suffix == ".html":     # an attribute's value: aria-label="Main", title="..."
                text = re.sub(rf'(\s[\w-]+)="{re.escape(english)}"', rf'\1="{zh}"', text)
            else:                          # a script's string: aria-label="Toggle hidden content"
                text = text.replace(f'"{english}"', f'"{zh}"')
        if text != original:
            path.write_text(text, encoding="utf-8")


def setup(app: Sphinx):
    app.connect("builder-inited", translate_catalogs)
    app.connect("build-finished", replace_literals)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
