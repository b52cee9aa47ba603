"""Copy chapter 15's model into the built book, for the page that runs it (model_lab):
_build/html/_static/model/SmolLM2-135M-Instruct.Q4_1.gguf.part0 … part3, four files
of under 25 MB each (static hosts take files of that size; the page fetches them in
order, joins them and checks the whole file's SHA-256). One copy for both editions:
the Chinese pages (under zh/) read the English edition's.

    python tools/book_model.py [BUILD_HTML_DIR]
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import fetch_model  # noqa: E402
from attention_book.model_lab import MODEL_NAME, MODEL_PARTS, MODEL_SIZE  # noqa: E402


def main(html=ROOT / "_build" / "html"):
    source = fetch_model.model_path()
    if not source.is_file() or fetch_model.sha256(source) != fetch_model.SHA256:
        sys.exit(f"{source} is missing or corrupt: run `make model` (python tools/fetch_model.py) first")
    data = source.read_bytes()
    assert len(data) == MODEL_SIZE and source.name == MODEL_NAME
    out = Path(html) / "_static" / "model"
    out.mkdir(parents=True, exist_ok=True)
    step = -(-len(data) // MODEL_PARTS)
    for k in range(MODEL_PARTS):
        part = out / f"{MODEL_NAME}.part{k}"
        chunk = data[k * step:(k + 1) * step]
        if not (part.is_file() and part.stat().st_size == len(chunk) and part.read_bytes() == chunk):
            part.write_bytes(chunk)
    print(f"the model for chapter 15's page: {out} ({MODEL_PARTS} parts of ≤ {step / 1e6:.1f} MB)")


if __name__ == "__main__":
    main(*sys.argv[1:])
