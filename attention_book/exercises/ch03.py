"""The checks of chapter 3's exercises (Q, K, V: the machine-translation example).

The chapter's hidden cell before its *Exercises* runs

    from attention_book.exercises.ch03 import Q_ex, K_ex, checks
    check_03_1, check_03_2, check_03_3, check_03_4, check_03_5 = checks(softmax)

with the chapter's own `softmax`. Exercise 3.1 computes by hand with `Q_ex`
and `K_ex` (the matrices its prompt shows).
"""
import numpy as np

from attention_book.course import feedback, rounded

Q_ex = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])   # three English words
K_ex = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 2.0]])   # three Chinese words


def checks(softmax):
    """check_03_1 ... check_03_5, comparing with `softmax` (the chapter's, along the last axis)."""

    def check_03_1(answer):
        """Exercise 3.1: the weights softmax(Q_ex K_exᵀ / √2), shape (3, 3), to 2 decimal places."""
        S = Q_ex @ K_ex.T
        right = softmax(S / np.sqrt(2))
        near = lambda a: np.max(np.abs(np.asarray(a, dtype=float) - right)) <= 0.1   # rounded() explains these
        return feedback(answer, [
            (lambda a: a is not None, "Not answered yet: put a (3, 3) array in `answer_03_1`."),
            (lambda a: np.shape(a) == (3, 3), lambda a: f"expected shape (3, 3), got {np.shape(a)}."),
            (lambda a: near(a) or np.allclose(np.sum(a, axis=1), 1, atol=0.02),
             "Each row (one English word) must sum to 1: apply the softmax along each row."),
            (lambda a: not np.allclose(a, softmax(S), atol=0.01), "Close: divide the scores by √d_k = √2 first."),
            (lambda a: not np.allclose(a, softmax(S.T / np.sqrt(2)), atol=0.01),
             "Transposed: rows are queries (English words), so the scores are Q Kᵀ, not K Qᵀ."),
            rounded(right, 2, otherwise="Not quite: scores Q Kᵀ / √2, then a softmax along each row."),
        ])

    def check_03_2(answer):
        """Exercise 3.2: a cross-attention function (X_tgt, X_src, W_Q, W_K, W_V) -> output (T, d_v)."""
        rng = np.random.default_rng(32)
        X_tgt, X_src = rng.standard_normal((2, 6)), rng.standard_normal((4, 6))
        W_Q, W_K, W_V = rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 5))
        Q, K, V = X_tgt @ W_Q, X_src @ W_K, X_src @ W_V
        out = lambda f: np.asarray(f(X_tgt, X_src, W_Q, W_K, W_V), dtype=float)
        return feedback(answer, [
            (lambda f: f(X_tgt, X_src, W_Q, W_K, W_V) is not None,
             "Not answered yet: make `answer_03_2` return the attention output."),
            (lambda f: out(f).shape == (2, 5),
             lambda f: f"expected shape (2, 5) — one row per target word, d_v = 5 columns; got {out(f).shape}."
                       " If you got (4, 5), your queries came from X_src."),
            (lambda f: not np.allclose(out(f), softmax(Q @ K.T) @ V), "Close: divide the scores by √d_k."),
            (lambda f: np.allclose(out(f), softmax(Q @ K.T / np.sqrt(3)) @ V),
             "Not quite: Q from X_tgt, K and V from X_src, then softmax(Q Kᵀ/√d_k) V."),
        ])

    def check_03_3(answer, row_sum=0):
        """Exercise 3.3: the backward pass of a row-wise softmax, checked by finite differences,
        and row_sum, the reader's prediction of what each row of dL/dZ sums to."""
        rng = np.random.default_rng(33)
        Z, dA = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
        A, h = softmax(Z), 1e-6
        numeric = np.zeros_like(Z)
        for idx in np.ndindex(Z.shape):
            E = np.zeros_like(Z)
            E[idx] = h
            numeric[idx] = (np.sum(dA * softmax(Z + E)) - np.sum(dA * softmax(Z - E))) / (2 * h)
        out = lambda f: np.asarray(f(A, dA), dtype=float)
        return feedback(answer, [
            (lambda f: row_sum is not None,
             "Predict first: put the number you expect each row of dL/dZ to sum to in `row_sum_03_3`."),
            (lambda f: f(A, dA) is not None, "Not answered yet: make `answer_03_3` return dL/dZ."),
            (lambda f: out(f).shape == (3, 4), lambda f: f"expected shape (3, 4), like Z; got {out(f).shape}."),
            (lambda f: not np.allclose(out(f), A * dA, atol=1e-6),
             "Close: A ⊙ dA forgets that raising one score lowers every other weight of the row."),
            (lambda f: np.allclose(out(f).sum(axis=1), 0, atol=1e-6),
             "Each row of dL/dZ must sum to 0: adding the same number to a whole row of scores "
             "does not change the softmax."),
            (lambda f: np.allclose(out(f), numeric, atol=1e-6), "Not quite: compare with the finite differences."),
            (lambda f: np.isclose(float(row_sum), 0),
             f"Your function is right, but each row sums to 0, not {row_sum}: adding the same number "
             "to a whole row of scores does not change the softmax, so the loss cannot change either."),
        ])

    def check_03_4(answer):
        """Exercise 3.4: the best possible alignment accuracy of d_k = 1 on one 5-word sentence (2 decimal places)."""
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put one number in `answer_03_4`."),
            (lambda x: np.ndim(x) == 0 and np.isreal(x), "Expected one number (a fraction between 0 and 1)."),
            (lambda x: 0 <= float(x) <= 1, "An accuracy is a fraction between 0 and 1."),
            (lambda x: not np.isclose(float(x), 0.2, atol=0.005),
             "Only one winner? The query can be negative too: then the smallest key wins."),
            (lambda x: abs(float(x) - 0.4) <= 0.05,
             "Not quite: how many different Chinese words can have the largest weight, out of 5?"),
            rounded(0.4, 2, otherwise="Not quite: how many different Chinese words can have the largest weight, "
                                      "out of 5?"),
        ])

    def check_03_5(answer):
        """Exercise 3.5: the weight of "studying" on 学习 once the key of 喜欢 is [0, 2, 2], to 2 decimal places."""
        q_studying = np.array([[0.0, 0.0, 2.0]])
        K_old = np.array([[2.0, 0, 0], [0, 2.0, 1.0], [0, 0, 2.0]])
        K_new = np.array([[2.0, 0, 0], [0, 2.0, 2.0], [0, 0, 2.0]])
        before = softmax(q_studying @ K_old.T / np.sqrt(3))[0, 2]
        expected = softmax(q_studying @ K_new.T / np.sqrt(3))[0, 2]
        return feedback(answer, [
            (lambda a: a is not None, "Not answered yet: put one number in `answer_03_5`."),
            (lambda a: np.ndim(a) == 0, "Expected one number: the weight of studying on 学习."),
            (lambda a: abs(float(a) - before) > 0.005,
             "That is the weight before the change: edit the key of 喜欢, then run the Q, K, V cell and the "
             "cell that computes A."),
            rounded(expected, 2, otherwise="Not yet: with the new key the scores of studying are 0, 4/√3 and 4/√3; "
                                           "take their softmax."),
        ])

    return check_03_1, check_03_2, check_03_3, check_03_4, check_03_5
