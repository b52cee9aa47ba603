"""Chapter 15's model computed in the page (attention_book/web/smollm2.js and the
WebAssembly kernel web/kernel.wasm) against the chapter's own numpy code, in Chromium:
the tokenizer's ids on every paragraph of the book in both languages, the logits and
every layer's attention weights on prompts of every kind, a step through the KV cache;
then the widget on the built chapter page, as a reader uses it, over http and from
file://, in both editions, and its messages for bad input."""
import base64
import sys

import numpy as np
import pytest

from conftest import HTML, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import fetch_model  # noqa: E402
from book_model import part_bytes, serve_model_page  # noqa: E402
from attention_book.model_lab import MODEL_PARTS  # noqa: E402
from nbtools import run_code  # noqa: E402

PAGE = "notebooks/15_real_model.html"

PROMPTS = [
    "The capital of France is",
    "我喜欢学习",
    "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
    "def f(x):\n\treturn x ** 2  # squares\r\n",
    "12345 + 678 = 13023, and 3.14159 is π.",
    "😀👍 emoji, ελληνικά, العربية, हिन्दी",
    "odd\u00a0spaces\u3000and   runs\n\n\nof newlines",
    "注意力机制：查询、键和值。Attention weights sum to 1.",
    "The",
    " a b c d e f g h i j k l m n o p q r s t u v w x y z " * 2,
]


@pytest.fixture(scope="module")
def chapter():
    """Chapter 15's code, run up to its forward pass (cell c15-171): the numpy reference."""
    if not fetch_model.model_path().is_file():
        pytest.skip("the model is not fetched: run `make model`")
    ns = run_code(ROOT / "notebooks" / "15_real_model.ipynb", until="c15-171")
    assert ns["MODEL"] is not None, "chapter 15 did not load the model"
    return ns


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """A folder served on 127.0.0.1 with smollm2.js, the kernel and the model: the
    model's functions in a page, with no widget around them."""
    srv = serve_model_page(tmp_path_factory.mktemp("model-page"))
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


@pytest.fixture(scope="module")
def js(browser, harness):
    """A page with the model loaded: js(code, arg) runs `code` (an async function body
    given M, the module, and model) there."""
    ctx = browser.new_context()
    tab = ctx.new_page()
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(f"{harness}/index.html")
    tab.evaluate("""async () => {
      const M = await import("./smollm2.js");
      const [file, wasm] = await Promise.all(["model.gguf", "kernel.wasm"].map(
        (u) => fetch(u).then((r) => r.arrayBuffer())));
      window.M = M; window.model = M.load_model(file, new Uint8Array(wasm));
    }""")

    def run(code, arg=None):
        return tab.evaluate(f"async (arg) => {{ const M = window.M, model = window.model; {code} }}", arg)
    yield run
    assert not errors, errors
    ctx.close()


def floats(b64, shape=None):
    a = np.frombuffer(base64.b64decode(b64), np.float32)
    return a if shape is None else a.reshape(shape)


TO_B64 = """const b64 = (f) => { const u = new Uint8Array(f.buffer, f.byteOffset, f.byteLength); let s = "";
  for (let i = 0; i < u.length; i += 32768) s += String.fromCharCode.apply(null, u.subarray(i, i + 32768));
  return btoa(s); };"""


def book_paragraphs():
    """Every paragraph of the book's Markdown, both editions."""
    import nbformat
    out = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "zh" / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                out += [p for p in cell.source.split("\n\n") if p.strip()]
    return out


def test_the_page_tokenizes_every_paragraph_of_the_book_as_the_chapter_does(chapter, js):
    texts = book_paragraphs() + PROMPTS + ["", "\x00\x01 control", "tab\there"]
    assert len(texts) > 1000
    got = js("return arg.map((t) => model.tokenizer.tokenize(t));", texts)
    wrong = [t[:60] for t, ids in zip(texts, got) if ids != chapter["tokenize"](t)]
    assert not wrong, f"{len(wrong)} of {len(texts)} texts tokenized differently, e.g. {wrong[:3]}"
    back = js("return arg.map((t) => model.tokenizer.detokenize(model.tokenizer.tokenize(t)));", PROMPTS)
    assert back == PROMPTS


