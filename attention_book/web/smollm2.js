// Chapter 15's model, SmolLM2-135M-Instruct, computed in the page: the same steps as the
// chapter's numpy code, function by function and with the same names (tokenize, bpe,
// rms_norm, swiglu, rope, self_attention, forward, start_cache), read from the same
// GGUF file. The matrix products run in a small WebAssembly kernel (kernel.wat); the
// rest is plain JavaScript. tests/browser/test_model_in_page.py checks it against numpy.
//
// Shapes as in the chapter: X (n, d_model) row-major Float32Array; Q (h, n, d_k);
// K, V (g, t, d_k); A (h, n, t), each row summing to 1.

const GGML = { F32: 0, F16: 1, Q4_1: 3, Q8_0: 8 };

// ---------------------------------------------------------------- reading the file
function f16_table() {
  // float16 bit pattern -> float32 (as numpy reads it), subnormals, infinities and NaN included
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 31, frac = h & 1023;
    table[h] = exp === 0 ? sign * frac * 2 ** -24
      : exp === 31 ? (frac ? NaN : sign * Infinity)
      : sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return table;
}

export class ModelFileError extends Error {}

export function read_gguf(buffer) {
  /* The GGUF file's metadata (a Map) and tensors ({type, shape, offset, bytes}), checked. */
  const view = new DataView(buffer), bytes = new Uint8Array(buffer);
  const dec = new TextDecoder("utf-8", { fatal: true });
  let pos = 0;
  const need = (k) => {
    if (pos + k > buffer.byteLength)
      throw new ModelFileError(`the file ends at byte ${buffer.byteLength}, in the middle of its header: it is truncated`);
  };
  const u32 = () => { need(4); const v = view.getUint32(pos, true); pos += 4; return v; };
  const u64 = () => { need(8); const v = Number(view.getBigUint64(pos, true)); pos += 8; return v; };
  const str = () => { const k = u64(); need(k); const s = dec.decode(bytes.subarray(pos, pos + k)); pos += k; return s; };
  const value = (type) => {
    switch (type) {
      case 0: need(1); return view.getUint8(pos++);
      case 1: need(1); return view.getInt8(pos++);
      case 2: need(2); pos += 2; return view.getUint16(pos - 2, true);
      case 3: need(2); pos += 2; return view.getInt16(pos - 2, true);
      case 4: return u32();
      case 5: need(4); pos += 4; return view.getInt32(pos - 4, true);
      case 6: need(4); pos += 4; return view.getFloat32(pos - 4, true);
      case 7: need(1); return view.getUint8(pos++) !== 0;
      case 8: return str();
      case 9: { const t = u32(), k = u64(), out = new Array(k); for (let i = 0; i < k; i++) out[i] = value(t); return out; }
      case 10: return u64();
      case 11: need(8); pos += 8; return Number(view.getBigInt64(pos - 8, true));
      case 12: need(8); pos += 8; return view.getFloat64(pos - 8, true);
      default: throw new ModelFileError(`unknown metadata type ${type} at byte ${pos}: not a GGUF file this code reads`);
    }
  };
  if (buffer.byteLength < 24 || u32() !== 0x46554747)              // "GGUF"
    throw new ModelFileError("this is not a GGUF file (it does not start with the bytes 'GGUF')");
  const version = u32();
  if (version !== 3) throw new ModelFileError(`GGUF version ${version}: this code reads version 3`);
  const n_tensors = u64(), n_kv = u64(), meta = new Map();
  for (let i = 0; i < n_kv; i++) { const key = str(); meta.set(key, value(u32())); }
  const tensors = new Map();
  for (let i = 0; i < n_tensors; i++) {
    const name = str(), dims = u32(), shape = [];
    for (let k = 0; k < dims; k++) shape.push(u64());
    tensors.set(name, { type: u32(), shape, offset: u64() });
  }
  const align = meta.get("general.alignment") || 32;
  const start = Math.ceil(pos / align) * align;
  for (const [name, t] of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    t.bytes = t.type === GGML.F32 ? 4 * count : t.type === GGML.Q4_1 ? count / 32 * 20
      : t.type === GGML.Q8_0 ? count / 32 * 34 : NaN;
    if (Number.isNaN(t.bytes)) throw new ModelFileError(`tensor ${name} has type ${t.type}: only F32, Q4_1 and Q8_0 are read`);
    t.offset += start;
    if (t.offset + t.bytes > buffer.byteLength)
      throw new ModelFileError(`tensor ${name} ends at byte ${t.offset + t.bytes} of a ${buffer.byteLength}-byte file: it is truncated`);
  }
  return { meta, tensors };
}

