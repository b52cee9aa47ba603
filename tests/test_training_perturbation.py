"""Trained results in stored outputs must not sit on a knife edge.

nbval compares a notebook's stored outputs with a fresh run, on any machine.
A model trained for hundreds of Adam steps amplifies a difference in the last
bit (another BLAS kernel, SIMD path or thread count) into a different model;
if a printed class, count or rounded figure then lands on the other side of a
boundary, the notebook fails there though it passed here
(../shared/notes/pitfalls.md, "Training results in stored outputs").

This test re-runs each chapter that trains models with a perturbation of the
order of rounding put into its training functions (the order of the rows of
every training batch permuted: the same data, sums taken in another order;
or the inputs scaled by 1 + 1e-12), and fails when anything nbval compares
changes: the text a compared cell prints, or a glued value (glue records are
outputs too). A `check=` of a glue call or an `assert` that no longer holds
fails the re-run as well. Cells tagged `nbval-ignore-output` are run but not
compared: per-run details belong there.
"""
import contextlib
import io
import os
import re
import time
import traceback

import numpy as np
import pytest
from IPython.lib.pretty import pretty

from conftest import NOTEBOOKS, code_cells, read

EPS = 1e-12
SANITIZE = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")      # as tests/nbval_sanitize.cfg


def _rng(salt):
    return np.random.default_rng(12345 + salt)


def permuted_batch(f, arrays=(0, 1), at=1):
    """f(..., X, y, ...) with the rows of the batch arguments `arrays` (positions after
    `at` leading arguments are not touched) put in another order: the same examples."""
    def wrapped(*args, **kwargs):
        args = list(args)
        perm = _rng(len(args[arrays[0]])).permutation(len(args[arrays[0]]))
        for i in arrays:
            args[i] = np.asarray(args[i])[perm]
        return f(*args, **kwargs)
    return wrapped


def permuted_batch_per_model(f, arrays=(1, 2)):
    """f(params, X, answer) of several models trained at once (X (models, batch, ...),
    answer (models, batch)) with each model's batch in another order: the same examples."""
    def wrapped(*args, **kwargs):
        args = list(args)
        perm = _rng(np.shape(args[arrays[0]])[1]).permutation(np.shape(args[arrays[0]])[1])
        for i in arrays:
            args[i] = np.asarray(args[i])[:, perm]
        return f(*args, **kwargs)
    return wrapped


def permuted_sentences(f):
    """loss_and_grads(params, data) of chapter 3 with the sentences of every
    length group in another order."""
    def wrapped(params, data):
        shuffled = []
        for b in data:
            perm = _rng(len(b["src"])).permutation(len(b["src"]))
            shuffled.append({k: v[perm] for k, v in b.items()})
        return f(params, shuffled)
    return wrapped


def permuted_rows(f):
    """f returning a batch (a tuple of arrays, one row per example) with its rows in
    another order: the same examples, so every sum over the batch is taken in another order."""
    def wrapped(*args, **kwargs):
        out = f(*args, **kwargs)
        perm = _rng(len(out[0])).permutation(len(out[0]))
        return tuple(v[perm] for v in out)
    return wrapped


def scaled_output(f):
    """f with every array it returns (or every array in the dict/tuple it returns) × (1 + EPS)."""
    def scale(v):
        return v * (1 + EPS) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v

    def wrapped(*args, **kwargs):
        out = f(*args, **kwargs)
        if isinstance(out, dict):
            return {k: scale(v) for k, v in out.items()}
        if isinstance(out, tuple):
            return tuple(scale(v) for v in out)
        return scale(out)
    return wrapped


def scaled_arg(f, at=0):
    """f with its argument number `at` (the inputs) × (1 + EPS)."""
    def wrapped(*args, **kwargs):
        args = list(args)
        args[at] = args[at] * (1 + EPS)
        return f(*args, **kwargs)
    return wrapped


# chapter -> perturbations, each {name of a function the chapter defines: wrapper}.
# Every training batch of these chapters goes through the wrapped functions.
PERTURBATIONS = {
    "03_qkv_translation": {
        "batch order": {"loss_and_grads": permuted_sentences},
        "initial weights × (1 + 1e-12)": {"init_params": scaled_output},
    },
    "07_why_sqrt_dk": {
        "inputs × (1 + 1e-12)": {"make_batch": scaled_output},   # X, V, t = make_batch(B, n, rng)
        "batch order": {"make_batch": permuted_rows},
    },
    "08_strengths": {
        "inputs × (1 + 1e-12)": {"recall_task": scaled_output},    # this one flipped a run at distance 16
        "batch order": {"rnn_loss_and_grads": lambda f: permuted_batch(f, arrays=(1, 2)),   # (params, X, answer)
                        "attention_loss_and_grads": lambda f: permuted_batch(f, arrays=(1, 2))},
    },
    "08_long_range_dependencies": {
        "inputs × (1 + 1e-12)": {"recall_task": scaled_output},
        "batch order": {"rnn_loss_and_grads": permuted_batch_per_model,       # (params, X, answer), a model axis
                        "lstm_loss_and_grads": permuted_batch_per_model,
                        "attention_loss_and_grads": permuted_batch_per_model},
    },
    "13_transformer_block": {
        "batch order": {"loss_and_gradients": lambda f: permuted_batch(f, arrays=(0, 1))},   # (X, y, w)
        "inputs × (1 + 1e-12)": {"loss_and_gradients": scaled_arg},
    },
}
# The last code cell (by id) whose output can depend on the training: the cells after
# it (timings, PyTorch, exercises) are not re-run.
UNTIL = {"03_qkv_translation": "2b335cf2", "07_why_sqrt_dk": "58dd08d3",
         "08_strengths": "tr08-jac-glue", "08_long_range_dependencies": "tr08-jac-glue", "13_transformer_block": "c12-047"}
