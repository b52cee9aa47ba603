"""A still picture of every widget in the page's HTML, shown until the widget is drawn.

A page's widgets (slider figures, quizzes, the playground) are drawn by the widget
manager once it has read the widget state the page embeds; before that, a widget
takes no room, and when it arrives the text below it moves down (chapter 7's first
screen jumped; issue 37). This extension writes, before each widget's <script> tag,
a preview made from the same state when the book is built: a slider figure's
first frame (the <img> the widget shows at its first setting) under a row of its
slider names and values, a quiz's question and options, and for other widgets
(the playground) an empty box of the widget's usual height. The widget manager
(book/_assets/vendor/widget-manager, tools/widget-manager/src/index.js) draws each
widget hidden over its preview and then swaps them in one step.
The preview is aria-hidden: a screen reader meets the widget only.

Slider frames as files: every frame of a slider figure is an <img> in the widget
state, drawn when the chapter ran, and the state is part of the page: the page
carried every frame (up to 2.9 MB), in base64, though a reader sees one frame of
each figure until a slider moves. Each frame (a data: URI in the state) is written
once to _images/frames/<hash>.<webp|png> and the state refers to the file: a first
visit loads the frames on screen, the others load when a slider shows them (from
the same folder, also from a copy on disk)."""
import base64
import hashlib
import html
import json
import re
from pathlib import Path

from sphinx.application import Sphinx

STATE = "application/vnd.jupyter.widget-state+json"
VIEW = re.compile(r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S)


def _ref(value):
    return value[len("IPY_MODEL_"):] if isinstance(value, str) and value.startswith("IPY_MODEL_") else None


def preview(models, model_id):
    """HTML for one widget at its current state ('' for what shows nothing)."""
    model = models.get(model_id)
    if model is None:
        return ""
    name, state = model["model_name"], model["state"]
    if name in ("VBoxModel", "HBoxModel"):
        inner = "".join(preview(models, _ref(c)) for c in state.get("children", []))
        return f'<div class="wp-{name[0].lower()}box">{inner}</div>'
    if name == "StackModel":
        index, children = state.get("selected_index"), state.get("children", [])
        return preview(models, _ref(children[index])) if index is not None and index < len(children) else ""
    if name == "HTMLModel":
        return f'<div class="wp-html">{state.get("value", "")}</div>' if state.get("value") else ""
    if name == "SelectionSliderModel":
        labels = state.get("_options_labels", [])
        index = state.get("index") or 0
        value = labels[index] if index < len(labels) else ""
        return (f'<div class="wp-slider"><span class="wp-label">{html.escape(state.get("description", ""))}</span>'
                f'<span class="wp-track"></span><span class="wp-readout">{html.escape(str(value))}</span></div>')
    if name == "RadioButtonsModel":
        return '<div class="wp-radio">' + "".join(
            f'<div class="wp-option"><span class="wp-dot"></span>{html.escape(o)}</div>'
            for o in state.get("_options_labels", [])) + "</div>"
    return '<div class="wp-other"></div>'


DATA_URI = re.compile(r'src="data:image/(webp|png);base64,([A-Za-z0-9+/=]+)"')


def frames_as_files(app, pagename, state):
    """Every data: URI image in the state's HTML widgets written to a file; the state
    refers to it (a path relative to the page)."""
    folder = Path(app.outdir) / "_images" / "frames"
    up = "../" * pagename.count("/")

    def to_file(match):
        data = base64.b64decode(match.group(2))
        name = f"{hashlib.sha256(data).hexdigest()[:20]}.{match.group(1)}"
        path = folder / name
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return f'src="{up}_images/frames/{name}"'
    for model in state.get("state", {}).values():
        value = model.get("state", {}).get("value")
        if model.get("model_name") == "HTMLModel" and isinstance(value, str) and "data:image/" in value:
            model["state"]["value"] = DATA_URI.sub(to_file, value)


def add_previews(app, pagename, templatename, context, doctree):
    """After myst-nb put the page's widget state among its scripts (priority 600):
    the frames as files, and a preview before each widget's view. A page with
    formulas also gets math-ready.js (its article shown once MathJax drew them)."""
    body = context.get("body", "")
    scripts = context.get("script_files", [])
    if 'class="math' in body:
        app.add_js_file("math-ready.js")
    if "widget-view+json" not in body:
        return
    models = {}
    for k, script in enumerate(scripts):
        attributes = getattr(script, "attributes", {}) or {}
        if attributes.get("type") == STATE and attributes.get("body"):
            state = json.loads(attributes["body"])
            frames_as_files(app, pagename, state)
            models.update(state.get("state", {}))
            text = json.dumps(state).replace("</", "<\\/")     # as myst-nb writes it (no "</script>")
            scripts[k] = type(script)(script.filename, priority=script.priority, **{**attributes, "body": text})
    if not models:
        return

    def with_preview(match):
        try:
            model_id = json.loads(match.group(1))["model_id"]
        except (ValueError, KeyError):
            return match.group(0)
        shown = preview(models, model_id)
        if not shown:
            return match.group(0)
        return f'<div class="widget-preview" aria-hidden="true">{shown}</div>{match.group(0)}'
    context["body"] = VIEW.sub(with_preview, body)


def setup(app: Sphinx):
    app.add_css_file("widget-preview.css")
    app.connect("html-page-context", add_previews, priority=600)   # after myst-nb's (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
