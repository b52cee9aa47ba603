"""The book as PDF, in both languages: _build/pdf/attention-en.pdf and attention-zh.pdf.

    python tools/pdf.py            # run by `make pdf`, best after `make book`
    python tools/pdf.py --if-tex   # make test: where TeX cannot be had, skip (exit 0)

Each edition is built by Jupyter Book's LaTeX builder (sphinx-jupyterbook-latex,
xelatex) from the notebooks' outputs in the execution cache `make book` filled
(_build/.jupyter_cache): no notebook is run again when the cache is current.
The two editions are built side by side (one a core); the LaTeX sources and
logs are in _build/pdf/{en,zh}/_build/latex/, each log copied next to its PDF.

- TeX: Debian's xelatex, latexmk, xeCJK and the Fandol Chinese fonts
  (TEX_PACKAGES, about 150 MB). Installed here with apt-get when run as root;
  otherwise this says what to install and exits non-zero.
- Contents: the book's own _toc.yml (zh/_toc.yml for 中文) without "How to use
  this book" (it is about the HTML book and the notebooks) and without the
  "Part I · " prefixes (LaTeX numbers the parts), so chapter N is Chapter N.
- Slider figures and quizzes: in the book build (ATTENTION_BOOK_STATIC=1) the
  setup cell puts a printable version next to each widget: the first frame as
  a PNG with a line naming its setting, a quiz as Markdown (question, options,
  answer). myst-nb shows the widget in HTML and the printable version in LaTeX.
- The HTML book: a Sphinx extension (setup() below, loaded through
  tools/book_config.py) adds "Book as PDF" to each page's download menu,
  leading to attention-en.pdf (zh/attention-zh.pdf), when they were built before
  `make book`, which copies them into the HTML book; a book built without them
  has no such link (and its "How to use" page says how to build them). This
  script copies the new PDFs into an HTML book already built; `make book` again
  adds the link to its pages.
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "pdf"
EDITIONS = {"en": ROOT, "zh": ROOT / "zh"}
TEX_PACKAGES = ["texlive-xetex", "texlive-latex-recommended", "texlive-fonts-recommended",
                "texlive-lang-cjk", "texlive-lang-chinese", "latexmk", "fonts-dejavu-core",
                "fonts-dejavu-extra", "poppler-utils"]
TEX_FILES = ["xeCJK.sty", "ctexhook.sty", "fncychap.sty", "FandolSong-Regular.otf", "latinmodern-math.otf"]
HOW_TO_USE = "book/how-to-use"   # about the HTML book: not printed


def pdf_name(edition):
    return f"attention-{edition}.pdf"


# --- TeX -----------------------------------------------------------------------
def tex_missing():
    """What the build needs and this machine lacks (programs, TeX files, fonts)."""
    missing = [p for p in ("xelatex", "latexmk") if not shutil.which(p)]
    if shutil.which("kpsewhich"):
        found = subprocess.run(["kpsewhich", *TEX_FILES], capture_output=True, text=True).stdout
        missing += [f for f in TEX_FILES if f not in found]
    else:
        missing += TEX_FILES
    if shutil.which("fc-list"):
        fonts = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout
        missing += [f for f in ("DejaVu Serif", "DejaVu Sans Mono") if f not in fonts]
    return missing


def ensure_tex():
    """True when TeX is ready; as root on Debian/Ubuntu, install it first."""
    missing = tex_missing()
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        print("make pdf: installing TeX (about 150 MB): " + " ".join(TEX_PACKAGES), flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *TEX_PACKAGES],
                       env=env, stdout=subprocess.DEVNULL)
        missing = tex_missing()
    if missing:
        print(f"make pdf: TeX is missing ({', '.join(missing)}). As root run\n"
              f"  apt-get install --no-install-recommends {' '.join(TEX_PACKAGES)}\n"
              "then `make pdf` again (or run `make pdf` as root: it installs them).", file=sys.stderr)
        return False
    return True


# --- configuration ---------------------------------------------------------------
def cjk_fonts():
    """(serif, sans) CJK fonts for xeCJK: Noto CJK when Debian's fonts-noto-cjk is
    there, else the Fandol fonts of texlive-lang-chinese."""
    fonts = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout \
        if shutil.which("fc-list") else ""
    if "Noto Serif CJK SC" in fonts and "Noto Sans CJK SC" in fonts:
        return "{Noto Serif CJK SC}", "{Noto Sans CJK SC}"
    return ("{FandolSong-Regular.otf}[BoldFont=FandolSong-Bold.otf]",
            "{FandolHei-Regular.otf}[BoldFont=FandolHei-Bold.otf]")


def preamble(edition):
    serif, sans = cjk_fonts()
    lines = [
        r"\tracinglostchars=1  % every glyph a font lacks is logged (Missing character)",
        r"\usepackage{xeCJK}",
        r"\setCJKmainfont" + serif, r"\setCJKsansfont" + sans, r"\setCJKmonofont" + sans,
        r"\setlength{\emergencystretch}{3em}",
        # tables: smaller type, and a line may break after an underscore (01_selective_focus)
        r"\makeatletter",
        r"\DeclareRobustCommand{\_}{\ifmmode\nfss@text{\textunderscore}\else\textunderscore\hskip\z@skip\fi}",
        r"\g@addto@macro\sphinxattablestart{\small}\g@addto@macro\sphinxatlongtablestart{\small}",
        r"\newcolumntype{T}{L}\setlength{\tymin}{3.4em}",   # ragged right; no column narrower than "frames"
        r"\makeatother",
    ]
    if edition == "en":  # curly quotes and dashes in English text stay Latin
        lines.append(r'\xeCJKDeclareCharClass{Default}{"2014,"2018,"2019,"201C,"201D,"2026}')
    else:  # 第 N 章, 第 N 部分, 目录, 参考文献
        lines += [
            r"\makeatletter",
            r"\renewcommand{\@makechapterhead}[1]{\vspace*{10pt}{\parindent\z@\raggedright"
            r"\sffamily\bfseries\ifnum\c@secnumdepth>\m@ne\Large 第\,\thechapter\,章\par\nobreak"
            r"\vskip 12pt\fi\Huge #1\par\nobreak\vskip 30pt}}",
            r"\renewcommand{\thepart}{第\ifcase\value{part}\or 一\or 二\or 三\or 四\or 五\or 六"
            r"\or 七\or 八\else\arabic{part}\fi 部分}",
            r"\makeatother",
            r"\AtBeginDocument{\renewcommand{\partname}{}\renewcommand{\contentsname}{目录}\renewcommand{\bibname}{参考文献}"
            r"\renewcommand{\chaptername}{章}\renewcommand{\figurename}{图}\renewcommand{\tablename}{表}}",
        ]
    return "\n".join(lines) + "\n"


def pdf_toc(edition):
    """The PDF's table of contents: the edition's _toc.yml without How to use and
    without the "Part I · " prefixes of the part captions."""
    import yaml
    toc = yaml.safe_load((EDITIONS[edition] / "_toc.yml").read_text())
    parts = []
    for part in toc.get("parts", []):
        chapters = [c for c in part["chapters"] if c.get("file") != HOW_TO_USE]
        if chapters:
            caption = re.sub(r"^(Part [IVXL]+|第.{1,3}部分)\s*·\s*", "", part.get("caption", ""))
            parts.append({**part, "caption": caption, "chapters": chapters})
    toc["parts"] = parts
    path = OUT / f"_toc_{edition}.yml"
    path.write_text("# Generated by tools/pdf.py: do not edit.\n"
                    + yaml.safe_dump(toc, allow_unicode=True, sort_keys=False))
    return path


def pdf_config(edition):
    """_build/pdf/_config_<edition>.yml: the edition's HTML configuration (from
    tools/book_config.py) with the LaTeX settings."""
    import yaml
    config = yaml.safe_load((ROOT / "_build" / ("_config.yml" if edition == "en" else "_config_zh.yml"))
                            .read_text())
    # make book's outputs: the English cache (the Chinese edition's is set by book_config)
    config["execute"].setdefault("cache", str(ROOT / "_build" / ".jupyter_cache"))
    config["latex"] = {"latex_engine": "xelatex", "use_jupyterbook_latex": True,
                       "latex_documents": {"targetname": f"book-{edition}.tex"}}
    config["sphinx"].setdefault("local_extensions", {})["pdf"] = str(ROOT / "tools")  # PrintableOutputs
    c = config["sphinx"]["config"]
    c["extensions"] = list(dict.fromkeys(list(c["extensions"]) + ["pdf"]))
    c["latex_additional_files"] = [str(ROOT / "book" / "_pdf" / "bbm.sty")]
    c["latex_use_xindy"] = False
    c["latex_show_urls"] = "no"
    c["latex_elements"] = {
        "papersize": "a4paper",
        "pointsize": "10pt",
        "extraclassoptions": "openany,oneside",
        "fontpkg": "\\setmainfont{DejaVu Serif}[Scale=0.9]\n\\setsansfont{DejaVu Sans}[Scale=0.9]\n"
                   "\\setmonofont{DejaVu Sans Mono}[Scale=0.8]\n",
        "preamble": preamble(edition),
        "sphinxsetup": "hmargin={2cm,2cm}, vmargin={2.2cm,2.2cm}, verbatimwrapslines=true, "
                       "verbatimforcewraps=true, verbatimmaxunderfull=1, verbatimmaxoverfull=1",
        "makeindex": "", "printindex": "",   # no index: one LaTeX run fewer
        **({"fncychap": ""} if edition == "zh" else {}),
    }
    path = OUT / f"_config_{edition}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return path


# --- build -----------------------------------------------------------------------
def start_build(edition):
    """Start Sphinx's LaTeX build and then latexmk for one edition; returns the process."""
    out = OUT / edition
    latex = out / "_build" / "latex"
    shutil.rmtree(latex, ignore_errors=True)
    log = OUT / f"build-{edition}.log"
    jb = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(EDITIONS[edition]),
          "--config", str(pdf_config(edition)), "--toc", str(pdf_toc(edition)),
          "--path-output", str(out), "--builder", "latex", "--keep-going"]
    mk = ["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
          f"book-{edition}.tex"]
    script = (f"{' '.join(map(quote, jb))} && cd {quote(str(latex))} && {' '.join(map(quote, mk))}")
    env = {**os.environ, "ATTENTION_BOOK_STATIC": "1"}   # a notebook not in the cache runs as make book runs it
    return subprocess.Popen(["sh", "-c", script], stdout=log.open("w"), stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, cwd=ROOT)


