// The HTML book's ipywidgets manager: ipywidgets' own packages (@jupyter-widgets/base,
// controls, base-manager), bundled with only what the book's pages use. It renders
// the widget state a page embeds, as @jupyter-widgets/html-manager's embed-amd.js
// does, without html-manager's output widget and its renderers (3 MB of the 4.4 MB
// embed-amd.js; the book shows no Output widget) and without Font Awesome (no widget
// of the book draws an icon). See README.md.
import * as base from '@jupyter-widgets/base';
import * as controls from '@jupyter-widgets/controls';
import { ManagerBase } from '@jupyter-widgets/base-manager';
import { MessageLoop } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';

// the styles html-manager's embed-amd.js brought (not base's index.css: its
// "disconnected" icon marks every widget of a page with no kernel, in Font Awesome)
import '@lumino/widgets/style/index.css';
import '@jupyter-widgets/controls/css/widgets.css';

// One local change, as the html-manager copy the book used before had it: a
// slider switches a Stack, which disposes the view it showed; a Lumino message
// already queued for that view's widget then arrives after dispose() set _view
// to null ("Cannot read properties of null (reading 'processLuminoMessage')",
// seen in CI). ipywidgets' Accordion has the same guard.
for (const [cls, parent] of [[base.JupyterLuminoWidget, Widget], [base.JupyterLuminoPanelWidget, Panel]]) {
  cls.prototype.processMessage = function (msg) {
    parent.prototype.processMessage.call(this, msg);
    if (this._view) this._view.processLuminoMessage(msg);
  };
}

// other widgets (the book's playground, an anywidget) are AMD modules that
// require these two by name, as they do in Jupyter
if (typeof window.define === 'function' && window.define.amd) {
  window.define('@jupyter-widgets/base', [], () => base);
  window.define('@jupyter-widgets/controls', [], () => controls);
}

function requireModule(name) {
  return new Promise((resolve, reject) => window.require([name], resolve, reject));
}

export class BookWidgetManager extends ManagerBase {
  async loadClass(className, moduleName, moduleVersion) {
    const module = moduleName === '@jupyter-widgets/base' ? base
      : moduleName === '@jupyter-widgets/controls' ? controls
      : await requireModule(moduleName);
    if (!module[className]) {
      throw new Error(`Class ${className} not found in module ${moduleName}@${moduleVersion}`);
    }
    return module[className];
  }

  async display_view(view, el) {
    Widget.attach(view.luminoWidget, el);
    el.widget_view = view;
    return view;
  }

  // a static page has no kernel: no comms
  _get_comm_info() {
    return Promise.resolve({});
  }

  _create_comm() {
    return Promise.reject(new Error('this page has no kernel'));
  }
}

const VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';
const STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';

// Each view is drawn beside its <script> tag (in a div.widget-subarea, as
// html-manager does). The page may show a still picture of the view until then
// (a sibling .widget-preview, made when the book is built): the view is drawn
// hidden over it, then takes its place in one step, so nothing below moves.
async function renderView(manager, models, script) {
  const { model_id } = JSON.parse(script.textContent);
  const model = models.find((m) => m.model_id === model_id);
  if (!model || !script.parentElement) return;
  const before = script.previousElementSibling;
  const preview = before && before.classList.contains('widget-preview') ? before : null;
  const area = document.createElement('div');
  area.className = 'widget-subarea';
  if (preview) area.classList.add('widget-subarea-pending');
  script.parentElement.insertBefore(area, script);
  const view = await manager.create_view(model);
  await manager.display_view(view, area);
  if (preview) {
    await Promise.all([...area.querySelectorAll('img')].map((img) => img.decode().catch(() => {})));
    preview.remove();
    area.classList.remove('widget-subarea-pending');
    MessageLoop.sendMessage(view.luminoWidget, Widget.ResizeMessage.UnknownSize);
  }
}

export async function renderWidgets(root = document.documentElement) {
  for (const tag of root.querySelectorAll(STATE)) {
    const manager = new BookWidgetManager();
    const models = await manager.set_state(JSON.parse(tag.textContent));
    await Promise.all([...root.querySelectorAll(VIEW)].map((s) => renderView(manager, models, s)));
  }
}

// as soon as the page's HTML is read (html-manager waited for the load event)
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => renderWidgets());
} else {
  renderWidgets();
}