function kernel_module(wasm_bytes) {
  return new WebAssembly.Module(wasm_bytes);
}

export function load_model(buffer, wasm_bytes, { max_tokens = 128 } = {}) {
  /* The model from the GGUF file's bytes: configuration, weights repacked into the
     kernel's memory (see kernel.wat), the tokenizer's vocabulary and merges. */
  const { meta, tensors } = read_gguf(buffer);
  const field = (k) => {
    if (!meta.has(k)) throw new ModelFileError(`the file has no '${k}': not a llama-architecture GGUF model`);
    return meta.get(k);
  };
  if (field("general.architecture") !== "llama")
    throw new ModelFileError(`architecture '${meta.get("general.architecture")}': this code runs llama models`);
  const config = { layers: field("llama.block_count"), d_model: field("llama.embedding_length"),
    h: field("llama.attention.head_count"), g: field("llama.attention.head_count_kv"),
    d_ff: field("llama.feed_forward_length"), base: field("llama.rope.freq_base"),
    eps: field("llama.attention.layer_norm_rms_epsilon"), context: field("llama.context_length") };
  config.d_k = config.d_model / config.h;
  config.vocab = tensors.get("token_embd.weight").shape[1];
  if (tensors.has("output.weight"))
    throw new ModelFileError("this file has its own output matrix: this code assumes tied embeddings (as SmolLM2)");

  // repack: Q4_1 block 20 -> 24 bytes, Q8_0 34 -> 36 bytes (the float16 scales as float32)
  const quantised = [...tensors].filter(([, t]) => t.type !== GGML.F32);
  let size = 0;
  for (const [, t] of quantised) size += (t.bytes / (t.type === GGML.Q4_1 ? 20 : 34)) * (t.type === GGML.Q4_1 ? 24 : 36);
  const widest = Math.max(config.d_ff, config.d_model);
  const scratch_x = 4 * max_tokens * widest, scratch_y = 4 * Math.max(max_tokens * widest, 4 * config.vocab);
  const scratch_t = 16 * max_tokens;                                // the kernel's accumulators, one f32x4 a token
  const memory = new WebAssembly.Memory({ initial: Math.ceil((size + scratch_x + scratch_y + scratch_t + 64) / 65536) });
  const heap = new Uint8Array(memory.buffer);
  const half = f16_table(), src_bytes = new Uint8Array(buffer), heap32 = new Float32Array(memory.buffer);
  const heap_words = new Uint32Array(memory.buffer);
  let at = 0;
  const weight = new Map();
  for (const [name, t] of quantised) {
    const q4 = t.type === GGML.Q4_1, blocks = t.bytes / (q4 ? 20 : 34), out_size = q4 ? 24 : 36;
    if (t.offset % 4) throw new ModelFileError(`tensor ${name} starts at byte ${t.offset}, not a multiple of 4`);
    const base = at, halves = new Uint16Array(buffer, t.offset, t.bytes >> 1);
    if (q4) {                                   // 20 bytes: d, m (float16), 16 bytes of nibbles
      const words = new Uint32Array(buffer, t.offset, t.bytes >> 2);
      for (let b = 0, o = base >> 2; b < blocks; b++, o += 6) {
        heap32[o] = half[halves[10 * b]];
        heap32[o + 1] = half[halves[10 * b + 1]];
        const w = 5 * b + 1;
        heap_words[o + 2] = words[w]; heap_words[o + 3] = words[w + 1];
        heap_words[o + 4] = words[w + 2]; heap_words[o + 5] = words[w + 3];
      }
    } else {                                    // 34 bytes: d (float16), 32 signed bytes
      for (let b = 0; b < blocks; b++) {
        const s = t.offset + 34 * b, o = base + 36 * b;
        heap32[o >> 2] = half[halves[17 * b]];
        heap.set(src_bytes.subarray(s + 2, s + 34), o + 4);
      }
    }
    at += blocks * out_size;
    weight.set(name, { kind: q4 ? 4 : 8, ptr: base, cols: t.shape[0], rows: t.shape[1] });
  }
  const vector = (name) => new Float32Array(buffer.slice(tensors.get(name).offset, tensors.get(name).offset + tensors.get(name).bytes));
  const layers = [];
  for (let l = 0; l < config.layers; l++) {
    const w = (k) => weight.get(`blk.${l}.${k}.weight`);
    layers.push({ attn_norm: vector(`blk.${l}.attn_norm.weight`), ffn_norm: vector(`blk.${l}.ffn_norm.weight`),
      W_Q: w("attn_q"), W_K: w("attn_k"), W_V: w("attn_v"), W_O: w("attn_output"),
      W_gate: w("ffn_gate"), W_up: w("ffn_up"), W_down: w("ffn_down") });
  }
  const kinds = field("tokenizer.ggml.token_type"), vocab = field("tokenizer.ggml.tokens");
  const tokens = { vocab, merges: field("tokenizer.ggml.merges"),
    special: vocab.filter((t, i) => kinds[i] === 3) };               // 3: a control token such as <|im_start|>
  const instance = new WebAssembly.Instance(kernel_module(wasm_bytes), { env: { memory } });
  const model = { config, tokens, layers, E: weight.get("token_embd.weight"), norm: vector("output_norm.weight"),
    memory, kernel: instance.exports.matmul, x_ptr: at, y_ptr: at + scratch_x, t_ptr: at + scratch_x + scratch_y,
    max_tokens, weight_bytes: at };
  model.tokenizer = make_tokenizer(tokens);
  return model;
}