def test_a_byte_with_no_token_gets_a_clear_message(chapter, js):
    message = js("try { model.tokenizer.tokenize('a\\x1d b'); return null; } catch (e) { return e.message; }")
    assert message and "0x1d" in message and "no token of its own" in message


@pytest.mark.parametrize("text", PROMPTS)
def test_the_page_computes_the_chapters_logits_and_weights(chapter, js, text):
    ids = chapter["tokenize"](text)
    logits, maps = chapter["forward"](np.array(ids))
    out = js(TO_B64 + """const r = M.forward(model, arg, null, { last_only: true });
      const all = new Float32Array(r.maps.reduce((a, m) => a + m.A.length, 0)); let k = 0;
      for (const m of r.maps) { all.set(m.A, k); k += m.A.length; }
      return { logits: b64(r.logits), maps: b64(all) };""", ids)
    page_logits = floats(out["logits"])
    page_maps = floats(out["maps"], (len(maps),) + maps[0].shape)
    assert np.abs(page_logits - logits[-1]).max() < 1e-4
    assert page_logits.argmax() == logits[-1].argmax()
    assert np.abs(page_maps - np.stack(maps)).max() < 2e-5


def test_the_pages_head_measures_are_the_chapters(chapter, js):
    text = "The capital of France is Paris, and the capital of Italy is Rome."
    ids = chapter["tokenize"](text)
    _, maps = chapter["forward"](np.array(ids))
    A = np.stack(maps)                                         # (layers, h, n, n)
    n = len(ids)
    i = np.arange(n)
    sink = A[:, :, 1:, 0].mean(axis=-1)
    rest = A[:, :, 2:, 1:]
    distance = ((rest * (i[2:, None] - i[None, 1:])).sum(-1) / rest.sum(-1)).mean(-1)
    P = A[:, :, -1]
    entropy = -(P * np.log(np.where(P > 0, P, 1))).sum(-1)
    got = np.array(js("""const r = M.forward(model, arg, null, { last_only: true }), h = model.config.h;
      return r.maps.map((m) => Array.from({ length: h }, (_, k) => {
        const s = M.head_measures(m.A.subarray(k * m.n * m.t, (k + 1) * m.n * m.t), m.n, m.t);
        return [s.sink, s.distance, s.entropy]; }));""", ids))
    assert np.abs(got[..., 0] - sink).max() < 1e-4
    assert np.abs(got[..., 1] - distance).max() < 1e-3
    assert np.abs(got[..., 2] - entropy).max() < 1e-3


def test_the_cap_of_128_tokens_and_its_message(chapter, js):
    ids = (chapter["tokenize"](" a b c d e f g h i j k l m n o p q r s t u v w x y z") * 6)[:128]
    logits, _ = chapter["forward"](np.array(ids), last_only=True)
    out = js(TO_B64 + "return b64(M.forward(model, arg, null, { last_only: true, maps: false }).logits);", ids)
    assert np.abs(floats(out) - logits[-1]).max() < 1e-4
    message = js("try { M.forward(model, arg); return null; } catch (e) { return e.message; }", ids + [ids[0]])
    assert message == "129 tokens after 0: give 1 to 128"
    message = js("try { M.forward(model, [49152]); return null; } catch (e) { return e.message; }")
    assert message == "token id 49152 is not in 0 … 49151"


def test_a_step_through_the_kv_cache_equals_the_full_forward_pass(chapter, js):
    ids = chapter["tokenize"]("The capital of France is Paris. The capital of Italy is")
    logits, _ = chapter["forward"](np.array(ids))
    out = js(TO_B64 + """const cache = M.start_cache(model);
      M.forward(model, arg.slice(0, -2), cache);
      M.forward(model, arg.slice(-2, -1), cache);
      const last = M.forward(model, arg.slice(-1), cache, { last_only: true });
      return { logits: b64(last.logits), t: cache[0].t, bytes: cache[0].K.length * 4 };""", ids)
    assert np.abs(floats(out["logits"]) - logits[-1]).max() < 1e-4
    assert out["t"] == len(ids) and out["bytes"] == 3 * len(ids) * 64 * 4


