"""Chapter 15's real model computed in the page: the reader types a text and sees
SmolLM2's tokens, next-token probabilities and attention weights, computed by the
book's own JavaScript (attention_book/web/smollm2.js, a port of the chapter's numpy
code, and the WebAssembly kernel web/kernel.wat), offline, live in Jupyter and in
the static HTML book alike (an anywidget)."""
import base64
import os
from pathlib import Path

from . import style
from .figures import _md, _printed, widgets
from .i18n import say as print, tr

try:
    import anywidget
    import traitlets
except ImportError:  # Colab: !pip install anywidget, then restart the session
    anywidget = None

WEB = Path(__file__).with_name("web")
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_SIZE = 98_362_432
MODEL_PARTS = 6          # the book's copy: six pages of under 25 MB, the bytes in base64 (tools/book_model.py)
MAX_TOKENS = 128
KERNEL_PIECE = 8 << 20  # bytes per message when the kernel sends its copy of the model to the page


def lab_source():
    """The widget's JavaScript: the model (smollm2.js), then the widget (model_lab.js)."""
    return (WEB / "smollm2.js").read_text(encoding="utf-8") + "\n" + (WEB / "model_lab.js").read_text(encoding="utf-8")


def model_cache_path():
    """Where tools/fetch_model.py puts the model ($ATTENTION_BOOK_MODELS or ~/.cache/attention-book)."""
    return Path(os.environ.get("ATTENTION_BOOK_MODELS") or Path.home() / ".cache" / "attention-book") / MODEL_NAME


