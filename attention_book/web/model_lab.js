// Chapter 15's "type your own text" widget: the page loads SmolLM2 (on a click), runs the
// functions of smollm2.js (joined in front of this file by attention_book/model_lab.py)
// on the reader's text, and shows the tokens, the next-token probabilities, the attention
// weights of every layer and head, generation step by step with the KV cache, and two
// experiments (RoPE off; a sliding window with or without token 0).

const LAB_MAGMA = [[0,0,4],[28,16,68],[79,18,123],[129,37,129],[181,54,122],[229,80,100],[251,135,97],[254,194,135],[252,253,191]];
function lab_colour(v) {
  const x = Math.min(1, Math.max(0, v)) * (LAB_MAGMA.length - 1), i = Math.min(LAB_MAGMA.length - 2, Math.floor(x)), f = x - i;
  return LAB_MAGMA[i].map((c, j) => Math.round(c + f * (LAB_MAGMA[i + 1][j] - c)));
}

function b64_bytes(text) {
  const s = atob(text), out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function sha256_hex(buffer) {
  if (!(globalThis.crypto && crypto.subtle)) return null;         // plain http on another host: no Web Crypto
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(h, (x) => x.toString(16).padStart(2, "0")).join("");
}

function static_base() {
  /* The book's _static/ folder, from a script of the page's own (null outside the book). */
  for (const s of document.querySelectorAll("script[src]")) {
    const k = s.src.indexOf("/_static/");
    if (k >= 0) return s.src.slice(0, k + "/_static/".length);
  }
  return null;
}

function piece(model, id) {
  /* How a token is shown: its text, or its bytes in hex where they are not whole characters. */
  const b = model.tokenizer.token_bytes(id);
  try {
    const s = new TextDecoder("utf-8", { fatal: true }).decode(b);
    return s.replace(/ /g, "␣").replace(/\n/g, "↵").replace(/\t/g, "⇥");
  } catch (e) {
    return Array.from(b, (x) => "\\x" + x.toString(16).padStart(2, "0")).join("");
  }
}

function fill(template, values) {
  return Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`<${k}>`, v), template);
}

