"""The checks of chapter 7's exercises (why divide by √d_k).

The chapter's hidden cell before its *Exercises* runs

    from attention_book.exercises.ch07 import checks
    check_07_1, check_07_2, check_07_3, check_07_4 = checks(softmax, random_qk, row_weights, effective_keys)

with the chapter's own functions: exercise 7.4 asks for the number the
chapter's code prints once the reader changes it, so its check computes it
with that code.
"""
import numpy as np

from attention_book.course import feedback, rounded


def checks(softmax, random_qk, row_weights, effective_keys):
    """check_07_1 ... check_07_4, comparing with the chapter's functions."""

    def check_07_1(answer):
        """Check the three scaled scores of exercise 1, to 2 decimal places."""
        q = np.array([1.0, 2.0, 0.0, -1.0])
        K = np.array([[1.0, 0.0, 1.0, 0.0], [2.0, 1.0, 0.0, 1.0], [0.0, 0.0, 3.0, 4.0]])
        raw = K @ q
        return feedback(answer, [
            (lambda a: a is not None, "Not answered yet: set answer_07_1 to an array of 3 scores."),
            (lambda a: np.shape(a) == (3,), lambda a: f"expected shape (3,), got {np.shape(a)}"),
            (lambda a: not np.allclose(a, raw, atol=0.02), "These are the raw dot products q·k: divide by √d_k."),
            (lambda a: not np.allclose(a, raw / 4, atol=0.02), "You divided by d_k = 4; divide by √d_k = 2."),
            (lambda a: not (np.all(np.asarray(a) >= 0) and np.isclose(np.sum(a), 1, atol=0.02)),
             "These look like weights: the question asks for scores, before softmax."),
            rounded(raw / 2, 2, otherwise="Not quite: compute q·k for each key, then divide by √4 = 2."),
        ])

    def check_07_2(answer):
        """Check a function a -> softmax Jacobian of exercise 2."""
        a = softmax(np.array([1.0, 2.0, 0.5, -1.0]))
        eps = 1e-6
        J_fd = np.stack([(softmax(np.log(a) + eps * e) - softmax(np.log(a) - eps * e)) / (2 * eps)
                         for e in np.eye(4)], axis=1)
        return feedback(answer, [
            (lambda f: f is not None and f(a) is not None, "Not answered yet: answer_07_2(a) returns None."),
            (lambda f: np.shape(f(a)) == (4, 4),
             lambda f: f"for a of shape (4,) expected shape (4, 4), got {np.shape(f(a))}"),
            (lambda f: np.allclose(f(a), np.asarray(f(a)).T), "J should be symmetric: ∂a_i/∂s_j = ∂a_j/∂s_i."),
            (lambda f: np.allclose(np.sum(f(a), axis=1), 0, atol=1e-9),
             "Each row of J should sum to 0: the weights always sum to 1, so their changes sum to 0."),
            (lambda f: np.allclose(f(a), J_fd, atol=1e-6),
             "Close, but not diag(a) − a aᵀ: compare with finite differences."),
            (lambda f: np.allclose(f(np.eye(5)[2]), 0), "For a one-hot a the Jacobian should be all zeros."),
        ])

    def check_07_3(answer):
        """Check the divisor of exercise 3 by measuring the variance it gives."""
        q, k = random_qk(20000, 20000, 64, seed=3, sigma=2.0)
        dots = (q * k).sum(axis=1)
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: set answer_07_3 to a number."),
            (lambda x: np.ndim(x) == 0 and float(x) > 0, "Expected one positive number."),
            (lambda x: not np.isclose(float(x), 8), "8 is √d_k: it ignores that the entries now have std σ = 2."),
            (lambda x: not np.isclose(float(x), 16),
             "√d_k · σ = 16 is too small: the std of q·k grows like σ², not σ."),
            (lambda x: abs(np.var(dots / float(x)) - 1) < 0.05,
             lambda x: f"Measured: Var(q·k / {float(x):g}) = {np.var(dots / float(x)):.2f}, not 1."),
            (lambda x: np.isclose(float(x), 32, rtol=0.02), "Nearly: give the exact value from the formula."),
        ])

    def check_07_4(answer):
        """Check e^H / n of the scaled rows at d_k = 64, n = 4096 (exercise 4), to 3 decimal places."""
        ratio = {n_keys: np.median(effective_keys(row_weights(64, n_keys, scaled=True))) / n_keys
                 for n_keys in (64, 4096)}
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: set answer_07_4 to the printed number."),
            (lambda x: np.ndim(x) == 0, "Expected one number."),
            (lambda x: not abs(float(x) - ratio[64]) < 0.0005 or abs(ratio[64] - ratio[4096]) < 0.0005,
             "That is the value for n = 64: change the line to n_keys = 4096 and run the cell again."),
            (lambda x: not 1 < float(x), "That looks like e^H itself: divide it by n."),
            rounded(ratio[4096], 3, otherwise="Not the printed e^H / n for n_keys = 4096: run the cell and copy it."),
        ])

    return check_07_1, check_07_2, check_07_3, check_07_4
