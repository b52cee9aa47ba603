"""Mutation check: does the test suite catch realistic mistakes?

    python tools/mutants.py                 # every mutation, one after another (slow: about an hour)
    python tools/mutants.py --list          # the mutations, each checked to still apply
    python tools/mutants.py --only ch05-scale --only quiz-flip   # some of them
    python tools/mutants.py --baseline      # the same test commands on an unmutated copy: all must pass
    python tools/mutants.py --mutmut        # mutmut on tools/glossary.py (needs mutmut, see --help)

Each mutation is a one-token slip a developer could make: an exact `old` ->
`new` replacement in one file (in a notebook: inside its code cells; in a .po
catalog: on the catalog text) or in several (a change to the package attention_book/
goes into every notebook's setup cell, as `make sync` would; a chapter-5
function also into chapter 6's carried-over copy). `old` must occur exactly
`count` times (default once) in each file, or the tool stops before running
anything: the list cannot rot silently.

For each mutation: a fresh scratch copy of the repository (the files git
tracks or would track, as they are in the working tree; .venv symlinked), the
mutation applied, `python tools/i18n.py build` run (as `make book` does: zh/
is then what the mutated copy makes), then the mutation's pytest commands in order, in
the scratch copy, until one catches it. Caught = at least one test failed (its
node id is reported); "caught (crash)" = pytest failed without any test failing
(a collection error: the mutation broke an import, no test ran); NOT CAUGHT =
every command passed (skips are counted). Prints a Markdown table: mutation,
caught by which test, seconds (copy, build and tests).
Not part of `make test`: it runs dozens of notebooks' worth of tests.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PYTEST = ("-p", "no:randomly", "-p", "no:cacheprovider", "-q")
NBVAL = ("-p", "no:randomly", "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg")


def nb(nn):
    """notebooks/NN_name.ipynb of chapter NN."""
    return next(p for p in NOTEBOOKS if Path(p).name.startswith(nn + "_"))


def nbval(nn):
    """nbval on one notebook against its stored outputs (as `make test-notebooks`)."""
    return (*NBVAL, nb(nn))


def course(nn):
    """The course tests of one chapter (they run its code: tests/nbload.py)."""
    return ("tests/test_course.py", "-k", f"{nn}_")


COURSE = "attention_book/course.py"      # the book's package: quiz, feedback, rounded, glue
FIGURES = "attention_book/figures.py"    # sliders and their frames
I18N = "attention_book/i18n.py"          # the translation runtime


@dataclass(frozen=True)
class Mutation:
    id: str
    what: str
    files: tuple          # repository paths; the replacement is made in each
    old: str
    new: str
    tests: tuple          # pytest argument lists, tried in order; "VAR=value" first sets an environment variable
    count: int = 1        # occurrences of `old` in each file (a notebook: all its code cells together)


def M(id, what, files, old, new, *tests, count=1):
    return Mutation(id, what, (files,) if isinstance(files, str) else tuple(files), old, new, tests, count)


MUTATIONS = [
    # ---- the ten of the audit (issue 29)
    M("rounded-last-digit", "rounded() accepts an answer whose last digit is off by one (0.5 → 1.5 units)",
      COURSE, "off(a) <= 0.5 * unit * (1 + 1e-9)", "off(a) <= 1.5 * unit * (1 + 1e-9)",
      ("tests/test_course.py", "-k", "test_rounded_ or numeric_exercises")),
    M("quiz-flip", "a quiz's right answer flipped to a wrong option (ch04, self-attention question: 1 → 0)",
      nb("04"), "Its weight matrix is symmetric: A[i, j] = A[j, i]\"],\n     1,",
      "Its weight matrix is symmetric: A[i, j] = A[j, i]\"],\n     0,",
      ("tests/test_answer_key.py",), ("tests/test_course.py", "-k", "quiz"), nbval("04")),
    M("glossary-zh-term", "glossary: 自注意力 changed to 自我注意 (the headword's translation)",
      "locales/zh_CN/book/glossary.po", '"自注意力 · self-attention\\n"', '"自我注意 · self-attention\\n"',
      ("tests/test_glossary_key.py",), ("tests/test_i18n.py",)),
    M("ch07-message-removed", "one chapter-7 message removed from the Chinese catalog ('d_k values:')",
      "locales/zh_CN/notebooks/07_why_sqrt_dk.po",
      '#: 07_why_sqrt_dk.ipynb:5\nmsgctxt "code"\nmsgid "d_k values:"\nmsgstr "d_k 的取值："\n\n', "",
      ("tests/test_i18n.py",)),
    M("ch07-message-english", "one chapter-7 translation left in English (msgstr = msgid, a printed line)",
      "locales/zh_CN/notebooks/07_why_sqrt_dk.po",
      'msgstr "d_k = 1024 时，未缩放的行中最大权重 > 0.99 的比例：{saturated_share[-1]:.2f}"',
      'msgstr "unscaled rows with largest weight > 0.99 at d_k = 1024: {saturated_share[-1]:.2f}"',
      ("tests/test_i18n.py",),
      ("tests/test_i18n.py", "-k", "no_code_message or (prints_and_draws and 07)")),
    M("tiled-renamed", "chapter 11's tiled_attention renamed to tiled_attn (everywhere in the notebook)",
      nb("11"), "tiled_attention", "tiled_attn",
      ("tests/test_properties.py", "-k", "tiled"), ("tests/test_crosscheck_torch.py", "-k", "tiled"), nbval("11"),
      count=5),
    M("frames-key-first-slider", "slider frame cache keyed on the first slider only (Frames.__call__)",
      FIGURES, "key = tuple(params.items())\n", "key = tuple(params.items())[:1]\n",
      ("tests/test_sliders.py", "-k", "change")),
    M("ch07-saturated-share", "chapter 7's glued ch07_saturated_share 0.72 → 0.83 (threshold 0.99 → 0.9 in the code)",
      nb("07"), "saturated_share.append(np.mean(A.max(axis=1) > 0.99))",
      "saturated_share.append(np.mean(A.max(axis=1) > 0.9))",
      ("tests/test_structure.py", "-k", "07"), nbval("07")),
    M("ch05-scale", "chapter 5's attention loses its 1/√d_k (chapter 6 imports it: attention_book.ch05)",
      nb("05"), "S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)          # scores",
      "S = Q @ np.swapaxes(K, -1, -2)          # scores",
      ("tests/test_properties.py", "-k", "chapter5 or scaling or loops"),
      ("tests/test_crosscheck_torch.py", "-k", "test_plain"), nbval("05")),
    M("ch10-no-rescale", "chapter 11's online softmax forgets to rescale the running output (acc *= rescale)",
      nb("11"), "    acc *= rescale\n", "",
      ("tests/test_properties.py", "-k", "tiled"), ("tests/test_crosscheck_torch.py", "-k", "tiled"), nbval("11")),

    # ---- one per chapter: its core function
    M("ch01-temperature", "ch01 attend(): scores multiplied by the temperature instead of divided",
      nb("01"), "np.exp((scores - scores.max()) / temperature)", "np.exp((scores - scores.max()) * temperature)",
      course("01"), nbval("01")),
    M("ch02-softmax-axis", "ch02 softmax() normalises along axis 0 by default (over queries, not keys)",
      nb("02"), "def softmax(S, axis=-1):", "def softmax(S, axis=0):",
      course("02"), nbval("02")),
    M("ch03-query-source", "ch03 translation: queries made from the source (Chinese) words, not the target",
      nb("03"), 'Q = X_tgt @ params["W_Q"]', 'Q = X_src @ params["W_Q"]',
      course("03"), nbval("03")),
    M("ch04-cross-source", "ch04 cross-attention: keys and values taken from the target, not the source",
      nb("04"), "attention_layer(X_tgt, X_src, W_Q, W_K, W_V)", "attention_layer(X_tgt, X_tgt, W_Q, W_K, W_V)",
      course("04"), nbval("04")),
    M("ch05-mask-sign", "ch05 apply_masks(): a float mask subtracted instead of added (and ch06's copy)",
      nb("05"), "S = S + mask.astype(S.dtype)", "S = S - mask.astype(S.dtype)",
      ("tests/test_properties.py", "-k", "masked or chapter5"),
      ("tests/test_crosscheck_torch.py", "-k", "mask"), nbval("05")),
    M("ch06-key-source", "ch06 multi_head_attention(): keys projected from X_q instead of X_kv",
      nb("06"), "K = split_heads(X_kv @ W_K, h)", "K = split_heads(X_q @ W_K, h)",
      ("tests/test_crosscheck_torch.py", "-k", "multi_head"), course("06"), nbval("06")),
    M("ch07-scale", "ch07 weights(): scaled by 1/d_k instead of 1/√d_k",
      nb("07"), "softmax(QK / np.sqrt(d_k) if scaled else QK)", "softmax(QK / d_k if scaled else QK)",
      course("07"), nbval("07"), count=2),   # weights() and the trained comparison
    M("ch08-attention-scale", "ch08 self_attention() (the RNN comparison) loses its 1/√d_k",
      nb("08"), "A = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))",
      "A = softmax(Q @ np.swapaxes(K, -1, -2))",
      course("08"), nbval("08")),
    M("ch09-softmax-axis", "ch09 attention(): rows normalised over axis 0 (columns sum to 1)",
      nb("10"), "A /= A.sum(axis=1, keepdims=True)        # rows sum to 1",
      "A /= A.sum(axis=0, keepdims=True)        # rows sum to 1",
      course("10"), nbval("10")),
    M("ch10-causal-offset", "ch10 tiled_attention(): the causal mask skipped on a tile that starts at the diagonal",
      nb("11"), "if causal and j1 - 1 > i0:", "if causal and j0 > i0:",
      ("tests/test_properties.py", "-k", "tiled"), ("tests/test_crosscheck_torch.py", "-k", "tiled"), nbval("11")),
    M("ch11-sigmoid-sign", "ch11 sigmoid() (SE and CBAM gates): 1 / (1 + e^u) instead of e^(-u)",
      nb("12"), "return 1 / (1 + np.exp(-u))", "return 1 / (1 + np.exp(u))",
      course("12"), nbval("12")),
    M("ch12-pre-norm-residual", "ch12 encoder_block(): the pre-norm feed-forward sublayer loses its residual",
      nb("13"), 'return X + ffn(layer_norm(X, p["gamma_2"], p["beta_2"]))',
      'return ffn(layer_norm(X, p["gamma_2"], p["beta_2"]))',
      ("tests/test_crosscheck_block.py",), course("13"), nbval("13")),

    # ---- more slips in the chapters' core code
    M("ch05-causal-offset", "ch05 apply_masks(): causal mask lets each query see one future key (tril k=1)",
      nb("05"), "np.tril(np.ones((n_q, n_k), dtype=bool))",
      "np.tril(np.ones((n_q, n_k), dtype=bool), 1)",
      ("tests/test_properties.py", "-k", "chapter5"), ("tests/test_crosscheck_torch.py", "-k", "causal"),
      nbval("05")),
    M("ch10-stats-no-rescale", "ch10 online_softmax_stats(): running sum not rescaled when the max rises",
      nb("11"), "l = l * np.exp(m - ref) + np.exp(block - ref).sum()", "l = l + np.exp(block - ref).sum()",
      ("tests/test_properties.py", "-k", "online_stats"), nbval("11")),
    M("ch11-pool-mean-twice", "ch11 spatial_attention(): mean pooling twice (max pooling lost)",
      nb("12"), "pooled = np.stack([F.mean(axis=0), F.max(axis=0)])    # 1. pool",
      "pooled = np.stack([F.mean(axis=0), F.mean(axis=0)])    # 1. pool",
      course("12"), nbval("12")),

    # ---- the tools
    M("rounded-unit-sign", "rounded(): unit = 10**decimals instead of 10**-decimals",
      COURSE, "unit = 10.0 ** -decimals", "unit = 10.0 ** decimals",
      ("tests/test_course.py", "-k", "test_rounded_ or numeric_exercises")),
    M("quiz-one-based", "quiz(): `correct` read as 1-based (the option after the right one marked right)",
      COURSE, 'if i == correct else tr("✗ Not quite. ")', 'if i + 1 == correct else tr("✗ Not quite. ")',
      ("tests/test_answer_key.py",), ("tests/test_course.py", "-k", "quiz")),
    M("sliders-start-ignored", "sliders(): the static stacks start at the first value, ignoring `start`",
      FIGURES, 'selected_index=list(values[names[depth]]).index(start[names[depth]]))', "selected_index=0)",
      ("tests/test_sliders.py",)),
    M("tr-fallback-empty", "tr(): a text with no translation becomes '' instead of staying English",
      I18N, "hit = MESSAGES.get(text)\n", 'hit = MESSAGES.get(text, "")\n',
      ("tests/test_i18n.py", "-k", "tr_"), ("tests/test_i18n.py",)),
    M("zh-emphasis-unfixed", "zh_style.cjk_emphasis: bold next to Chinese left as written (CommonMark shows **)",
      "tools/zh_style.py", "        if ok:\n            continue\n", "        if ok or True:\n            continue\n",
      ("tests/test_zh_style.py", "-k", "emphasis"), ("tests/test_zh_style.py",)),
    M("zh-typeset-off", "attention_book.i18n.typeset: printed and drawn text keeps its half-width , and :",
      I18N, "    text = _AFTER_HAN.sub(", "    return text\n    text = _AFTER_HAN.sub(",
      ("tests/test_i18n.py", "-k", "prints_and_draws and 04"), ("tests/test_i18n.py",)),
    M("i18n-publish-fuzzy", "i18n.py build: fuzzy translations count as done (a changed English page stays published)",
      "tools/i18n.py", 'if not e.obsolete and e.msgstr and "fuzzy" not in e.flags}',
      "if not e.obsolete and e.msgstr}",
      ("tests/test_tools.py",), ("tests/test_i18n.py",)),
    M("glossary-plural-only", "glossary.py: a term is found only in the plural (singular first uses missed)",
      "tools/glossary.py", 'word += "(?:es|s)?"', 'word += "(?:es|s)"',
      ("tests/test_tools.py",), ("tests/test_course.py", "-k", "glossary")),
    M("glossary-link-order", "glossary.py: a link counts only when it comes after the first unlinked use",
      "tools/glossary.py", "link.start() < m.start()", "link.start() > m.start()",
      ("tests/test_course.py", "-k", "glossary")),
]


# ------------------------------------------------------------------ applying a mutation
class Rot(Exception):
    """A mutation that no longer applies: its `old` text is not there `count` times."""


def mutate_text(text, m, where):
    found = text.count(m.old)
    if found != m.count:
        raise Rot(f"{m.id}: {where}: {m.old!r} found {found} times, expected {m.count}")
    return text.replace(m.old, m.new)


def mutate_file(path, m, rel):
    """Apply m to one file (a notebook: in its code cells) and write it back."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        path.write_text(mutate_text(text, m, rel), encoding="utf-8")
        return
    book = json.loads(text)
    cells = [c for c in book["cells"] if c["cell_type"] == "code"]
    sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]
    found = sum(s.count(m.old) for s in sources)
    if found != m.count:
        raise Rot(f"{m.id}: {rel}: {m.old!r} found {found} times in its code cells, expected {m.count}")
    for cell, source in zip(cells, sources):
        if m.old in source:
            cell["source"] = source.replace(m.old, m.new)
    path.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def check(mutations):
    """Every mutation applies to the repository as it is (in memory); returns the problems."""
    problems = []
    ids = [m.id for m in mutations]
    problems += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    for m in mutations:
        if m.old == m.new:
            problems.append(f"{m.id}: old == new")
        for rel in m.files:
            path = ROOT / rel
            try:
                if not path.exists():
                    raise Rot(f"{m.id}: {rel} does not exist")
                if path.suffix == ".ipynb":
                    book = json.loads(path.read_text(encoding="utf-8"))
                    text = "\n".join("".join(c["source"]) for c in book["cells"] if c["cell_type"] == "code")
                    found = text.count(m.old)
                    if found != m.count:
                        raise Rot(f"{m.id}: {rel}: {m.old!r} found {found} times in its code cells, "
                                  f"expected {m.count}")
                else:
                    mutate_text(path.read_text(encoding="utf-8"), m, rel)
            except Rot as err:
                problems.append(str(err))
    return problems