// ---------------------------------------------------------------- the tokenizer
const PRINTABLE = [];
for (let b = 33; b < 127; b++) PRINTABLE.push(b);
for (let b = 161; b < 173; b++) PRINTABLE.push(b);
for (let b = 174; b < 256; b++) PRINTABLE.push(b);
const BYTE_CHAR = new Array(256);                                  // byte -> one printable character
PRINTABLE.forEach((b) => { BYTE_CHAR[b] = String.fromCodePoint(b); });
{ let k = 0; for (let b = 0; b < 256; b++) if (BYTE_CHAR[b] === undefined) BYTE_CHAR[b] = String.fromCodePoint(256 + k++); }
const CHAR_BYTE = new Map(BYTE_CHAR.map((c, b) => [c, b]));
// GPT-2's pattern, as the chapter's (Python `regex`): \s is \p{White_Space} there, not JavaScript's \s
const PIECES = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;

export class TokenError extends Error {}

function make_tokenizer(tokens) {
  const TOKEN_ID = new Map(tokens.vocab.map((t, i) => [t, i]));
  const RANK = new Map(tokens.merges.map((m, r) => [m, r]));       // "a b" -> rank
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const SPECIAL = new RegExp("(" + tokens.special.map(escape).join("|") + ")", "u");
  const special = new Set(tokens.special);

  function bpe(piece) {
    /* Byte-pair encoding of one piece: merge the neighbours whose merge ranks first, until none is listed. */
    const parts = [...new TextEncoder().encode(piece)].map((b) => BYTE_CHAR[b]);  // one symbol per UTF-8 byte
    while (parts.length > 1) {
      let best = Infinity, k = -1;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = RANK.get(parts[i] + " " + parts[i + 1]);
        if (r !== undefined && r < best) { best = r; k = i; }
      }
      if (k < 0) break;
      parts.splice(k, 2, parts[k] + parts[k + 1]);
    }
    return parts.map((p) => {
      const id = TOKEN_ID.get(p);
      if (id === undefined) {
        const b = [...p].map((c) => CHAR_BYTE.get(c));
        throw new TokenError(`the byte ${b.map((x) => "0x" + x.toString(16).padStart(2, "0")).join(" ")} `
          + `(in ${JSON.stringify(piece)}) has no token of its own in this vocabulary: remove that character`);
      }
      return id;
    });
  }

  function tokenize(text) {
    /* Text -> token ids: control tokens kept whole; every ASCII digit alone; each piece by BPE. */
    const ids = [];
    for (const chunk of text.split(SPECIAL)) {
      if (special.has(chunk)) { ids.push(TOKEN_ID.get(chunk)); continue; }
      for (const part of chunk.split(/([0-9])/)) {
        for (const m of part.matchAll(PIECES)) ids.push(...bpe(m[0]));
      }
    }
    return ids;
  }

  function token_bytes(i) {
    /* The bytes a token stands for (a control token: its name). */
    const text = tokens.vocab[i];
    return special.has(text) ? new TextEncoder().encode(text) : Uint8Array.from([...text], (c) => CHAR_BYTE.get(c));
  }

  function detokenize(ids, { stream = false } = {}) {
    /* Token ids -> text; bad bytes become U+FFFD, as errors="replace". With stream, an
       unfinished last character (a token may end inside one: a Chinese character is three
       bytes) is held back, as while text is being generated, instead of showing as U+FFFD. */
    const parts = ids.map(token_bytes), all = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let k = 0;
    for (const p of parts) { all.set(p, k); k += p.length; }
    return new TextDecoder("utf-8").decode(all, { stream });
  }
  return { tokenize, detokenize, token_bytes, bpe };
}