def test_the_sliding_window_and_rope_off_match_the_chapters_code(chapter, js):
    ids = chapter["tokenize"]("The capital of France is Paris, and the capital of Italy is Rome. " * 3)
    n = len(ids)
    ns = chapter
    orig = ns["attention"]

    def windowed(Q, K, V, mask):
        i, j = np.arange(Q.shape[-2])[:, None], np.arange(K.shape[-2])[None, :]
        return orig(Q, K, V, mask & ((i - j < 8) | (j < 1)))
    ns["attention"] = windowed
    try:
        window, _ = ns["forward"](np.array(ids), last_only=True)
    finally:
        ns["attention"] = orig
    flat, _ = ns["forward"](np.array(ids), rotate=False, last_only=True)
    out = js(TO_B64 + """return [b64(M.forward(model, arg, null, { last_only: true, window: 8, sinks: 1, maps: false }).logits),
      b64(M.forward(model, arg, null, { last_only: true, rotate: false, maps: false }).logits)];""", ids)
    assert n > 30
    assert np.abs(floats(out[0]) - window[-1]).max() < 1e-4
    assert np.abs(floats(out[1]) - flat[-1]).max() < 1e-4


def test_sampling_follows_temperature_top_k_and_top_p(js):
    out = js("""const z = new Float32Array([2, 1, 0, -1]);
      const p = (o) => M.next_token_probabilities(z, o).map((x) => [x.id, x.p]);
      return { t1: p({}), k2: p({ top_k: 2 }), p8: p({ top_p: 0.8 }), t0: p({ temperature: 0 }), hot: p({ temperature: 100 }),
               draw: [M.sample(M.next_token_probabilities(z, {}), 0), M.sample(M.next_token_probabilities(z, {}), 0.999)] };""")
    z = np.array([2, 1, 0, -1.0])
    P = np.exp(z) / np.exp(z).sum()
    assert np.allclose([p for _, p in out["t1"]], P) and [i for i, _ in out["t1"]] == [0, 1, 2, 3]
    assert np.allclose([p for _, p in out["k2"]], P[:2] / P[:2].sum())
    assert [i for i, _ in out["p8"]] == [0, 1]           # 0.64 < 0.8 ≤ 0.64 + 0.24
    assert out["t0"] == [[0, 1]]
    assert max(p for _, p in out["hot"]) < 0.26
    assert out["draw"] == [0, 3]


# ---------------------------------------------------------------- the widget on the chapter's page
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


def open_lab(browser, url, init_script=None, **context):
    """Chapter 15's page with its widget drawn: (context, tab, page errors). `context`:
    the browser context's options (default a 1280 px window; PHONE for a phone)."""
    ctx = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | context))
    if init_script:
        ctx.add_init_script(init_script)
    tab = ctx.new_page()
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(url, wait_until="load")
    tab.wait_for_selector(".model-lab .ml-load", timeout=20000)
    return ctx, tab, errors


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_a_reader_loads_the_model_types_a_text_and_adds_tokens(browser, server, edition):
    ctx, tab, errors = open_lab(browser, f"{server}/{edition}{PAGE}")
    requests = []
    tab.on("request", lambda r: requests.append(r.url))
    lab = tab.locator(".model-lab")
    assert not [u for u in requests if "model/" in u], "the model was fetched before the click"
    assert ("98 MB" in lab.locator(".ml-load").inner_text()) and (("加载" in lab.inner_text()) == bool(edition))
    lab.locator(".ml-load").click()
    tab.wait_for_selector(".model-lab .ml-main:not([hidden])", timeout=90000)
    assert sum("_static/model/" in u for u in requests) == MODEL_PARTS
    assert all(u.startswith(f"{server}/_static/model/") for u in requests if "/model/" in u), "one copy for both editions"
    status = lab.locator(".ml-status").inner_text()
    assert ("SHA-256" in status or "校验" in status) or "verified" in status, status
    lab.locator(".ml-text").fill("我喜欢学习")
    lab.locator(".ml-run").click()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 12")
    assert lab.locator(".ml-next tbody tr").count() == 10
    lab.locator(".ml-step").click()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 13")
    assert "13" in lab.locator(".ml-cache").inner_text()
    lab.locator(".ml-tok").nth(3).click()
    assert lab.locator(".ml-tok").nth(3).get_attribute("aria-pressed") == "true"
    layer = lab.locator(".ml-layer")
    layer.focus()
    before = lab.locator(".ml-heat-cap").inner_text()
    tab.keyboard.press("ArrowRight")
    assert lab.locator(".ml-heat-cap").inner_text() != before
    for text, shown in (("", ("empty", "空")), ("x " * 200, ("128",))):
        lab.locator(".ml-text").fill(text)
        lab.locator(".ml-run").click()
        message = lab.locator(".ml-status").inner_text()
        assert any(s in message for s in shown), message
    assert not errors, errors
    ctx.close()