# ------------------------------------------------------------------ scratch copies
def repository_files():
    """The files git tracks or would track (untracked but not ignored), as in the working tree."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return sorted({f for f in out.split("\0") if f and not f.startswith(".venv")})


def scratch_copy(files, into):
    for rel in files:
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into / rel)
    venv = ROOT / ".venv"
    if venv.exists():
        (into / ".venv").symlink_to(venv)


# A pytest plugin, loaded into every test run: writes what failed to a JSON file.
PLUGIN = '''
import json, os
_seen = {"failed": [], "collect_errors": [], "passed": 0, "skipped": 0}
def pytest_runtest_logreport(report):
    if report.failed:
        _seen["failed"].append([report.nodeid, report.when, str(report.longrepr)[-1500:]])
    elif report.skipped and report.when in ("setup", "call"):
        _seen["skipped"] += 1
    elif report.passed and report.when == "call":
        _seen["passed"] += 1
def pytest_collectreport(report):
    if report.failed:
        _seen["collect_errors"].append([report.nodeid, str(report.longrepr)[-1500:]])
def pytest_sessionfinish(session, exitstatus):
    _seen["exitstatus"] = int(exitstatus)
    with open(os.environ["MUTANTS_REPORT"], "w") as f:
        json.dump(_seen, f)
'''


def python_of(scratch):
    venv_python = scratch / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def where(longrepr):
    """', at NN_name.ipynb:LINE' when a traceback ends in a chapter's code (tests/nbload.py runs it)."""
    places = re.findall(r"(\d\d_\w+\.ipynb:\d+)", longrepr)
    return f", at {places[-1]}" if places else ""