// ---------------------------------------------------------------- the forward pass
const TILE = 32;

function matmul(model, X, n, W) {
  /* X (n, W.cols) @ W -> (n, W.rows), in the kernel. */
  const heap = new Float32Array(model.memory.buffer), nb = W.cols / 32, base = model.x_ptr / 4;
  const out = new Float32Array(n * W.rows);
  // TILE tokens at a time: their rows of X stay in the cache while every row of W passes
  const chunk = Math.max(1, Math.min(TILE, Math.floor((model.t_ptr - model.y_ptr) / 4 / W.rows)));
  for (let t = 0; t < n; t += chunk) {
    const k = Math.min(chunk, n - t);
    for (let i = 0; i < k; i++)                    // block by block, as the kernel reads X: (nb, k, 32)
      for (let b = 0, src = (t + i) * W.cols, dst = base + 32 * i; b < nb; b++, src += 32, dst += 32 * k)
        for (let c = 0; c < 32; c++) heap[dst + c] = X[src + c];
    model.kernel(W.kind, W.ptr, W.rows, nb, model.x_ptr, k, model.y_ptr, model.t_ptr);
    out.set(heap.subarray(model.y_ptr / 4, model.y_ptr / 4 + k * W.rows), t * W.rows);
  }
  return out;
}

export function rms_norm(model, X, n, gamma) {
  /* Each row of X divided by its root mean square, then scaled by gamma. */
  const d = gamma.length, out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) s += X[i * d + k] * X[i * d + k];
    const r = 1 / Math.sqrt(s / d + model.config.eps);
    for (let k = 0; k < d; k++) out[i * d + k] = X[i * d + k] * r * gamma[k];
  }
  return out;
}

export function swiglu(model, X, n, p) {
  /* The feed-forward network: SiLU(X W_gate) gates X W_up, then W_down. */
  const Z = matmul(model, X, n, p.W_gate), U = matmul(model, X, n, p.W_up);
  for (let k = 0; k < Z.length; k++) Z[k] = Z[k] / (1 + Math.exp(-Z[k])) * U[k];
  return matmul(model, Z, n, p.W_down);
}

export function rope(model, X, heads, n, positions) {
  /* Rotate each pair (x_2i, x_2i+1) of every row by the angle position · ω_i, in place;
     X (heads, n, d_k). */
  const { d_k, base } = model.config;
  for (let i = 0; i < d_k / 2; i++) {
    const omega = base ** (-(2 * i) / d_k);                        // ω_0 = 1 … ω_31: fast to slow
    for (let t = 0; t < n; t++) {
      const angle = positions[t] * omega, c = Math.fround(Math.cos(angle)), s = Math.fround(Math.sin(angle));
      for (let hd = 0; hd < heads; hd++) {
        const o = (hd * n + t) * d_k + 2 * i, x = X[o], y = X[o + 1];
        X[o] = x * c - y * s;
        X[o + 1] = x * s + y * c;
      }
    }
  }
  return X;
}

