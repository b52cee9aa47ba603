"""Compile chapter 15's WebAssembly kernel: attention_book/web/kernel.wat -> kernel.wasm,
with wasmtime's wat2wasm (PyPI `wasmtime`, pinned in requirements-test.txt).
tests/test_model_kernel.py checks that the committed .wasm is what this gives.

    python tools/build_kernel.py
"""
from pathlib import Path

import wasmtime

WEB = Path(__file__).resolve().parents[1] / "attention_book" / "web"

if __name__ == "__main__":
    wasm = bytes(wasmtime.wat2wasm((WEB / "kernel.wat").read_text(encoding="utf-8")))
    (WEB / "kernel.wasm").write_bytes(wasm)
    print(f"{WEB / 'kernel.wasm'}: {len(wasm)} bytes")