def run_pytest(scratch, args, timeout, deselect=(), first_only=True):
    """One pytest command in the scratch copy -> (verdict, detail, seconds, failed node ids).

    verdict: "caught" (a test failed; detail: its node id), "crash" (pytest failed
    with no failed test: detail says why), "passed" (detail: counts), "timeout".
    deselect: node ids left out (they fail without any mutation). first_only: stop
    at the first failure (-x)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ATTENTION_BOOK_STATIC", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(scratch)   # the scratch copy's attention_book, not the editable install's
    args = list(args)
    while args and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", args[0]):
        key, value = args.pop(0).split("=", 1)
        env[key] = value
    plugin_dir = scratch.parent / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "mutants_report.py").write_text(PLUGIN)
    report = scratch.parent / "report.json"
    report.unlink(missing_ok=True)
    env["PYTHONPATH"] = os.pathsep.join([str(plugin_dir)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["MUTANTS_REPORT"] = str(report)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    cmd = [python_of(scratch), "-m", "pytest", *PYTEST, *(["-x"] if first_only else []), "-p", "mutants_report",
           *args, *(f"--deselect={node}" for node in deselect)]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"timeout after {timeout} s", time.monotonic() - start, []
    seconds = time.monotonic() - start
    if not report.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        return "crash", f"pytest exit {proc.returncode}, no report: {' / '.join(tail)}", seconds, []
    seen = json.loads(report.read_text())
    failed = [node for node, _, _ in seen["failed"]]
    counts = f"{seen['passed']} passed, {seen['skipped']} skipped"
    if seen["failed"]:
        node, when, why = seen["failed"][0]
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        return "caught", node + ("" if when == "call" else f" (error in {when}{where(why)})") + more, seconds, failed
    if seen["collect_errors"]:
        node, why = seen["collect_errors"][0]
        last = [line for line in why.strip().splitlines() if line.strip()][-1:] or [""]
        return "crash", f"collection error in {node or 'session'}{where(why)}: {last[0].strip()[:120]}", seconds, []
    if proc.returncode == 5 or seen["passed"] + seen["skipped"] == 0:
        return "passed", "no tests ran", seconds, []
    if proc.returncode != 0:
        return "crash", f"pytest exit {proc.returncode} ({counts})", seconds, []
    return "passed", counts, seconds, []


def build_zh(scratch, timeout):
    """`python tools/package.py` and `python tools/i18n.py build` in the scratch copy, as
    `make book` does first: the chapters' modules (attention_book/chNN.py) and zh/ are then
    what this copy's notebooks, catalogs and tools make. Returns why it failed, or None."""
    for step in ("package.py", "i18n.py build"):
        build = subprocess.run([python_of(scratch), *f"tools/{step}".split()], cwd=scratch,
                               capture_output=True, text=True, timeout=timeout)
        if build.returncode != 0:
            tail = (build.stdout + build.stderr).strip().splitlines()[-1:] or [""]
            return f"`{step}` failed: {tail[0][:160]}"
    return None


