"""The WebAssembly kernel of chapter 15's page (attention_book/web/kernel.wat): the
committed kernel.wasm is what the .wat compiles to (wasmtime's wat2wasm, pinned in
requirements-test.txt), and it multiplies by the model's own 4- and 8-bit weights as
numpy does with the weights the `gguf` package dequantises (run here by wasmtime)."""
import struct
from pathlib import Path

import numpy as np
import pytest

wasmtime = pytest.importorskip("wasmtime")

WEB = Path(__file__).resolve().parents[1] / "attention_book" / "web"


def test_kernel_wasm_is_built_from_kernel_wat():
    built = bytes(wasmtime.wat2wasm((WEB / "kernel.wat").read_text()))
    assert built == (WEB / "kernel.wasm").read_bytes(), \
        "kernel.wasm is stale: rebuild it with `make kernel` (tools/build_kernel.py)"


def repack(raw, kind):
    """The GGUF blocks as smollm2.js repacks them: float16 scales -> float32."""
    size = 20 if kind == 4 else 34
    out = bytearray()
    for b in range(len(raw) // size):
        block = raw[b * size:(b + 1) * size]
        d = float(np.frombuffer(block[:2], np.float16)[0])
        if kind == 4:
            out += struct.pack("<ff", d, float(np.frombuffer(block[2:4], np.float16)[0])) + block[4:]
        else:
            out += struct.pack("<f", d) + block[2:]
    return bytes(out)


@pytest.fixture(scope="module")
def tensors():
    import gguf
    import fetch_model
    if not fetch_model.model_path().is_file():
        pytest.skip("the model is not fetched: run `make model`")
    reader = gguf.GGUFReader(fetch_model.model_path())
    return {t.name: t for t in reader.tensors}


@pytest.mark.parametrize("name, kind, rows", [("blk.3.ffn_gate.weight", 4, None), ("blk.0.attn_k.weight", 4, None),
                                              ("token_embd.weight", 8, 640)])
@pytest.mark.parametrize("n", [1, 3, 6])
def test_the_kernel_multiplies_as_numpy_does_with_the_dequantised_weights(tensors, name, kind, rows, n):
    import gguf
    t = tensors[name]
    W = gguf.quants.dequantize(t.data, t.tensor_type)                 # (rows, cols), float32
    raw = bytes(np.asarray(t.data).tobytes())
    cols = W.shape[1]
    rows = rows or W.shape[0]
    W, raw = W[:rows], raw[:rows * cols // 32 * (20 if kind == 4 else 34)]
    X = np.random.default_rng(n).standard_normal((n, cols)).astype(np.float32)
    packed = repack(raw, kind)
    store = wasmtime.Store()
    memory = wasmtime.Memory(store, wasmtime.MemoryType(wasmtime.Limits(-(-(len(packed) + 8 * n * cols + 8 * n * rows + 16 * n + 64) // 65536) + 1, None)))
    module = wasmtime.Module(store.engine, (WEB / "kernel.wasm").read_bytes())
    matmul = wasmtime.Instance(store, module, [memory]).exports(store)["matmul"]
    x_ptr = (len(packed) + 15) // 16 * 16
    y_ptr = x_ptr + 4 * n * cols
    t_ptr = (y_ptr + 4 * n * rows + 15) // 16 * 16
    memory.write(store, packed, 0)
    # the kernel reads X block by block, (cols / 32, n, 32), as smollm2.js's matmul lays it out
    memory.write(store, np.ascontiguousarray(X.reshape(n, cols // 32, 32).transpose(1, 0, 2)).tobytes(), x_ptr)
    matmul(store, kind, 0, rows, cols // 32, x_ptr, n, y_ptr, t_ptr)
    Y = np.frombuffer(memory.read(store, y_ptr, y_ptr + 4 * n * rows), np.float32).reshape(n, rows)
    expected = X.astype(np.float64) @ W.T.astype(np.float64)
    assert np.abs(Y - expected).max() < 1e-4 * max(1, np.abs(expected).max())


def test_the_widget_sends_the_kernels_copy_of_the_model_in_pieces(tmp_path, monkeypatch):
    """JupyterLab and Colab have no _static/ folder: the page asks the kernel, which sends
    its copy of the model in pieces that join to the file; without a copy, where it looked."""
    pytest.importorskip("anywidget")
    from attention_book import model_lab as ml
    fake = bytes(range(256)) * (ml.MODEL_SIZE // 256) + bytes(ml.MODEL_SIZE % 256)
    (tmp_path / ml.MODEL_NAME).write_bytes(fake)
    monkeypatch.setenv("ATTENTION_BOOK_MODELS", str(tmp_path))
    w = ml.model_lab("Hi")
    sent = []
    monkeypatch.setattr(w, "send", lambda content, buffers=None: sent.append((content, buffers)))
    w._send_model(w, {"want": "something else"}, [])
    assert sent == []
    w._send_model(w, {"want": "model"}, [])
    assert [c for c, _ in sent] == [{"part": k, "of": len(sent)} for k in range(len(sent))]
    assert len(sent) == -(-ml.MODEL_SIZE // ml.KERNEL_PIECE) > 1
    assert b"".join(bytes(b[0]) for _, b in sent) == fake
    sent.clear()
    (tmp_path / ml.MODEL_NAME).write_bytes(fake[:1000])          # a truncated copy is not sent
    w._send_model(w, {"want": "model"}, [])
    assert sent == [({"missing": str(tmp_path / ml.MODEL_NAME)}, None)]