def quote(s):
    import shlex
    return shlex.quote(s)


def finish(edition):
    """Copy the PDF and its LaTeX log to _build/pdf/; (ok, message)."""
    latex = OUT / edition / "_build" / "latex"
    pdf, log = latex / f"book-{edition}.pdf", latex / f"book-{edition}.log"
    if log.exists():
        shutil.copy2(log, OUT / f"attention-{edition}.log")
    if not pdf.exists():
        return False, f"{edition}: no PDF; see {OUT / f'build-{edition}.log'}"
    shutil.copy2(pdf, OUT / pdf_name(edition))
    text = log.read_text(errors="replace") if log.exists() else ""
    lost = len(re.findall(r"^Missing character", text, re.M))
    pages = re.findall(r"Output written on .*?\((\d+) pages?", text)
    return True, (f"{edition}: {OUT / pdf_name(edition)}, {pages[-1] if pages else '?'} pages, "
                  f"{(OUT / pdf_name(edition)).stat().st_size / 1e6:.1f} MB"
                  + (f", {lost} missing characters (see the log)" if lost else ""))


def publish():
    """Put the PDFs into an HTML book already built (make book does it when it runs after make pdf)."""
    html = ROOT / "_build" / "html"
    for edition, folder in (("en", html), ("zh", html / "zh")):
        if folder.is_dir() and (OUT / pdf_name(edition)).exists():
            shutil.copy2(OUT / pdf_name(edition), folder / pdf_name(edition))
            print(f"pdf: copied into {folder.relative_to(ROOT)}; `make book` adds *Book (PDF)* to its pages")