def test_from_a_file_the_reader_chooses_the_model_and_a_wrong_file_is_refused(browser, tmp_path):
    url = (HTML / PAGE).resolve().as_uri()
    ctx, tab, errors = open_lab(browser, url)
    lab = tab.locator(".model-lab")
    assert "_static/model" in lab.locator(".ml-status").inner_text()
    wrong = tmp_path / "notes.gguf"
    wrong.write_bytes(b"GGUF" + bytes(100))
    lab.locator(".ml-file").set_input_files(str(wrong))
    tab.wait_for_function("document.querySelector('.model-lab .ml-status').classList.contains('ml-error')")
    assert "98362432" in lab.locator(".ml-status").inner_text()
    parts = sorted((HTML / "_static" / "model").glob("*.part*.html"))
    assert len(parts) == MODEL_PARTS
    lab.locator(".ml-file").set_input_files([str(p) for p in parts[::-1]])     # any order
    tab.wait_for_selector(".model-lab .ml-main:not([hidden])", timeout=90000)
    lab.locator(".ml-run").click()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 5")
    top = lab.locator(".ml-next tbody tr").first.inner_text()
    assert "Paris" in top
    assert not errors, errors
    ctx.close()


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_from_a_file_the_button_loads_the_books_copy_through_frames(browser, edition):
    ctx, tab, errors = open_lab(browser, (HTML / edition / PAGE).resolve().as_uri())
    lab = tab.locator(".model-lab")
    lab.locator(".ml-load").click()
    tab.wait_for_selector(".model-lab .ml-main:not([hidden])", timeout=120000)
    status = lab.locator(".ml-status").inner_text()
    assert "checksum verified" in status or "SHA-256 已校验" in status, status
    assert tab.locator(".model-lab iframe").count() == 0, "the frames stay after loading"
    lab.locator(".ml-run").click()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 5")
    assert "Paris" in lab.locator(".ml-next tbody tr").first.inner_text()
    assert not errors, errors
    ctx.close()


def test_the_book_holds_one_copy_of_the_model_that_joins_to_the_fetched_file():
    parts = sorted((HTML / "_static" / "model").glob("*.part*"))
    assert [p.name[-10:] for p in parts] == [f"part{k}.html" for k in range(MODEL_PARTS)]
    assert all(p.stat().st_size < 25_000_000 for p in parts)
    import hashlib
    h = hashlib.sha256()
    for p in parts:
        h.update(part_bytes(p.read_text(encoding="ascii")))
    assert h.hexdigest() == fetch_model.SHA256
    assert not (HTML / "zh" / "_static" / "model").exists()


def test_a_generated_token_that_ends_inside_a_character_waits_for_the_next(chapter, js):
    """我喜欢学习 is 12 byte-level tokens for 5 characters of 3 bytes: some tokens end
    inside a character. The text shown after "+1 token" is whole characters only (no
    U+FFFD); the bytes left over wait for the next token."""
    text = "我喜欢学习"
    ids = chapter["tokenize"](text)
    out = js("""const ids = model.tokenizer.tokenize(arg);
        return ids.map((_, k) => [model.tokenizer.detokenize(ids.slice(0, k + 1), { stream: true }), model.tokenizer.detokenize(ids.slice(0, k + 1))]);""",
             text)
    assert len(out) == len(ids) == 12
    assert all(text.startswith(whole) and "\ufffd" not in whole for whole, _ in out)
    assert sum("\ufffd" in raw for _, raw in out) >= 3, "the test needs tokens that end inside a character"
    assert out[-1][0] == text