def run_mutation(m, files, timeout, keep=False, known=None, log=print):
    """Apply m to a fresh scratch copy and run its commands -> (caught by, seconds, verdict).
    known: {command: node ids that fail without any mutation}, left out of the runs."""
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=f"mutant-{m.id}-"))
    scratch = work / "repo"
    scratch.mkdir()
    try:
        scratch_copy(files, scratch)
        for rel in m.files:
            mutate_file(scratch / rel, m, rel)
        failed = build_zh(scratch, timeout)
        if failed:
            return f"caught (crash): {failed}", time.monotonic() - start, "crash"
        crashes, notes = [], []
        for args in m.tests:
            if known and args in known and known[args] is None:
                log(f"    skipped: pytest {shlex.join(args)} (it fails without any mutation)")
                notes.append(f"`{shlex.join(args)}` skipped: broken without a mutation")
                continue
            verdict, detail, seconds, _ = run_pytest(scratch, args, timeout, deselect=(known or {}).get(args) or ())
            log(f"    {verdict:8s} {seconds:6.1f} s  pytest {shlex.join(args)}  [{detail}]")
            if verdict == "caught":
                return f"`{detail}`", time.monotonic() - start, "caught"
            if verdict in ("crash", "timeout"):
                crashes.append(detail)
            else:
                notes.append(detail)
        if crashes:
            return f"caught (crash): {crashes[0]}", time.monotonic() - start, "crash"
        return f"NOT CAUGHT ({'; '.join(notes)})", time.monotonic() - start, "not caught"
    finally:
        if keep:
            log(f"    scratch copy kept: {scratch}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def table(rows, total_seconds):
    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")
    lines = ["| id | mutation | caught by | seconds |", "|---|---|---|---:|"]
    for m, caught_by, seconds, _ in rows:
        lines.append(f"| {m.id} | {cell(m.what)} | {cell(caught_by)} | {seconds:.0f} |")
    counts = {v: sum(1 for *_, verdict in rows if verdict == v) for v in ("caught", "crash", "not caught")}
    lines.append("")
    lines.append(f"**Total**: {len(rows)} mutations: {counts['caught']} caught, {counts['crash']} caught (crash), "
                 f"{counts['not caught']} NOT CAUGHT; {total_seconds:.0f} s")
    return "\n".join(lines)


def baseline(mutations, files, timeout, log):
    """Every distinct command of the chosen mutations, run whole on an unmutated copy.

    Returns ({command: node ids that fail}, Markdown lines). A test that fails
    with no mutation says nothing about one: the mutation runs leave it out."""
    commands = list(dict.fromkeys(args for m in mutations for args in m.tests))
    work = Path(tempfile.mkdtemp(prefix="mutant-baseline-"))
    scratch = work / "repo"
    scratch.mkdir()
    known, lines = {}, ["| command (no mutation) | result | seconds |", "|---|---|---:|"]
    try:
        scratch_copy(files, scratch)
        failed = build_zh(scratch, timeout)
        if failed:
            return known, [f"Without a mutation: {failed}"]
        for k, args in enumerate(commands, 1):
            verdict, detail, seconds, nodes = run_pytest(scratch, args, timeout, first_only=False)
            ok = verdict == "passed" and detail != "no tests ran"
            known[args] = nodes if verdict != "crash" else None   # None: the command itself is broken
            result = "ok" if ok else ("FAILS: " + ", ".join(f"`{n}`" for n in nodes) if nodes else f"FAILS: {detail}")
            log(f"  baseline [{k}/{len(commands)}] {seconds:6.1f} s  pytest {shlex.join(args)}  "
                f"[{'ok, ' if ok else ''}{detail}]")
            lines.append(f"| `pytest {shlex.join(args)}` | {result} | {seconds:.0f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return known, lines


# ------------------------------------------------------------------ mutmut (plain-Python tools)
MUTMUT_TARGETS = {  # module -> the fast tests that exercise it
    "tools/glossary.py": ["tests/test_course.py::test_every_glossary_term_is_linked_from_its_first_use"],
}


def mutmut_version():
    from importlib.metadata import version
    return version("mutmut")


def run_mutmut(module, files, keep):
    """mutmut 3 on one module of tools/, with the tests that exercise it, in a scratch copy.

    mutmut must be importable by the Python that runs this (it runs pytest in
    process): e.g. a venv with mutmut==3.8.1 whose site-packages also see .venv's."""
    try:
        import mutmut  # noqa: F401
    except ImportError:
        sys.exit("mutmut is not installed for this Python: pip install mutmut==3.8.1 (see tools/mutants.py)")
    work = Path(tempfile.mkdtemp(prefix="mutant-mutmut-"))
    scratch = work / "repo"
    scratch.mkdir()
    scratch_copy(files, scratch)
    (scratch / ".venv").unlink(missing_ok=True)
    tests = MUTMUT_TARGETS[module]
    name = Path(module).stem
    # mutmut names a mutant by the module's path (tools.glossary) and checks that the tests
    # import it under that name; the tests import `glossary` from tools/ on sys.path: alias it
    with open(scratch / "tests" / "conftest.py", "a") as f:
        f.write(f"\n\nimport importlib as _il, sys as _sys  # noqa: E402  (tools/mutants.py --mutmut)\n"
                f"_sys.modules.setdefault({name!r}, _il.import_module('tools.{name}'))\n")
    others = sorted({Path(f).parts[0] for f in files if "/" in f})
    lines = lambda items: "".join(f"\n    {i}" for i in items)  # noqa: E731  (setup.cfg lists)
    (scratch / "setup.cfg").write_text(
        "[mutmut]\n"
        f"source_paths ={lines([module])}\n"
        f"pytest_add_cli_args_test_selection ={lines(tests)}\n"
        f"pytest_add_cli_args ={lines(['-p', 'no:randomly', '-p', 'no:cacheprovider'])}\n"
        f"also_copy ={lines(others + [f for f in files if '/' not in f])}\n")
    start = time.monotonic()
    env = {k: v for k, v in os.environ.items() if k != "ATTENTION_BOOK_STATIC"}
    proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", "1"], cwd=scratch, env=env,
                          capture_output=True, text=True)
    results = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=scratch, env=env,
                             capture_output=True, text=True)
    status = dict(re.findall(r"^\s*(\S+__mutmut_\d+): (.+)$", results.stdout, re.M))
    counts = {s: list(status.values()).count(s) for s in sorted(set(status.values()))}
    print(f"mutmut {mutmut_version()} on {module}, tests: {' '.join(tests)}")
    print(f"{len(status)} mutants: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f"; {time.monotonic() - start:.0f} s (mutmut exit {proc.returncode})")
    if not status:
        print((proc.stdout + proc.stderr).strip()[-3000:])
    survivors = [name for name, s in status.items() if s == "survived"]
    if survivors:
        print("survived (see each with `mutmut show NAME` in the copy kept by --keep):")
        print("\n".join(f"  {name}" for name in survivors))
    if keep:
        print(f"scratch copy kept: {scratch}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return proc.returncode


# ------------------------------------------------------------------ command line
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="list the mutations (and check that each applies)")
    parser.add_argument("--only", action="append", metavar="ID", help="run this mutation (repeatable)")
    parser.add_argument("--baseline", action="store_true",
                        help="only run the mutations' test commands on an unmutated copy (each must pass)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the unmutated run (by default it runs first, and tests that fail in it "
                             "are left out of the mutation runs)")
    parser.add_argument("--mutmut", nargs="?", const="tools/glossary.py", metavar="MODULE",
                        help=f"run mutmut on a module of tools/ ({', '.join(MUTMUT_TARGETS)})")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds per pytest command (default 1200)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies (their paths are printed)")
    args = parser.parse_args(argv)

    chosen = MUTATIONS
    if args.only:
        unknown = [i for i in args.only if i not in {m.id for m in MUTATIONS}]
        if unknown:
            parser.error(f"unknown mutation {', '.join(unknown)}; see --list")
        chosen = [m for m in MUTATIONS if m.id in args.only]
    problems = check(chosen)
    if args.list:
        for m in chosen:
            rot = [p for p in problems if p.startswith(m.id + ":")]
            print(f"{m.id:24s} {m.what}\n{'':24s} {', '.join(m.files[:3])}{' …' if len(m.files) > 3 else ''}"
                  f"{'  ROT: ' + '; '.join(rot) if rot else ''}")
            for t in m.tests:
                print(f"{'':26s}pytest {shlex.join(t)}")
        print(f"{len(chosen)} mutations" + (f", {len(problems)} do not apply" if problems else ", all apply"))
        return 1 if problems else 0
    if problems:
        print("mutations that no longer apply (fix the list in tools/mutants.py):", *problems, sep="\n  ",
              file=sys.stderr)
        return 2
    files = repository_files()
    if args.mutmut:
        if args.mutmut not in MUTMUT_TARGETS:
            parser.error(f"--mutmut: one of {', '.join(MUTMUT_TARGETS)}")
        return run_mutmut(args.mutmut, files, args.keep)
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731
    start = time.monotonic()
    known, base_lines = {}, []
    if args.baseline or not args.no_baseline:
        log("baseline: the mutations' test commands on an unmutated copy")
        known, base_lines = baseline(chosen, files, args.timeout, log)
        if args.baseline:
            print("\n".join(base_lines))
            return 0 if all(line.split(" | ")[1] == "ok" for line in base_lines[2:]) else 1
    rows = []
    for k, m in enumerate(chosen, 1):
        log(f"[{k}/{len(chosen)}] {m.id}: {m.what}")
        caught_by, seconds, verdict = run_mutation(m, files, args.timeout, keep=args.keep, known=known, log=log)
        log(f"    -> {caught_by} ({seconds:.0f} s)")
        rows.append((m, caught_by, seconds, verdict))
    print(table(rows, time.monotonic() - start))
    left_out = sorted({node for nodes in known.values() for node in nodes or ()})
    if left_out:
        print(f"\nLeft out of the mutation runs: {len(left_out)} tests that fail without any mutation: "
              + ", ".join(f"`{n}`" for n in left_out))
    if any(line.split(" | ")[1] != "ok" for line in base_lines[2:]):
        print("\nBaseline (no mutation):\n\n" + "\n".join(base_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