function split_heads(Y, n, heads, d_k) {
  /* (n, heads · d_k) -> (heads, n, d_k) */
  const out = new Float32Array(Y.length);
  for (let t = 0; t < n; t++)
    for (let hd = 0; hd < heads; hd++)
      out.set(Y.subarray(t * heads * d_k + hd * d_k, t * heads * d_k + (hd + 1) * d_k), (hd * n + t) * d_k);
  return out;
}

export function self_attention(model, X, n, p, positions, cache = null, { rotate = true, window = null, sinks = 0 } = {}) {
  /* Causal grouped-query self-attention of one layer, X (n, d_model) at `positions`.
     h query heads share g key/value heads: query head k reads key/value head ⌊k / (h/g)⌋.
     With a cache the new keys and values are appended to it. A window lets query i see key j
     only if i − j < window (or j < sinks), as the chapter's StreamingLLM exercise. */
  const { h, g, d_k } = model.config;
  const Q = split_heads(matmul(model, X, n, p.W_Q), n, h, d_k);
  let K = split_heads(matmul(model, X, n, p.W_K), n, g, d_k);
  let V = split_heads(matmul(model, X, n, p.W_V), n, g, d_k);
  if (rotate) { rope(model, Q, h, n, positions); rope(model, K, g, n, positions); }
  let t = n;
  if (cache) {                                                     // (g, t, d_k): old rows, then the new
    const old = cache.t;
    t = old + n;
    const grow = (C, N) => {
      const out = new Float32Array(g * t * d_k);
      for (let j = 0; j < g; j++) {
        out.set(C.subarray(j * old * d_k, (j + 1) * old * d_k), j * t * d_k);
        out.set(N.subarray(j * n * d_k, (j + 1) * n * d_k), (j * t + old) * d_k);
      }
      return out;
    };
    K = cache.K = grow(cache.K, K);
    V = cache.V = grow(cache.V, V);
    cache.t = t;
  }
  const A = new Float32Array(h * n * t), O = new Float32Array(n * h * d_k), scale = 1 / Math.sqrt(d_k);
  const row = new Float64Array(t);
  for (let k = 0; k < h; k++) {
    const kv = Math.floor(k / (h / g));
    for (let i = 0; i < n; i++) {
      const q = (k * n + i) * d_k;
      let top = -Infinity;
      for (let j = 0; j < t; j++) {                                // causal: key j <= query's position
        const visible = j <= positions[i] && (window === null || positions[i] - j < window || j < sinks);
        if (!visible) { row[j] = -Infinity; continue; }
        let s = 0;
        const kk = (kv * t + j) * d_k;
        for (let c = 0; c < d_k; c++) s += Q[q + c] * K[kk + c];
        row[j] = s * scale;
        if (row[j] > top) top = row[j];
      }
      let sum = 0;
      for (let j = 0; j < t; j++) { row[j] = Math.exp(row[j] - top); sum += row[j]; }
      const a = (k * n + i) * t, o = i * h * d_k + k * d_k;
      for (let j = 0; j < t; j++) {
        const w = row[j] / sum;
        A[a + j] = w;
        if (w === 0) continue;
        const vv = (kv * t + j) * d_k;
        for (let c = 0; c < d_k; c++) O[o + c] += w * V[vv + c];
      }
    }
  }
  return { O: matmul(model, O, n, p.W_O), A, t };
}

export function start_cache(model) {
  /* Chapter 14's KV cache, one per layer: keys and values (g, t, d_k) that grow by a row per token. */
  return model.layers.map(() => ({ K: new Float32Array(0), V: new Float32Array(0), t: 0 }));
}

export function cache_bytes(layers, heads, d_k, t, bytes_per_number = 4) {
  return 2 * layers * heads * d_k * t * bytes_per_number;
}

function embed(model, ids) {
  /* Rows of the embedding E (Q8_0) for the ids, as float32 (n, d_model). */
  const { d_model } = model.config, E = model.E, view = new DataView(model.memory.buffer);
  const heap = new Int8Array(model.memory.buffer), X = new Float32Array(ids.length * d_model);
  ids.forEach((id, t) => {
    for (let b = 0; b < d_model / 32; b++) {
      const o = E.ptr + (id * (d_model / 32) + b) * 36, d = view.getFloat32(o, true);
      for (let k = 0; k < 32; k++) X[t * d_model + 32 * b + k] = d * heap[o + 4 + k];
    }
  });
  return X;
}