def test_a_device_that_cannot_spare_the_memory_gets_a_line_and_keeps_the_figures(browser, server):
    """Where the page cannot get the memory (a phone), Load ends in a sentence that says
    so, the chapter's precomputed figures stay, and nothing is left half-loaded."""
    ctx, tab, errors = open_lab(browser, f"{server}/{PAGE}", init_script="""WebAssembly.Memory = function () {
        throw new RangeError("WebAssembly.Memory(): could not allocate memory"); };""", **PHONE)
    lab = tab.locator(".model-lab")
    lab.locator(".ml-load").tap()
    tab.wait_for_function("document.querySelector('.model-lab .ml-status').classList.contains('ml-error')",
                          timeout=90000)
    assert "memory the model needs" in lab.locator(".ml-status").inner_text()
    assert lab.locator(".ml-main").is_hidden() and lab.locator(".ml-load").is_enabled()
    assert tab.locator("img[alt]").count() >= 5, "the chapter's figures"
    assert not errors, errors
    ctx.close()


def test_the_pages_sampling_keeps_what_the_chapters_keeps(chapter, js):
    """The page's next_token_probabilities is the chapter's (section "Sampling"), on the
    real model's logits after the chapter's prompt: the same ids, in the same order, and
    the same probabilities, for greedy, temperature, top-k and top-p."""
    import nbformat
    cell = next(c for c in nbformat.read(ROOT / "notebooks" / "15_real_model.ipynb", as_version=4).cells
                if c.get("id") == "c15-053b")
    exec(cell.source, chapter)
    z = chapter["forward"](np.array(chapter["tokenize"]("Once upon a time, there was a little")), last_only=True)[0][-1]
    settings = [{"temperature": 0}, {"temperature": 0.6}, {"top_k": 10}, {"top_p": 0.9},
                {"temperature": 0.7, "top_p": 0.9}, {"temperature": 1.5, "top_k": 50, "top_p": 0.5}]
    page = js("""const z = new Float32Array(Uint8Array.from(atob(arg.z), (c) => c.charCodeAt(0)).buffer);
        return arg.settings.map((s) => M.next_token_probabilities(z, s).slice(0, 200));""",
              {"z": base64.b64encode(z.astype(np.float32).tobytes()).decode(), "settings": settings})
    for setting, got in zip(settings, page):
        keep, p = chapter["next_token_probabilities"](z.astype(np.float32), **setting)
        assert [o["id"] for o in got] == [int(i) for i in keep[:200]], setting
        assert np.abs(np.array([o["p"] for o in got]) - p[:200]).max() < 1e-6, setting


def test_on_a_phone_the_reader_taps_through_the_model(browser, server):
    """390 px, touch only: tap Load, Run, +1 token and a token of the text; the head view
    follows the tapped token, and nothing is wider than the screen."""
    ctx, tab, errors = open_lab(browser, f"{server}/zh/{PAGE}", **PHONE)
    lab = tab.locator(".model-lab")
    lab.locator(".ml-load").tap()
    tab.wait_for_selector(".model-lab .ml-main:not([hidden])", timeout=120000)
    lab.locator(".ml-run").tap()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 5")
    lab.locator(".ml-step").tap()
    tab.wait_for_function("document.querySelectorAll('.model-lab .ml-tok').length === 6")
    before = lab.locator(".ml-heat-cap").inner_text()
    lab.locator(".ml-tok").nth(2).tap()
    assert lab.locator(".ml-tok").nth(2).get_attribute("aria-pressed") == "true"
    assert lab.locator(".ml-heat-cap").inner_text() != before
    wide = tab.evaluate("""() => [...document.querySelectorAll('.model-lab *')]
        .filter((e) => e.getBoundingClientRect().right > innerWidth + 1).map((e) => e.className).slice(0, 5)""")
    assert not wide, f"wider than the phone: {wide}"
    assert not errors, errors
    ctx.close()
