"""Copy chapter 15's model into the built book, for the page that runs it (model_lab):
_build/html/_static/model/SmolLM2-135M-Instruct.Q4_1.gguf.part0.html … part5.html,
six pages of under 25 MB each (static hosts take files of that size) that hold the
file's bytes in base64, in a text node. Over http the page fetches them and decodes
the text; opened from a file (file://), where a page may not fetch, it loads each in
a hidden iframe, whose own script decodes it and posts the bytes to the book's page.
Either way the page joins the parts and checks the whole file's SHA-256. One copy for
both editions: the Chinese pages (under zh/) read the English edition's.

    python tools/book_model.py [BUILD_HTML_DIR]
"""
import base64
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import fetch_model  # noqa: E402
from attention_book.model_lab import MODEL_NAME, MODEL_PARTS, MODEL_SIZE  # noqa: E402

# A part: the bytes in base64 inside <pre id="b">; its script (run only when the page is
# loaded as a frame of the book's page) decodes them and posts them to that page.
PART = """<!doctype html>
<meta charset="utf-8">
<title>{name}, part {k} of {parts}</title>
<p>Part {k} of {parts} of chapter 15's model ({name}, bytes {start} to {end}), in base64; the chapter's page reads it.</p>
<pre id="b" hidden>{b64}</pre>
<script>
(function () {{
  if (window.parent === window) return;
  var s = atob(document.getElementById("b").textContent), u = new Uint8Array(s.length);
  for (var i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
  window.parent.postMessage({{ smollm2_part: {k}, bytes: u.buffer }}, "*", [u.buffer]);
}})();
</script>
"""


def part_bytes(text):
    """The model's bytes in one part page (the inverse of PART)."""
    start = text.index('<pre id="b" hidden>') + len('<pre id="b" hidden>')
    return base64.b64decode(text[start:text.index("</pre>", start)], validate=True)


def main(html=ROOT / "_build" / "html"):
    source = fetch_model.model_path()
    if not source.is_file() or fetch_model.sha256(source) != fetch_model.SHA256:
        sys.exit(f"{source} is missing or corrupt: run `make model` (python tools/fetch_model.py) first")
    data = source.read_bytes()
    assert len(data) == MODEL_SIZE and source.name == MODEL_NAME
    out = Path(html) / "_static" / "model"
    out.mkdir(parents=True, exist_ok=True)
    step = -(-len(data) // MODEL_PARTS)
    for old in out.glob(f"{MODEL_NAME}.part*"):          # an earlier layout (binary parts)
        if not old.name.endswith(".html"):
            old.unlink()
    for k in range(MODEL_PARTS):
        part = out / f"{MODEL_NAME}.part{k}.html"
        chunk = data[k * step:(k + 1) * step]
        text = PART.format(name=MODEL_NAME, k=k, parts=MODEL_PARTS, start=k * step, end=k * step + len(chunk) - 1,
                           b64=base64.b64encode(chunk).decode("ascii"))
        if not (part.is_file() and part.read_text(encoding="ascii") == text):
            part.write_text(text, encoding="ascii")
    print(f"the model for chapter 15's page: {out} ({MODEL_PARTS} parts of ≤ {step * 4 / 3 / 1e6:.1f} MB)")


if __name__ == "__main__":
    main(*sys.argv[1:])


def serve_model_page(folder):
    """A page of the model's functions alone, for tests and benchmarks: `folder` gets
    smollm2.js, kernel.wasm, the fetched model as model.gguf and an empty index.html,
    served on 127.0.0.1 (a thread). Returns the server; its address is
    http://127.0.0.1:{server.server_address[1]}/index.html."""
    import functools
    import http.server
    import shutil
    import threading
    web = ROOT / "attention_book" / "web"
    folder = Path(folder)
    for name in ("smollm2.js", "kernel.wasm"):
        shutil.copy(web / name, folder / name)
    (folder / "model.gguf").symlink_to(fetch_model.model_path())
    (folder / "index.html").write_text("<!doctype html><meta charset=utf-8><title>model</title><body>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