export function forward(model, ids, cache = null, { rotate = true, last_only = false, window = null, sinks = 0, maps = true } = {}) {
  /* Logits (n or 1, vocabulary) for the token ids, and every layer's weights A (h, n, t).
     With a cache (start_cache), the ids continue the tokens already in it. */
  const { d_model, context, vocab } = model.config;
  const start = cache ? cache[0].t : 0, n = ids.length;
  if (!(n > 0 && start + n <= Math.min(context, model.max_tokens)))
    throw new RangeError(`${n} tokens after ${start}: give 1 to ${Math.min(context, model.max_tokens) - start}`);
  for (const id of ids)
    if (!(Number.isInteger(id) && id >= 0 && id < vocab)) throw new RangeError(`token id ${id} is not in 0 … ${vocab - 1}`);
  const positions = Array.from({ length: n }, (_, k) => start + k);
  let X = embed(model, ids);
  const all = [];
  model.layers.forEach((p, l) => {
    const { O, A, t } = self_attention(model, rms_norm(model, X, n, p.attn_norm), n, p, positions,
      cache ? cache[l] : null, { rotate, window, sinks });
    for (let k = 0; k < X.length; k++) X[k] += O[k];                 // residual
    const F = swiglu(model, rms_norm(model, X, n, p.ffn_norm), n, p);
    for (let k = 0; k < X.length; k++) X[k] += F[k];                 // residual
    if (maps) all.push({ A, n, t });
  });
  const rows = last_only ? 1 : n;
  const Z = rms_norm(model, X.subarray((n - rows) * d_model), rows, model.norm);
  return { logits: matmul(model, Z, rows, model.E), maps: all, vocab };   // tied: the embedding again
}

// ---------------------------------------------------------------- what the page shows
export function next_token_probabilities(logits, { temperature = 1, top_k = 0, top_p = 1 } = {}) {
  /* P(next token) from one row of logits, after temperature, top-k and top-p (nucleus):
     [{id, p}] sorted, only the tokens that can be drawn. Temperature 0: the most likely token. */
  const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a]);
  if (temperature <= 0) return [{ id: order[0], p: 1 }];
  const top = logits[order[0]], keep = top_k > 0 ? order.slice(0, top_k) : order;
  let w = keep.map((id) => Math.exp((logits[id] - top) / temperature)), sum = w.reduce((a, b) => a + b, 0);
  let out = keep.map((id, k) => ({ id, p: w[k] / sum }));
  if (top_p < 1) {
    let c = 0, k = 0;
    while (k < out.length && c < top_p) c += out[k++].p;         // the smallest set whose mass reaches top_p
    out = out.slice(0, Math.max(1, k));
    sum = out.reduce((a, o) => a + o.p, 0);
    out.forEach((o) => { o.p /= sum; });
  }
  return out;
}

export function sample(probabilities, u = Math.random()) {
  /* One id drawn from [{id, p}] with the uniform number u in [0, 1). */
  let c = 0;
  for (const o of probabilities) { c += o.p; if (u < c) return o.id; }
  return probabilities[probabilities.length - 1].id;
}

export function head_measures(A, n, t) {
  /* For one head's weights A (n, t), as chapter 15 measures them: the mean share of weight
     on token 0 (queries 1 …), the mean distance i − j it looks back over keys 1 … (queries
     2 …, the sink left out), the last row's entropy (nats). */
  let sink = 0, dist = 0;
  for (let i = 1; i < n; i++) sink += A[i * t];
  for (let i = 2; i < n; i++) {
    let mass = 0, d = 0;
    for (let j = 1; j <= i; j++) { mass += A[i * t + j]; d += A[i * t + j] * (i - j); }
    dist += d / mass;
  }
  let H = 0;
  for (let j = 0; j < t; j++) { const a = A[(n - 1) * t + j]; if (a > 0) H -= a * Math.log(a); }
  return { sink: n > 1 ? sink / (n - 1) : NaN, distance: n > 2 ? dist / (n - 2) : NaN, entropy: H };
}