if anywidget is not None:
    class _ModelLab(anywidget.AnyWidget):
        _esm = lab_source()
        kernel = traitlets.Unicode().tag(sync=True)           # the WebAssembly kernel, base64
        model_name, sha256 = traitlets.Unicode(MODEL_NAME).tag(sync=True), traitlets.Unicode(MODEL_SHA256).tag(sync=True)
        size, parts = traitlets.Int(MODEL_SIZE).tag(sync=True), traitlets.Int(MODEL_PARTS).tag(sync=True)
        max_tokens = traitlets.Int(MAX_TOKENS).tag(sync=True)
        text, path_hint = traitlets.Unicode().tag(sync=True), traitlets.Unicode().tag(sync=True)
        labels = traitlets.Dict().tag(sync=True)

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.on_msg(self._send_model)

        def __repr__(self):
            return "SmolLM2 in the page (type a text, run the model)"

        def _send_model(self, _widget, content, _buffers):
            """The page asks for the model (JupyterLab, Colab: a kernel is there): send the
            kernel's copy, checked in the page as any other, in pieces of 8 MiB."""
            if content.get("want") != "model":
                return
            path = model_cache_path()
            if not path.is_file() or path.stat().st_size != MODEL_SIZE:
                self.send({"missing": str(path)})
                return
            data = memoryview(path.read_bytes())
            piece = KERNEL_PIECE
            count = -(-len(data) // piece)
            for k in range(count):
                self.send({"part": k, "of": count}, buffers=[data[k * piece:(k + 1) * piece]])


def model_lab(text="The capital of France is"):
    """Show SmolLM2 computed in the page: load the model (a click: 98 MB from the book,
    or the file chosen), type a text of up to 128 tokens, see its tokens, the top-10
    next tokens (temperature, top-k, top-p), the weights of any layer and head, add
    tokens one at a time through the KV cache, and switch RoPE off or slide a window.
    Returns the widget, or None without anywidget."""
    if anywidget is None or widgets is None:
        print(tr("The model in the page needs the anywidget package: `pip install anywidget` "
                 "(on Colab: run `!pip install anywidget` in a cell, then restart the session)."))
        return None
    labels = {
        "load": tr("Load the model (<mb> MB)"),
        "pick": tr("or choose the model file (.gguf, or the <parts> part files):"),
        "hint_http": tr("Nothing is downloaded until you press the button."),
        "hint_file": tr("This book is open from a file: the button reads the model from _static/model/ in the "
                        "book's folder (slower: several seconds), or choose the file yourself: <path>."),
        "hint_pick": tr("Choose the model file: <path> (`make model` put it there)."),
        "hint_kernel": tr("The button reads the kernel's copy of the model (<path>); or choose the file yourself."),
        "asking": tr("asking the kernel for its copy of the model …"),
        "kernel_missing": tr("The kernel has no copy of the model at <path>: run chapter 15's first cells "
                             "(or `python tools/fetch_model.py`), or choose the file yourself."),
        "no_kernel": tr("No kernel answered (is the notebook's kernel running?). Choose the model file: <path>."),
        "frame_failed": tr("Part <k> of the model (<file>) did not arrive: is _static/model/ in the book's folder? "
                           "Choose the file yourself instead."),
        "bad_part": tr("<file> is not one of the model's part files."),
        "loading": tr("loading <mb> of <of> MB …"), "reading": tr("reading the file …"),
        "checking": tr("checking the file's SHA-256 …"),
        "loaded": tr("SmolLM2 loaded and its checksum verified (<s> s)."),
        "loaded_unchecked": tr("SmolLM2 loaded (<s> s); this page cannot compute a checksum (no Web Crypto), "
                               "the file's size and layout were checked."),
        "bad_size": tr("That file has <got> bytes; <name> has <want>: choose that file (or all <parts> parts)."),
        "bad_sum": tr("The file's SHA-256 begins <got>, not <want>: it is not the book's model, or it is corrupt."),
        "failed": tr("The model could not be loaded: <error>"),
        "no_simd": tr("This browser cannot run the model: it lacks WebAssembly with SIMD (Chrome 91, Firefox 89, "
                      "Safari 16.4 and later have it). The figures of this chapter were computed in advance and stay."),
        "no_memory": tr("This device could not give the page the memory the model needs (its 98 MB file, "
                        "and as much again to compute with): it cannot run here. The figures of this chapter "
                        "were computed in advance and stay."),
        "text": tr("Your text (up to <cap> tokens):"), "run": tr("Run"), "step": tr("+1 token"),
        "tokens": tr("tokens: press one to see whom it attends to"),
        "empty": tr("The text is empty: type something."),
        "too_long": tr("<n> tokens: this page runs at most <cap>; shorten the text."),
        "temperature": tr("temperature"), "top_k": tr("top-k (0: all)"), "top_p": tr("top-p"),
        "next": tr("next token after the <n> tokens, with the temperature, top-k and top-p set:"),
        "time": tr("prompt of <n> tokens: <prefill> ms"),
        "time_steps": tr("prompt of <n> tokens: <prefill> ms; tokens added: <k>, <step> ms each"),
        "cache": tr("KV cache: <t> tokens, <kib> KiB with g = <g> key/value heads (<kib9> KiB with one for each of the <h> query heads)"),
        "layer": tr("layer"), "head": tr("head"),
        "heat": tr("layer <l>, head <k>: weights A of the <n> tokens (rows: query i, columns: key j). "
                   "Query <i> attends most to token <j> “<tok>” (<w>)."),
        "measures": tr("this head: share of weight on token 0 <sink> (even weights: <even>), mean distance <dist> tokens, "
                       "entropy of the last row <H> nats (uniform: <lnn>)"),
        "overview": tr("every layer and head: the share on token 0"),
        "overview_cap": tr("rows: layers 0–29 (top to bottom), columns: heads 0–8; bright: most weight on token 0"),
        "experiments": tr("experiments: RoPE off, a sliding window"),
        "rope": tr("RoPE (unticked: no rotation, rotate=False)"),
        "window": tr("window: each query sees its last keys (0: all)"),
        "sink": tr("and token 0"), "loss": tr("loss of the text"),
        "loss_out": tr("loss <loss> nats per token over the <n> tokens (<how>)"),
        "full": tr("full attention"), "no_rope": tr("no RoPE,"),
        "with_window": tr("window of <w>"), "with_window_sink": tr("window of <w> and token 0"),
    }
    w = _ModelLab(kernel=base64.b64encode((WEB / "kernel.wasm").read_bytes()).decode("ascii"),
                  text=text, path_hint=str(model_cache_path()), labels=labels)
    if style.STATIC:  # the PDF book: a sentence instead of the interactive widget
        return _printed(w, **{"text/markdown": _md(tr("(SmolLM2 runs in the page in the HTML book: "
                                                       "open it, or the notebook, to type your own text.)"))})
    return w