function render({ model: w, el }) {
  const L = w.get("labels"), size = w.get("size"), name = w.get("model_name"), expected = w.get("sha256");
  const cap = w.get("max_tokens");
  el.classList.add("model-lab");
  el.innerHTML = `<style>
.model-lab [hidden] { display: none !important; }
.model-lab { font-size: 16px; line-height: 1.45; max-width: 760px; }
.model-lab .ml-row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 6px 0; }
.model-lab button { font: inherit; min-height: 44px; padding: 4px 14px; border-radius: 6px; border: 1px solid #888; background: #f4f4f4; color: #111; cursor: pointer; }
.model-lab button:disabled { opacity: 0.5; cursor: default; }
.model-lab textarea { font: inherit; width: 100%; box-sizing: border-box; min-height: 3.2em; }
.model-lab label { display: inline-flex; align-items: center; gap: 6px; min-height: 44px; }
.model-lab .ml-pick label { flex-wrap: wrap; }
.model-lab input[type=range] { width: min(180px, 45vw); }
.model-lab input[type=number] { width: 5em; font: inherit; }
.model-lab .ml-status { font-variant-numeric: tabular-nums; }
.model-lab .ml-error { color: #b00020; }
.model-lab .ml-tokens { display: flex; flex-wrap: wrap; gap: 4px; }
.model-lab .ml-tok { font-family: var(--pst-font-family-monospace, monospace); font-size: 14px; border: 1px solid #aaa; border-radius: 4px; padding: 2px 5px; min-height: 32px; min-width: 32px; background: #fff; color: #111; }
.model-lab .ml-tok[aria-pressed=true] { outline: 3px solid #e8a70b; }
.model-lab table { margin: 0; border-collapse: collapse; font-variant-numeric: tabular-nums; }
.model-lab td { padding: 1px 8px; }
.model-lab .ml-bar { display: inline-block; height: 0.8em; background: #51127c; }
.model-lab canvas { max-width: 100%; height: auto; image-rendering: pixelated; border: 1px solid #ccc; }
.model-lab details { margin: 8px 0; }
.model-lab progress { width: min(260px, 60vw); }
</style>
<div class="ml-row"><button class="ml-load"></button><progress class="ml-progress" max="1" value="0" hidden></progress>
<span class="ml-status" role="status" aria-live="polite"></span></div>
<div class="ml-row ml-pick"><label><span class="ml-pick-label"></span><input type="file" class="ml-file" accept=".gguf,.html" multiple></label></div>
<div class="ml-main" hidden>
<label class="ml-text-label" style="display:block"><span></span><textarea class="ml-text" rows="2"></textarea></label>
<div class="ml-row"><button class="ml-run"></button><button class="ml-step"></button><span class="ml-time" aria-live="polite"></span></div>
<div class="ml-tokens" role="group"></div>
<div class="ml-row">
<label><span class="ml-l-temp"></span><input type="range" class="ml-temp" min="0" max="2" step="0.05" value="1"><output></output></label>
<label><span class="ml-l-topk"></span><input type="number" class="ml-topk" min="0" max="50" value="0"></label>
<label><span class="ml-l-topp"></span><input type="range" class="ml-topp" min="0.05" max="1" step="0.05" value="1"><output></output></label>
</div>
<p class="ml-next-cap"></p><table class="ml-next"><tbody></tbody></table>
<p class="ml-cache"></p>
<div class="ml-row">
<label><span class="ml-l-layer"></span><input type="range" class="ml-layer" min="0" max="29" value="5"><output></output></label>
<label><span class="ml-l-head"></span><input type="range" class="ml-head" min="0" max="8" value="0"><output></output></label>
</div>
<figure style="margin:0"><canvas class="ml-heat" width="256" height="256" style="width:256px"></canvas>
<figcaption class="ml-heat-cap"></figcaption></figure>
<p class="ml-measures"></p>
<details><summary class="ml-over-sum"></summary><canvas class="ml-over" width="90" height="300" style="width:117px"></canvas><p class="ml-over-cap"></p></details>
<details><summary class="ml-exp-sum"></summary>
<div class="ml-row"><label><input type="checkbox" class="ml-rope" checked><span class="ml-l-rope"></span></label>
<label><span class="ml-l-window"></span><input type="number" class="ml-window" min="0" max="${cap}" value="0"></label>
<label><input type="checkbox" class="ml-sink"><span class="ml-l-sink"></span></label>
<button class="ml-loss"></button></div><p class="ml-loss-out" aria-live="polite"></p></details>
</div>`;
  const $ = (s) => el.querySelector(s);
  const text = (s, v) => { $(s).textContent = v; };
  text(".ml-load", fill(L.load, { mb: (size / 1e6).toFixed(0) }));
  text(".ml-pick-label", fill(L.pick, { parts: w.get("parts") }));
  text(".ml-text-label span", fill(L.text, { cap }));
  text(".ml-run", L.run); text(".ml-step", L.step);
  text(".ml-l-temp", L.temperature); text(".ml-l-topk", L.top_k); text(".ml-l-topp", L.top_p);
  text(".ml-l-layer", L.layer); text(".ml-l-head", L.head);
  text(".ml-over-sum", L.overview); text(".ml-exp-sum", L.experiments);
  text(".ml-l-rope", L.rope); text(".ml-l-window", L.window); text(".ml-l-sink", L.sink); text(".ml-loss", L.loss);
  $(".ml-text").value = w.get("text");
  $(".ml-tokens").setAttribute("aria-label", L.tokens);
  for (const s of [".ml-temp", ".ml-topk", ".ml-topp", ".ml-layer", ".ml-head", ".ml-window"])
    $(s).setAttribute("aria-label", $(s).parentElement.querySelector("span").textContent);
  const status = (msg, error = false) => { const s = $(".ml-status"); s.textContent = msg; s.classList.toggle("ml-error", error); };
  const base = static_base();
  const from_file = location.protocol === "file:";
  const hint = !base ? fill(L.hint_kernel, { path: w.get("path_hint") })
    : from_file ? fill(L.hint_file, { path: w.get("path_hint") }) : L.hint_http;
  status(hint);
  if (!(globalThis.WebAssembly && WebAssembly.validate(b64_bytes(w.get("kernel"))))) {
    status(L.no_simd, true);                      // the chapter's precomputed figures are still there
    $(".ml-load").disabled = true; $(".ml-file").disabled = true;
  }

  let M = null, run = null;                       // the model; the last run: ids, cache, maps, timings
  const state = { query: null, loaded: "" };
  el.__lab = { get model() { return M; }, get run() { return run; }, api: { forward, start_cache, next_token_probabilities,
    head_measures, cache_bytes } };

  async function use(buffer) {
    $(".ml-progress").hidden = true;
    if (buffer.byteLength !== size) throw new ModelFileError(fill(L.bad_size, { got: buffer.byteLength, want: size, name, parts: w.get("parts") }));
    status(L.checking);
    const digest = await sha256_hex(buffer);
    if (digest !== null && digest !== expected) throw new ModelFileError(fill(L.bad_sum, { got: digest.slice(0, 16), want: expected.slice(0, 16) }));
    const t0 = performance.now();
    M = load_model(buffer, b64_bytes(w.get("kernel")), { max_tokens: cap });
    state.loaded = fill(digest === null ? L.loaded_unchecked : L.loaded, { s: ((performance.now() - t0) / 1000).toFixed(1) });
    status(state.loaded);
    $(".ml-main").hidden = false; $(".ml-pick").hidden = true; $(".ml-load").hidden = true;
    go();
  }
  const out_of_memory = (e) => e instanceof RangeError && /memory|alloc/i.test(String(e.message));
  const fail = (e) => {
    $(".ml-progress").hidden = true;
    status(e instanceof ModelFileError ? e.message : out_of_memory(e) ? L.no_memory      // a phone that cannot spare it
      : fill(L.failed, { error: String(e.message || e) }), true);
    $(".ml-load").disabled = false;
  };

  // The book's copy of the model: pages <name>.part0.html … holding its bytes in base64
  // (tools/book_model.py). Over http they are fetched; from a file they are loaded as hidden
  // frames, whose own script decodes the bytes and posts them here.
  const part_url = (root, k) => `${root}${name}.part${k}.html`;
  function part_bytes(text, file) {
    const open = '<pre id="b" hidden>', i = text.indexOf(open), j = text.indexOf("</pre>", i);
    if (i < 0 || j < 0) throw new ModelFileError(fill(L.bad_part, { file }));
    const b64 = text.slice(i + open.length, j);
    return Uint8Array.fromBase64 ? Uint8Array.fromBase64(b64) : b64_bytes(b64);
  }
  function frame_part(url, k) {
    return new Promise((resolve, reject) => {
      const frame = document.createElement("iframe");
      frame.hidden = true; frame.title = url;
      const done = (f) => { clearTimeout(timer); window.removeEventListener("message", got); frame.remove(); f(); };
      const got = (ev) => {
        if (ev.source !== frame.contentWindow || !ev.data || ev.data.smollm2_part !== k) return;
        done(() => resolve(new Uint8Array(ev.data.bytes)));
      };
      const timer = setTimeout(() => done(() => reject(new ModelFileError(fill(L.frame_failed, { k, file: url })))), 60000);
      window.addEventListener("message", got);
      frame.src = url;
      el.appendChild(frame);
    });
  }
  async function book_parts(root) {
    const parts = w.get("parts"), out = new Uint8Array(size), chunks = new Array(parts);
    let at = 0;
    const bar = $(".ml-progress"); bar.hidden = false; bar.value = 0;
    const got = (k, bytes) => {
      chunks[k] = bytes; at += bytes.length; bar.value = Math.min(1, at / size);
      status(fill(L.loading, { mb: (at / 1e6).toFixed(0), of: (size / 1e6).toFixed(0) }));
    };
    status(fill(L.loading, { mb: 0, of: (size / 1e6).toFixed(0) }));
    if (from_file)                                  // one frame at a time: each holds its part twice
      for (let k = 0; k < parts; k++) got(k, await frame_part(part_url(root, k), k));
    else                                            // over http, all parts at once
      await Promise.all(Array.from({ length: parts }, async (_, k) => {
        const r = await fetch(part_url(root, k));
        if (!r.ok) throw new Error(`${r.status} ${r.url}`);
        got(k, part_bytes(await r.text(), r.url));
      }));
    if (at !== size) throw new ModelFileError(fill(L.bad_size, { got: at, want: size, name, parts }));
    at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out.buffer;
  }
  class NoKernel extends Error {}
  function kernel_copy() {
    /* Ask the kernel (model_lab.py: _send_model) for its copy of the model; it comes in
       pieces, each a message with one binary buffer. No answer within 20 s: NoKernel. */
    return new Promise((resolve, reject) => {
      const chunks = [], bar = $(".ml-progress");
      let at = 0, count = 0, timer = null;
      const off = () => { clearTimeout(timer); w.off("msg:custom", got); };
      const wait = (ms) => { clearTimeout(timer); timer = setTimeout(() => { off(); reject(new NoKernel()); }, ms); };
      const got = (msg, buffers) => {
        if (msg && msg.missing) { off(); reject(new ModelFileError(fill(L.kernel_missing, { path: msg.missing }))); return; }
        if (!msg || !Number.isInteger(msg.part) || !buffers || !buffers.length) return;
        const b = buffers[0], view = ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);
        chunks[msg.part] = view; at += view.byteLength; count++;
        bar.hidden = false; bar.value = Math.min(1, at / size);
        status(fill(L.loading, { mb: (at / 1e6).toFixed(0), of: (size / 1e6).toFixed(0) }));
        if (count < msg.of) { wait(60000); return; }
        off();
        const out = new Uint8Array(at);
        let k = 0; for (const c of chunks) { out.set(c, k); k += c.byteLength; }
        resolve(out.buffer);
      };
      status(L.asking);
      w.on("msg:custom", got);
      wait(20000);
      try { w.send({ want: "model" }); } catch (e) { off(); reject(new NoKernel()); }
    });
  }
  $(".ml-load").addEventListener("click", async () => {
    $(".ml-load").disabled = true;
    if (!base) {                                    // JupyterLab, Colab: the kernel's copy
      try { await use(await kernel_copy()); } catch (e) {
        if (e instanceof NoKernel) { status(fill(L.no_kernel, { path: w.get("path_hint") }), true); $(".ml-file").focus(); $(".ml-load").disabled = false; }
        else fail(e);
      }
      return;
    }
    try {
      // one copy for both editions: the Chinese pages (under zh/) read the English edition's
      const root = base.endsWith("/zh/_static/") ? base.slice(0, -"zh/_static/".length) + "_static/" : base;
      await use(await book_parts(root + "model/"));
    } catch (e) { fail(e); }
  });
  $(".ml-file").addEventListener("change", async (ev) => {
    // the .gguf, or the book's part pages (in any order)
    const files = [...ev.target.files].sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    if (!files.length) return;
    try {
      status(L.reading);
      const blobs = await Promise.all(files.map(async (f) => f.name.endsWith(".html")
        ? part_bytes(await f.text(), f.name) : new Uint8Array(await f.arrayBuffer())));
      const all = new Uint8Array(blobs.reduce((a, b) => a + b.byteLength, 0));
      let at = 0; for (const b of blobs) { all.set(b, at); at += b.byteLength; }
      await use(all.buffer);
    } catch (e) { fail(e); }
  });

  function settings() {
    const window = Number($(".ml-window").value) || null;
    return { rotate: $(".ml-rope").checked, window, sinks: window && $(".ml-sink").checked ? 1 : 0 };
  }
  function go() {
    /* Tokenize the text and run the prompt through the model, filling the cache. */
    let ids;
    try { ids = M.tokenizer.tokenize($(".ml-text").value); } catch (e) { status(e.message, true); return; }
    if (ids.length === 0) { status(L.empty, true); return; }
    if (ids.length > cap) { status(fill(L.too_long, { n: ids.length, cap }), true); return; }
    if ($(".ml-status").classList.contains("ml-error")) status(state.loaded);
    const cache = start_cache(M), t0 = performance.now();
    const r = forward(M, ids, cache, { last_only: true, ...settings() });
    run = { ids, cache, maps: r.maps, logits: r.logits, prefill: performance.now() - t0, steps: [] };
    state.query = ids.length - 1;
    show();
  }
  function step() {
    /* One more token, drawn with the temperature, top-k and top-p shown, through the KV cache. */
    if (!run) return;
    if (run.ids.length >= cap) { status(fill(L.too_long, { n: run.ids.length + 1, cap }), true); return; }
    const P = next_token_probabilities(run.logits, probability_settings()), id = sample(P);
    const t0 = performance.now();
    const r = forward(M, [id], run.cache, { last_only: true, ...settings() });
    run.steps.push(performance.now() - t0);
    run.ids.push(id); run.logits = r.logits;
    run.maps = run.maps.map((old, l) => grow_map(old, r.maps[l]));
    state.query = run.ids.length - 1;
    $(".ml-text").value = M.tokenizer.detokenize(run.ids, { stream: true });   // whole characters only
    show();
  }
  function grow_map(old, add) {
    /* Every layer's weights (h, n, t) with the new query row appended: (h, n + 1, t + 1). */
    const h = M.config.h, n = old.n + add.n, t = add.t, A = new Float32Array(h * n * t);
    for (let k = 0; k < h; k++) {
      for (let i = 0; i < old.n; i++) A.set(old.A.subarray((k * old.n + i) * old.t, (k * old.n + i + 1) * old.t), (k * n + i) * t);
      A.set(add.A.subarray(k * t, (k + 1) * t), (k * n + old.n) * t);
    }
    return { A, n, t };
  }
  function probability_settings() {
    return { temperature: Number($(".ml-temp").value), top_k: Number($(".ml-topk").value) || 0, top_p: Number($(".ml-topp").value) };
  }
  function show() {
    for (const s of [".ml-temp", ".ml-topp", ".ml-layer", ".ml-head"]) $(s).nextElementSibling.textContent = $(s).value;
    if (!run) return;
    const n = run.ids.length, toks = $(".ml-tokens");
    toks.replaceChildren(...run.ids.map((id, i) => {
      const b = document.createElement("button");
      b.className = "ml-tok"; b.textContent = piece(M, id); b.setAttribute("aria-pressed", String(i === state.query));
      b.title = `${i}: id ${id}`;
      b.addEventListener("click", () => { state.query = i; show(); });
      return b;
    }));
    const P = next_token_probabilities(run.logits, probability_settings()).slice(0, 10);
    text(".ml-next-cap", fill(L.next, { n }));
    $(".ml-next tbody").replaceChildren(...P.map((o) => {
      const tr = document.createElement("tr");
      tr.innerHTML = `<td></td><td></td><td><span class="ml-bar"></span></td>`;
      tr.children[0].textContent = piece(M, o.id); tr.children[1].textContent = o.p.toFixed(3);
      tr.querySelector(".ml-bar").style.width = `${(100 * o.p).toFixed(1)}px`;
      return tr;
    }));
    const mean = run.steps.length ? run.steps.reduce((a, b) => a + b, 0) / run.steps.length : null;
    text(".ml-time", fill(mean === null ? L.time : L.time_steps, { prefill: run.prefill.toFixed(0), n: n - run.steps.length,
      step: mean === null ? "" : mean.toFixed(0), k: run.steps.length }));
    const { layers, g, h, d_k } = M.config;
    text(".ml-cache", fill(L.cache, { t: n, kib: (cache_bytes(layers, g, d_k, n) / 1024).toFixed(0),
      kib9: (cache_bytes(layers, h, d_k, n) / 1024).toFixed(0), g, h }));
    // one head: its weights, the selected query's row outlined
    const l = Number($(".ml-layer").value), k = Number($(".ml-head").value), map = run.maps[l], t = map.t;
    const heat = $(".ml-heat"), ctx = heat.getContext("2d");
    heat.width = t; heat.height = n;
    heat.style.width = "min(360px, 100%)";
    const img = ctx.createImageData(t, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < t; j++) {
      const a = map.A[(k * n + i) * t + j], c = j > i ? [255, 255, 255] : lab_colour(a), o = 4 * (i * t + j);
      img.data[o] = c[0]; img.data[o + 1] = c[1]; img.data[o + 2] = c[2]; img.data[o + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    const row = map.A.subarray((k * n + state.query) * t, (k * n + state.query + 1) * t);
    let top = 0; for (let j = 1; j < row.length; j++) if (row[j] > row[top]) top = j;
    text(".ml-heat-cap", fill(L.heat, { l, k, n, i: state.query, j: top, tok: piece(M, run.ids[top]), w: row[top].toFixed(2) }));
    toks.querySelectorAll(".ml-tok").forEach((b, j) => {       // the head view: whom the query attends to
      const c = lab_colour(1 - (row[j] || 0));
      b.style.background = j <= state.query ? `rgb(${c.join(",")})` : "#fff";
      b.style.color = (row[j] || 0) > 0.5 ? "#fff" : "#111";
    });
    const m = head_measures(map.A.subarray(k * n * t, (k + 1) * n * t), n, t);
    text(".ml-measures", fill(L.measures, { sink: m.sink.toFixed(2), even: (1 / Math.max(1, n - 1) * harmonic(n)).toFixed(2),
      dist: m.distance.toFixed(1), H: m.entropy.toFixed(2), lnn: Math.log(n).toFixed(2) }));
    // every layer and head: share on token 0
    const over = $(".ml-over"), octx = over.getContext("2d"), oimg = octx.createImageData(h, layers);
    for (let ll = 0; ll < layers; ll++) for (let kk = 0; kk < h; kk++) {
      const mm = run.maps[ll], s = head_measures(mm.A.subarray(kk * mm.n * mm.t, (kk + 1) * mm.n * mm.t), mm.n, mm.t).sink;
      const c = lab_colour(s), o = 4 * (ll * h + kk);
      oimg.data[o] = c[0]; oimg.data[o + 1] = c[1]; oimg.data[o + 2] = c[2]; oimg.data[o + 3] = 255;
    }
    over.width = h; over.height = layers; octx.putImageData(oimg, 0, 0);
    text(".ml-over-cap", L.overview_cap);
  }
  function harmonic(n) { let s = 0; for (let i = 2; i <= n; i++) s += 1 / i; return s; }
  function loss() {
    /* Mean −ln P(next token) over the text, with the experiment's settings. */
    if (!run) return;
    const ids = run.ids, r = forward(M, ids, null, { maps: false, ...settings() }), V = r.vocab;
    let total = 0;
    for (let i = 0; i + 1 < ids.length; i++) {
      const z = r.logits.subarray(i * V, (i + 1) * V);
      let top = -Infinity; for (const v of z) if (v > top) top = v;
      let s = 0; for (const v of z) s += Math.exp(v - top);
      total += Math.log(s) + top - z[ids[i + 1]];
    }
    const value = ids.length > 1 ? total / (ids.length - 1) : NaN, st = settings();
    text(".ml-loss-out", fill(L.loss_out, { loss: value.toFixed(2), n: ids.length,
      how: (st.rotate ? "" : L.no_rope + " ") + (st.window ? fill(st.sinks ? L.with_window_sink : L.with_window, { w: st.window }) : L.full) }));
    el.__lab.last_loss = value;
  }
  $(".ml-run").addEventListener("click", () => M && go());
  $(".ml-step").addEventListener("click", step);
  $(".ml-loss").addEventListener("click", loss);
  for (const s of [".ml-temp", ".ml-topk", ".ml-topp", ".ml-layer", ".ml-head"]) $(s).addEventListener("input", show);
  for (const s of [".ml-rope", ".ml-window", ".ml-sink"]) $(s).addEventListener("change", () => M && go());
  show();
}
export default { render };
