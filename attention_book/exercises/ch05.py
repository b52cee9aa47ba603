"""The checks of chapter 5's exercises (self-attention, step by step).

The chapter's hidden cell before its *Exercises* runs

    from attention_book.exercises.ch05 import checks
    check_05_1, check_05_2, check_05_3, check_05_4 = checks(attention, softmax, Q, K, n)

with the chapter's `attention` and `softmax`, the queries `Q` and keys `K` of
its example sentence and its length `n` (exercise 5.4 removes the √d_k from
the chapter's own step 2).
"""
import math

import numpy as np

from attention_book.course import feedback, rounded
from attention_book.i18n import say as print   # printed in the reader's language, as a chapter's print


def checks(attention, softmax, Q, K, n):
    """check_05_1 ... check_05_4, comparing with the chapter's functions and its example's Q, K and n."""

    def check_05_1(answer):
        """Exercise 5.1: causal attention weights by hand, to 3 decimal places."""
        Qe = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        expected = attention(Qe, Qe, np.eye(3), causal=True)[1]
        unscaled = attention(Qe * math.sqrt(2), Qe, np.eye(3), causal=True)[1]
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put a 3 × 3 array in `answer_05_1`."),
            (lambda x: np.shape(x) == (3, 3), lambda x: f"Expected shape (3, 3), got {np.shape(x)}."),
            (lambda x: np.allclose(np.triu(x, 1), 0, atol=0.02),
             "Entries above the diagonal must be 0: position i may attend only to j ≤ i."),
            (lambda x: np.allclose(np.sum(x, axis=1), 1, atol=0.02),
             lambda x: f"Each row must sum to 1; yours sum to {np.round(np.sum(x, axis=1), 3)}."),
            (lambda x: not np.allclose(x, unscaled, atol=0.01), "You forgot to divide the scores by √d_k = √2."),
            rounded(expected, 3, otherwise="Not yet the causal softmax(Q Kᵀ / √2)."),
        ])

    def check_05_2(answer):
        """Exercise 5.2: a key padding mask from sentence lengths."""
        cases = [(np.array([3, 1, 4]), 5), (np.array([2, 2]), 2), (np.array([6]), 7)]

        def expected(lengths, n):
            return np.arange(n) < lengths[:, None]

        return feedback(answer, [
            (lambda f: f is not None and callable(f), "Not answered yet: define a function `answer_05_2(lengths, n)`."),
            (lambda f: f(*cases[0]) is not None, "Not answered yet: your function returns None; return the mask."),
            (lambda f: np.asarray(f(*cases[0])).dtype == bool,
             lambda f: f"Return a boolean array (True = may attend), got dtype {np.asarray(f(*cases[0])).dtype}."),
            (lambda f: np.shape(f(*cases[0])) == (3, 5),
             lambda f: f"For 3 sentences padded to n = 5 the mask has shape (3, 5); yours has {np.shape(f(*cases[0]))}."),
            (lambda f: not np.array_equal(f(*cases[0]), ~expected(*cases[0])),  # exact: boolean masks
             "Inverted: True must mark the real tokens, which may be attended (this book's and "
             "scaled_dot_product_attention's convention)."),
            (lambda f: all(np.array_equal(f(*c), expected(*c)) for c in cases),  # exact: boolean masks
             "Not yet: entry [b, j] must be True exactly when j < lengths[b]."),
        ])

    def check_05_3(answer):
        """Exercise 5.3: how many output rows a changed word moves, with a causal mask."""
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put a whole number in `answer_05_3`."),
            (lambda x: x != n,
             "That is the count without a mask: with the causal mask, earlier positions cannot see word 2."),
            (lambda x: x != 1, "Word 2 also changes what every later position sees, not only its own output."),
            (lambda x: x == 4, "Not yet: count the queries i that may attend to key 2 (j ≤ i)."),
        ])

    def check_05_4(answer):
        """Exercise 5.4: the weights of 'sat' (row 2) without the division by √d_k, to 2 decimal places."""
        d = Q.shape[-1]
        expected = softmax(Q @ K.T)[2]
        scaled = softmax(Q @ K.T / math.sqrt(d))[2]
        by_d_k = softmax(Q @ K.T / d)[2]
        near = lambda x, ref: np.max(np.abs(np.asarray(x, dtype=float) - ref)) <= 0.01
        ok = feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put the weights of the row of 'sat' in `answer_05_4`."),
            (lambda x: np.shape(x) == expected.shape,
             lambda x: f"Expected the {len(expected)} weights of one row, got shape {np.shape(x)}."),
            (lambda x: not near(x, scaled), "That is the row with the division: delete it, then run the cell again."),
            (lambda x: not near(x, by_d_k), "That is the row with the scores divided by d_k = 4: delete the division."),
            rounded(expected, 2, otherwise="Not yet: the row A[2] of softmax(Q @ K.T), with no division."),
        ])
        if ok:
            print(f"  Without the division every score is √d_k = {math.sqrt(d):g} times larger: a softmax at "
                  f"temperature 1/{math.sqrt(d):g}. The largest weight of 'sat' rises from {scaled.max():.2f} to "
                  f"{expected.max():.2f} and the small weights shrink. The factor grows with d_k: at d_k = 512 it "
                  f"would be {math.sqrt(512):.1f} (chapter 7 measures what that does to the softmax).")
        return ok

    return check_05_1, check_05_2, check_05_3, check_05_4
