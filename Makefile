# The book's commands. Only Python 3.11+ is needed; everything else is
# installed into .venv from the pinned requirements files.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The book is built with warnings as errors, so a broken reference or a
# failing notebook never reaches a reader.
JB_FLAGS ?= -W -n --keep-going

.PHONY: book test lab sync execute font install-torch test-unit test-notebooks test-browser test-colab bench clean help

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make test   run every test"
	@echo "make lab    open the notebooks in JupyterLab"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.book-installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.test-installed: requirements.txt requirements-test.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-test.txt
	touch $(VENV)/.book-installed $@

book: $(VENV)/.book-installed
	BOOK_REPO_URL="$(BOOK_REPO_URL)" $(BIN)/python tools/book_config.py
	rm -rf _build/html  # no stale pages; the execution cache (_build/.jupyter_cache) stays
	ATTENTION_BOOK_STATIC=1 $(BIN)/jupyter-book build . --config _build/_config.yml $(JB_FLAGS)
	@echo "The book is built. Open it: file://$(CURDIR)/_build/html/index.html"

lab: $(VENV)/.test-installed
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

# copy tools/setup_cell.py into every notebook's first code cell
sync: $(VENV)/.book-installed
	$(BIN)/python tools/nbtools.py sync

# run every notebook in place, as stored in the repository (live sliders)
execute: $(VENV)/.book-installed
	$(BIN)/python tools/nbtools.py execute

# regenerate the CJK subset font (needs Debian's fonts-noto-cjk)
font: $(VENV)/.book-installed
	$(BIN)/python tools/make_font.py

# PyTorch for the cross-checks (CI does this; without it they are skipped)
install-torch: $(VENV)/.test-installed
	$(BIN)/pip install -q -r requirements-torch.txt

# structure, course, slider helper, properties, PyTorch cross-checks
test-unit: $(VENV)/.test-installed
	$(BIN)/python -m pytest -p no:randomly tests --ignore=tests/browser \
	  --ignore=tests/live --ignore=tests/compat

test-notebooks: $(VENV)/.test-installed
	$(BIN)/python -m pytest -p no:randomly --nbval --nbval-current-env \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg notebooks/

# the built book in Chromium, and a chapter per part in JupyterLab with a live kernel
test-browser: $(VENV)/.test-installed
	$(BIN)/python -m pytest -p no:randomly tests/browser
	$(BIN)/python -m pytest -p no:randomly tests/live

# every notebook under the versions Colab ships (ipywidgets 7.7), in .venv-colab
.venv-colab/.installed: requirements-colab.txt
	test -x .venv-colab/bin/python || $(PYTHON) -m venv .venv-colab
	.venv-colab/bin/python -m pip install -q --upgrade pip
	.venv-colab/bin/pip install -q -r requirements-colab.txt
	touch $@

test-colab: .venv-colab/.installed
	.venv-colab/bin/python -m pytest -p no:randomly -p no:cacheprovider tests/compat

# every test: unit and structure tests, notebooks (nbval, strict), the book
# built with warnings as errors, the built book and live JupyterLab in
# headless Chromium, and the notebooks under Colab's versions
test: $(VENV)/.test-installed
	$(MAKE) test-unit
	$(MAKE) test-notebooks
	$(MAKE) book
	$(MAKE) test-browser
	$(MAKE) test-colab

# benchmarks: every budget of the book measured (about 25 min, `make test`
# included), written to book/speed-results.md, shown by the rebuilt book's
# appendix "How fast is this book?"
bench: $(VENV)/.test-installed
	$(BIN)/python benchmarks/report.py --tests
	$(MAKE) book

clean:
	rm -rf _build .venv-colab
