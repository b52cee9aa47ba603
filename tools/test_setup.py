"""Set up what `make test` needs and pip's requirements files cannot give.

    python tools/test_setup.py        # run by `make test` before the tests

1. A browser for the browser tests (tests/browser, tests/live) and a Latin font
   folder for the font test (a Chromium that sees no CJK font):
   - Debian's `chromium` and `fonts-dejavu-core` when they are there;
   - else, as root on Debian/Ubuntu, installed with apt-get;
   - else Playwright's own Chromium (`playwright install chromium`, into
     Playwright's cache in your home folder; no root needed);
   - else nothing: the browser tests are skipped, and the reason written here
     is what the summary of `make test` prints, with the command that helps.
2. TeX for the PDF editions (tools/pdf.py: xelatex, xeCJK, the Fandol fonts),
   installed with apt-get as root where missing; without it the PDF tests skip.
3. PyTorch for the cross-checks (requirements-torch.txt), when pip would take a
   CPU build (a wheel on this disk, or a `+cpu` build): an unpinned download of
   PyTorch from PyPI is a CUDA build of several GB, which `make test` does not
   fetch behind your back; `make install-torch` does it when you ask.

What was found is written to _build/test-setup.json, which the browser tests
(tests/browser/conftest.py) and the summary (tools/run_tests.py) read.
Nothing here fails: a missing piece becomes a skip with its reason (under
CI=true the tests themselves refuse to skip).
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / "_build" / "test-setup.json"
LATIN_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation")]
APT_PACKAGES = ["chromium", "fonts-dejavu-core"]


def system_chromium():
    """Debian's (or the distribution's) Chromium on PATH, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def playwright_chromium():
    """The Chromium Playwright installed in its own cache, if any, or None."""
    try:
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:  # playwright missing, or its driver cannot start
        return None
    return path if path and Path(path).is_file() else None


def latin_fonts():
    return [str(d) for d in LATIN_DIRS if d.is_dir()]


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw).returncode == 0


def apt_install(packages):
    """apt-get install as root on Debian/Ubuntu; False where that cannot be done."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return (run(["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL)
            and run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                    env=env, stdout=subprocess.DEVNULL))


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def starts(chromium):
    """Whether this Chromium starts headless and draws a page (libraries present)."""
    try:
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=ARGS)
            b.new_page().set_content("<p>ok</p>")
            b.close()
        return True
    except Exception as err:  # a missing shared library, no sandbox, ...
        print(f"  {chromium} does not start: {str(err).splitlines()[0]}")
        return False


def browser():
    """(chromium path or None, latin font folders, reason when something is missing)."""
    chromium, fonts = system_chromium(), latin_fonts()
    if not (chromium and fonts):
        apt_install(APT_PACKAGES)
        chromium, fonts = system_chromium(), latin_fonts()
    if not chromium:
        chromium = playwright_chromium()
    if not chromium:
        run([sys.executable, "-m", "playwright", "install", "chromium"],
            stdout=subprocess.DEVNULL)
        chromium = playwright_chromium()
    if chromium and not starts(chromium):
        chromium = None
    reason = None
    if not chromium:
        reason = ("no Chromium that starts: not root with apt-get (Debian's chromium), "
                  "and `playwright install chromium` failed or its browser lacks system "
                  "libraries; as root run "
                  "`apt-get install chromium fonts-dejavu-core`, then make test-browser")
    elif not fonts:
        reason = ("no Latin font folder for the font test: run "
                  "`apt-get install fonts-dejavu-core` as root")
    return chromium, fonts, reason


def torch():
    """(installed?, reason when not): PyTorch installed when pip takes a CPU build."""
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:  # the real-model cross-check's extras (transformers, ...) with it
        try:
            import accelerate  # noqa: F401
            import transformers  # noqa: F401
            return True, None
        except ImportError:
            return run([sys.executable, "-m", "pip", "install", "-q", "-r",
                        str(ROOT / "requirements-torch.txt")]), \
                "pip could not install requirements-torch.txt (transformers, ...): see its output above"
    req = (ROOT / "requirements-torch.txt").read_text().split()
    pin = next(line for line in req if line.startswith("torch=="))
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
                          "--no-deps", "--report", "-", pin], capture_output=True, text=True)
    try:
        found = json.loads(out.stdout)["install"][0]["download_info"]["url"]
    except (ValueError, KeyError, IndexError):
        found = ""
    if found.startswith("file:") or "+cpu" in found:
        if run([sys.executable, "-m", "pip", "install", "-q", "-r",
                str(ROOT / "requirements-torch.txt")]):
            return True, None
    return False, (f"PyTorch is not installed and pip would download it ({pin}, "
                   "a CUDA build of several GB from PyPI): run `make install-torch` to get it")


def find_chromium():
    """(path to the Chromium the browser tests use, or None; the reason when None):
    Debian's on PATH, else the one `make test` set up (Playwright's)."""
    found = system_chromium()
    state = json.loads(STATE.read_text()) if STATE.exists() else {}
    if found:
        return found, None
    if state.get("chromium") and Path(state["chromium"]).is_file():
        return state["chromium"], None
    return None, state.get("browser_skip") or (
        "Chromium not found: run `make test` (as root it installs Debian's chromium) "
        "or `apt-get install chromium fonts-dejavu-core`")


def tex():
    """(TeX ready?, reason when not): as root on Debian/Ubuntu, installed first."""
    sys.path.insert(0, str(ROOT / "tools"))
    import pdf
    if pdf.ensure_tex():
        return True, None
    return False, f"no TeX for the PDF editions ({', '.join(pdf.tex_missing())}): as root, `make pdf` installs it"


def main():
    chromium, fonts, browser_reason = browser()
    has_tex, tex_reason = tex()
    has_torch, torch_reason = torch()
    state = {"chromium": chromium, "latin_fonts": fonts, "browser_skip": browser_reason,
             "tex": has_tex, "tex_skip": tex_reason, "torch": has_torch, "torch_skip": torch_reason}
    STATE.parent.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(state, indent=1))
    print(f"test set-up: Chromium {chromium or 'missing'}; Latin fonts {fonts or 'missing'}; "
          f"TeX {'ready' if has_tex else 'missing'}; PyTorch {'installed' if has_torch else 'missing'}")
    for reason in (browser_reason, tex_reason, torch_reason):
        if reason:
            print("  skipped later: " + reason)


if __name__ == "__main__":
    main()