# TRAINING_PERTURBATION=all runs every perturbation; by default the first of each chapter.
ALL = os.environ.get("TRAINING_PERTURBATION") == "all"
PRESENT = {p.stem for p in NOTEBOOKS}     # a chapter split or renamed away is no longer tested
CASES = [(stem, kind) for stem, kinds in PERTURBATIONS.items() if stem in PRESENT
         for kind in (kinds if ALL else list(kinds)[:1])]


def compared_outputs(cell):
    """What nbval compares in a stored cell: printed text, and the glue records."""
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")
    glued = [(o.metadata["scrapbook"]["name"], o.data["application/papermill.record/text/plain"])
             for o in cell.get("outputs", []) if "application/papermill.record/text/plain" in o.get("data", {})]
    return SANITIZE.sub("0xADDRESS", text), glued


def rerun(path, wrappers, until=None):
    """Run the notebook's code cells (up to the one with id `until`) in a plain namespace with
    `wrappers` put around the chapter's functions as soon as a cell defines them; return the
    cells, per cell run (text, glue records), and the errors raised."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = code_cells(read(path))
    ns, results, glued, failed = {"__name__": "__main__"}, [], [], []
    old = os.getcwd()
    os.environ.pop("ATTENTION_BOOK_STATIC", None)
    from attention_book import course
    from nbtools import reset_book
    reset_book()
    myst_glue, course._myst_glue = course._myst_glue, None   # glue records here, shows nothing
    os.chdir(path.parent)
    try:
        for i, cell in enumerate(cells):
            out, glued[:] = io.StringIO(), []
            with contextlib.redirect_stdout(out):
                try:
                    exec(compile(cell.source, path.name, "exec"), ns)
                except Exception as err:
                    line = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == path.name][-1]
                    failed.append(f"code cell {i} (id {cell.get('id')}) raised {err!r} at its line "
                                  f"{line.lineno}: {cell.source.splitlines()[line.lineno - 1].strip()}")
            results.append((SANITIZE.sub("0xADDRESS", out.getvalue()), list(glued)))
            if i == 0:                                    # the setup cell: record glue, draw no sliders
                original = ns["glue"]

                def glue(name, value, check=None, original=original):
                    original(name, value, check)          # raises if check(value) fails
                    value = value.item() if hasattr(value, "item") else value
                    glued.append((name, pretty(value)))
                ns["glue"] = glue
                ns["sliders"] = lambda *args, **kwargs: None
            for name, wrap in wrappers.items():
                if name in ns and not getattr(ns[name], "perturbed", False):
                    ns[name] = wrap(ns[name])
                    ns[name].perturbed = True
            plt.close("all")
            if cell.get("id") == until:
                break
    finally:
        course._myst_glue = myst_glue
        os.chdir(old)
    missing = [name for name, f in wrappers.items() if not getattr(ns.get(name), "perturbed", False)]
    assert not missing, f"{path.stem} defines no {missing}: update PERTURBATIONS"
    return cells, results, failed


@pytest.mark.parametrize("stem, kind", CASES, ids=[f"{s}: {k}" for s, k in CASES])
def test_outputs_survive_a_rounding_perturbation(stem, kind):
    path = next(p for p in NOTEBOOKS if p.stem == stem)
    start = time.perf_counter()
    cells, results, changed = rerun(path, PERTURBATIONS[stem][kind], UNTIL[stem])
    assert results and cells[len(results) - 1].get("id") == UNTIL[stem], f"no code cell {UNTIL[stem]} in {stem}"
    for i, (cell, (text, glued)) in enumerate(zip(cells, results)):
        if "nbval-ignore-output" in cell.metadata.get("tags", []):
            continue
        stored_text, stored_glued = compared_outputs(cell)
        if text != stored_text:
            changed.append(f"code cell {i} (id {cell.get('id')}) prints\n{text}instead of\n{stored_text}")
        for (name, new), (_, old) in zip(glued, stored_glued):
            if new != old:
                changed.append(f"glue {name}: {new} instead of {old} (code cell {i}, id {cell.get('id')})")
        if [n for n, _ in glued] != [n for n, _ in stored_glued]:
            changed.append(f"code cell {i} (id {cell.get('id')}) glues {[n for n, _ in glued]} "
                           f"instead of {[n for n, _ in stored_glued]}")
    assert not changed, (f"{stem}: with the training perturbed ({kind}), outputs nbval compares changed "
                         "(a result on a knife edge: print a bound the cell asserts, or move per-run "
                         "details to a cell tagged nbval-ignore-output):\n" + "\n".join(changed))
    print(f"{stem} ({kind}): {time.perf_counter() - start:.1f} s")