def main(argv=()):
    """Build both PDFs; 1 on failure. With --if-tex (make test): where TeX cannot
    be had, say so and return 0, and the PDF tests skip with that reason."""
    if not ensure_tex():
        return 0 if "--if-tex" in argv else 1
    OUT.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    for step in (["tools/i18n.py", "build"], ["tools/book_config.py"]):  # zh/ and _build/_config*.yml, as make book
        if subprocess.run([python, *step], cwd=ROOT, stdout=subprocess.DEVNULL).returncode:
            return 1
    t0 = time.time()
    builds = {e: start_build(e) for e in EDITIONS}
    ok = True
    for edition, proc in builds.items():
        code = proc.wait()
        done, message = finish(edition)
        ok = ok and done and code == 0
        print(message if code == 0 else f"{message} (build failed: see {OUT / f'build-{edition}.log'})")
    print(f"make pdf: {time.time() - t0:.0f} s")
    if ok:
        publish()
    return 0 if ok else 1


# --- the HTML book's link to the PDF ---------------------------------------------
def html_pdf(edition):
    """The built PDF of the edition, which the HTML book serves (html_extra_path);
    None when it was not built: the book then offers no PDF."""
    built = OUT / pdf_name(edition)
    return built if built.exists() else None


def on_page(app, pagename, templatename, context, doctree):
    """"Book as PDF" in the theme's download menu (after sphinx-book-theme fills it),
    as html_context["pdf_book"] says (tools/book_config.py)."""
    pdf = context.get("pdf_book")
    for group in context.get("header_buttons", []):
        if pdf and group.get("label") == "download-buttons":
            group["buttons"].append({
                "type": "link", "url": context["pathto"](pdf["file"], 1), "text": pdf["text"],
                "tooltip": pdf["tooltip"], "icon": "fas fa-book", "label": "download-book-pdf-button"})


WIDGET = "application/vnd.jupyter.widget-view+json"


def setup(app):
    """Sphinx extension. HTML: the link to the whole book as PDF. LaTeX: a widget
    output with no printable version (a progress bar) is left out rather than
    printed as its text repr ("IntProgress(value=0, ...)")."""
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class PrintableOutputs(SphinxPostTransform):
        default_priority = 3   # before myst-nb picks one output of each bundle (4)
        formats = ("latex",)

        def run(self, **kwargs):
            from docutils import nodes
            for node in list(self.document.findall(nodes.container)):
                if node.get("nb_element") != "mime_bundle":
                    continue
                if WIDGET in [child.get("mime_type") for child in node.children]:
                    keep = [c for c in node.children if c.get("mime_type") not in (WIDGET, "text/plain")]
                    if keep:
                        node[:] = keep
                    else:
                        node.parent.remove(node)

    app.add_post_transform(PrintableOutputs)
    app.connect("html-page-context", on_page, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
