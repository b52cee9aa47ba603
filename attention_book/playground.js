const MAGMA = [[0,0,4],[28,16,68],[79,18,123],[129,37,129],[181,54,122],[229,80,100],[251,135,97],[254,194,135],[252,253,191]];
function magma(t) {
  const x = Math.min(1, Math.max(0, t)) * (MAGMA.length - 1), i = Math.min(MAGMA.length - 2, Math.floor(x)), f = x - i;
  return MAGMA[i].map((c, j) => Math.round(c + f * (MAGMA[i + 1][j] - c)));
}
function pool(model, name) {
  const v = model.get(name), b = v instanceof DataView ? new Int8Array(v.buffer, v.byteOffset, v.byteLength)
    : new Int8Array(v.buffer || v), s = model.get("scale"), out = new Float64Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b[i] / s;
  return out;
}
export function attention(Qp, Kp, rows, cols, p, cache) {
  // cache (optional): the raw scores of the last call; when only d_k moved, the
  // scores are updated by the columns that came or went (n² per column, not n² d_k)
  const { n, d_k, temperature, causal, seed } = p, A = new Float64Array(n * n);
  const rq = (37 * seed) % rows, rk = (53 * seed) % rows, c0 = (101 * seed) % cols, f = 1 / Math.sqrt(d_k) / temperature;
  const q = (i, c) => Qp[((i + rq) % rows) * cols + (c + c0) % cols], k = (j, c) => Kp[((j + rk) % rows) * cols + (c + c0) % cols];
  const add = (S, from, to, sign) => {   // S += sign · Q[:, from:to] K[:, from:to]ᵀ
    const w = to - from, Q = new Float64Array(n * w), K = new Float64Array(n * w);
    for (let i = 0; i < n; i++) for (let c = 0; c < w; c++) { Q[i * w + c] = q(i, from + c); K[i * w + c] = k(i, from + c); }
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0, a = i * w, b = j * w; c < w; c++) s += Q[a + c] * K[b + c];
      S[i * n + j] += sign * s;
    }
  };
  let S;
  if (cache && cache.S && cache.n === n && cache.seed === seed && Math.abs(cache.d_k - d_k) < d_k / 2) {
    S = cache.S.slice();
    if (d_k > cache.d_k) add(S, cache.d_k, d_k, 1); else if (d_k < cache.d_k) add(S, d_k, cache.d_k, -1);
  } else {
    S = new Float64Array(n * n);
    add(S, 0, d_k, 1);
  }
  if (cache) Object.assign(cache, { S, n, seed, d_k });
  for (let i = 0; i < n; i++) {
    const last = causal ? i + 1 : n;
    let m = -Infinity, z = 0;
    for (let j = 0; j < last; j++) m = Math.max(m, S[i * n + j] * f);
    for (let j = 0; j < last; j++) { const e = Math.exp(S[i * n + j] * f - m); A[i * n + j] = e; z += e; }
    for (let j = 0; j < last; j++) A[i * n + j] /= z;
  }
  return { A, S };
}
const MAGMA_LUT = Array.from({ length: 256 }, (_, i) => magma(i / 255));
function readouts(A, S, n, d_k, causal) {
  let big = 0, at = [0, 0], H = 0, s1 = 0, s2 = 0, cnt = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    const a = A[i * n + j];
    if (a > big) { big = a; at = [i, j]; }
    if (a > 0) H -= a * Math.log(a);
    if (!(causal && j > i)) { s1 += S[i * n + j]; s2 += S[i * n + j] ** 2; cnt++; }
  }
  const sd = Math.sqrt(Math.max(0, s2 / cnt - (s1 / cnt) ** 2));
  return { largest: big, at, entropy: H / n, sd_raw: sd, sd_scaled: sd / Math.sqrt(d_k) };
}
function histogram(ctx, W, H, S, n, d_k, causal, labels, sd) {
  ctx.clearRect(0, 0, W, H);
  const nice = [2, 4, 5, 10, 20, 25, 50, 100], reach = 3.5 * Math.max(1, sd);
  const tick = nice.find(t => 2 * t >= reach) || 100, hi = 2 * tick, lo = -hi, bins = 60;
  const col = getComputedStyle(ctx.canvas).color || "#333";
  const raw = new Array(bins).fill(0), sc = new Array(bins).fill(0);
  const bin = x => Math.min(bins - 1, Math.max(0, Math.floor((x - lo) / (hi - lo) * bins)));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    if (causal && j > i) continue;
    raw[bin(S[i * n + j])]++; sc[bin(S[i * n + j] / Math.sqrt(d_k))]++;
  }
  const top = 30, bottom = H - 30, left = 18, right = W - 18, bw = (right - left) / bins, peak = Math.max(...raw, ...sc, 1);
  [[raw, "rgba(181,54,122,0.55)"], [sc, "rgba(33,145,140,0.55)"]].forEach(([h, c]) => {
    ctx.fillStyle = c;
    h.forEach((v, b) => { const y = (bottom - top) * v / peak; ctx.fillRect(left + b * bw, bottom - y, bw - 1, y); });
  });
  // the page's fonts: in the book they include its own Chinese font (no CJK font needed on the machine)
  ctx.fillStyle = col; ctx.strokeStyle = col; ctx.textAlign = "center";
  ctx.font = "12px " + (getComputedStyle(ctx.canvas).fontFamily || "sans-serif");
  ctx.beginPath(); ctx.moveTo(left, bottom); ctx.lineTo(right, bottom); ctx.stroke();
  for (let x = lo; x <= hi; x += tick) ctx.fillText(String(x), left + (x - lo) / (hi - lo) * (right - left), bottom + 14);
  ctx.fillText(labels.score_axis, (left + right) / 2, H - 2);
  ctx.textAlign = "left";
  ctx.fillStyle = "rgb(181,54,122)"; ctx.fillText("■ " + labels.raw, left, 12);
  ctx.fillStyle = "rgb(33,145,140)"; ctx.fillText("■ " + labels.scaled, left, 26);
}
function render({ model, el }) {
  const labels = model.get("labels"), rows = model.get("rows"), cols = model.get("cols");
  const Qp = pool(model, "q"), Kp = pool(model, "k"), cache = {};
  el.classList.add("attention-playground");
  el.innerHTML = `<style>
.attention-playground { font-size: 14px; line-height: 1.4; max-width: 680px; }
.attention-playground .pg-controls { display: flex; flex-wrap: wrap; gap: 4px 24px; }
.attention-playground label { display: flex; align-items: center; gap: 8px; flex: 1 1 260px; min-width: min(100%, 260px); }
.attention-playground label span { min-width: 6.5em; }
.attention-playground input[type=range] { flex: 1 1 160px; min-width: 160px; touch-action: none; }
.attention-playground output { min-width: 3em; text-align: right; font-variant-numeric: tabular-nums; }
.attention-playground .pg-figs { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin-top: 8px; }
.attention-playground figure { margin: 0; max-width: 256px; }
.attention-playground canvas { max-width: 100%; }
.attention-playground .pg-read { font-variant-numeric: tabular-nums; margin-top: 4px; }
</style><div class="pg-controls"></div><div class="pg-figs"><figure>
<canvas class="pg-heat" width="256" height="256" style="width:256px;height:256px;image-rendering:pixelated"></canvas>
<figcaption class="pg-heat-cap"></figcaption></figure>
<canvas class="pg-hist" style="width:320px;height:200px"></canvas></div><div class="pg-read" aria-live="polite"></div>`;
  const box = el.querySelector(".pg-controls"), inputs = {};
  for (const [name, lo, hi, step] of [["d_k", 1, 512, 1], ["n", 2, rows, 1], ["temperature", 0.05, 3, 0.05], ["seed", 0, 9, 1]]) {
    const lab = document.createElement("label");
    lab.innerHTML = `<span></span><input type="range" min="${lo}" max="${hi}" step="${step}"><output></output>`;
    lab.querySelector("span").textContent = labels[name] || name;
    const inp = lab.querySelector("input");
    inp.value = model.get(name); inp.setAttribute("aria-label", labels[name] || name); inp.dataset.name = name;
    inp.addEventListener("input", () => { model.set(name, Number(inp.value)); model.save_changes(); });
    box.appendChild(lab); inputs[name] = inp;
  }
  const cl = document.createElement("label");
  cl.innerHTML = `<span></span><input type="checkbox" data-name="causal">`;
  cl.querySelector("span").textContent = labels.causal;
  const cb = cl.querySelector("input");
  cb.addEventListener("change", () => { model.set("causal", cb.checked); model.save_changes(); });
  box.appendChild(cl);
  const heat = el.querySelector(".pg-heat"), hctx = heat.getContext("2d"), hist = el.querySelector(".pg-hist");
  const dpr = window.devicePixelRatio || 1;
  hist.width = 320 * dpr; hist.height = 200 * dpr;
  const gctx = hist.getContext("2d"); gctx.scale(dpr, dpr);
  function draw() {
    const t0 = performance.now();
    const p = { n: model.get("n"), d_k: model.get("d_k"), temperature: model.get("temperature"),
      causal: model.get("causal"), seed: model.get("seed") };
    for (const [name, inp] of Object.entries(inputs)) { inp.value = p[name]; inp.nextElementSibling.textContent = p[name]; }
    cb.checked = p.causal;
    const { A, S } = attention(Qp, Kp, rows, cols, p, cache), n = p.n, img = hctx.createImageData(n, n);
    let top = 0; for (let i = 0; i < A.length; i++) top = Math.max(top, A[i]);
    for (let i = 0; i < A.length; i++) {
      const c = MAGMA_LUT[Math.round(255 * A[i] / top)];
      img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
    }
    heat.width = n; heat.height = n; hctx.putImageData(img, 0, 0);
    const r = readouts(A, S, n, p.d_k, p.causal);
    histogram(gctx, 320, 200, S, n, p.d_k, p.causal, labels, r.sd_raw);
    el.querySelector(".pg-heat-cap").textContent = labels.heat.replaceAll("<n>", n).replace("<top>", top.toFixed(2));
    el.querySelector(".pg-read").textContent = labels.readout
      .replace("<largest>", r.largest.toFixed(2)).replace("<i>", r.at[0]).replace("<j>", r.at[1])
      .replace("<entropy>", r.entropy.toFixed(2)).replace("<ln_n>", Math.log(n).toFixed(2))
      .replace("<sd_raw>", r.sd_raw.toFixed(1)).replace("<sd_scaled>", r.sd_scaled.toFixed(2));
    el.__playground = { A, S, params: p, readouts: r, ms: performance.now() - t0 };
  }
  for (const name of ["d_k", "n", "temperature", "causal", "seed"]) model.on(`change:${name}`, draw);
  draw();
  if (document.fonts) document.fonts.ready.then(draw);   // again once the web fonts have loaded
}
export default { render };
