"""The checks of chapter 10's exercises (the costs of attention).

The chapter's hidden cell before its *Exercises* runs

    from attention_book.exercises.ch10 import checks
    check_10_1, ..., check_10_5 = checks(D_K, BYTES, softmax_rows, row_entropy, A_rand)

with the chapter's key size `D_K`, the bytes of one number `BYTES`, its
functions `softmax_rows` and `row_entropy`, and its random rows `A_rand`
(n = 1024; exercise 10.2 asks for a prediction about them).
"""
import numpy as np

from attention_book.course import feedback, rounded
from attention_book.i18n import say as print   # printed in the reader's language, as a chapter's print

MiB, GiB = 2 ** 20, 2 ** 30


def checks(D_K, BYTES, softmax_rows, row_entropy, A_rand):
    """check_10_1 ... check_10_5, comparing with the chapter's sizes, functions and random rows."""

    def check_10_1(answer):
        """Exercise 1: bytes of S and A together, n = 4096, float32."""
        n = 4096
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put a number of bytes in answer_10_1."),
            (lambda x: isinstance(x, (int, float, np.integer, np.floating)),
             lambda x: f"expected a number of bytes, got {type(x).__name__}"),
            (lambda x: x != n * n * 4, "That is one n × n matrix; S and A are two."),
            (lambda x: x != 2 * n * n * 8, "That is float64 (8 bytes); float32 has 4."),
            (lambda x: x != 2 * n * n * 4 * 8, "That is in bits; the question asks for bytes."),
            (lambda x: x != 2 * n * n * 4 / MiB, "That is in MiB; give the number of bytes."),
            (lambda x: x == 2 * n * n * 4, "Not quite: count the numbers in S and A, times 4 bytes."),
        ])

    def check_10_2(answer, prediction=None):
        """Exercise 2: a function A -> effective number of keys exp(H) of each row; then, if given,
        the prediction for the random rows above (10, 100 or 600)."""
        rng = np.random.default_rng(1)
        A = softmax_rows(3 * rng.standard_normal((5, 12)))
        A[3] = np.eye(12)[4]            # one key takes everything
        A[4] = 1 / 12                   # an even row
        want = np.exp(row_entropy(A))
        got = lambda f: np.asarray(f(A.copy()), dtype=float)
        effective = np.exp(row_entropy(A_rand)).mean()          # the random rows, n = 1024
        closest = min([10, 100, 600], key=lambda c: abs(np.log(c / effective)))
        rules = [
            (lambda f: f is not None, "Not answered yet: define answer_10_2(A)."),
            (lambda f: callable(f), "answer_10_2 should be a function of A."),
            (lambda f: f(A.copy()) is not None, "Not answered yet: answer_10_2(A) returns None."),
            (lambda f: got(f).shape == (5,),
             lambda f: f"expected one number per row, shape (5,), got shape {got(f).shape}"),
            (lambda f: not np.allclose(got(f), row_entropy(A)),
             "That is the entropy H of each row; the effective number is exp(H)."),
            (lambda f: np.isclose(got(f)[3], 1.0), "A row with all its weight on one key should give 1."),
            (lambda f: np.isclose(got(f)[4], 12.0), "An even row over 12 keys should give 12."),
            (lambda f: np.allclose(got(f), want, rtol=1e-6), "Not quite: check the rows in between."),
        ]
        if prediction is not None:
            rules.append((lambda f: isinstance(prediction, (int, float, np.number)),
                          "Your function is right. Set prediction_10_2 to a number: 10, 100 or 600."))
            rules.append((lambda f: prediction == closest,
                          f"Your function is right, your prediction not: the random rows have "
                          f"{effective:.0f} effective keys on average, closest to {closest}. Their entropy is "
                          f"close to ln 1024, and exp(H) undoes the logarithm."))
        ok = feedback(answer, rules)
        if ok and prediction is not None:
            print(f"  The random rows above have {effective:.0f} effective keys out of 1024, on average.")
        elif ok:
            print("  Now set prediction_10_2 (10, 100 or 600) and run the check again.")
        return ok

    def check_10_3(answer):
        """Exercise 3: the largest n whose S and A (float32) fit in 1 GiB."""
        return feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put an integer in answer_10_3."),
            (lambda x: isinstance(x, (int, np.integer)) or float(x).is_integer(),
             lambda x: f"expected a whole number n, got {x!r}"),
            (lambda x: x != 16384, "16384 fits ONE n × n float32 matrix in 1 GiB; there are two, S and A."),
            (lambda x: x != 8192, "8192 would be right for float64 (8 bytes a number); we use float32."),
            (lambda x: 2 * x * x * 4 <= GiB, lambda x: f"too large: n = {x} needs {2 * x * x * 4 / GiB:.3f} GiB."),
            (lambda x: 2 * (x + 1) ** 2 * 4 > GiB, lambda x: f"too small: n = {x + 1} still fits."),
        ])

    def check_10_4(answer, prediction=None):
        """Exercise 4: a function n -> the lead Δ giving one token half of the weight; then, if given,
        the predicted growth of Δ from n = 1000 to n = 10 000 (2 decimal places)."""
        ns = [2, 3, 10, 1000, 10 ** 6]
        half = lambda delta, n: np.exp(delta) / (np.exp(delta) + n - 1)
        rules = [
            (lambda f: f is not None, "Not answered yet: define answer_10_4(n)."),
            (lambda f: callable(f), "answer_10_4 should be a function of n."),
            (lambda f: f(10) is not None, "Not answered yet: answer_10_4(n) returns None."),
            (lambda f: np.ndim(f(10)) == 0, "expected one number for each n."),
            (lambda f: not np.isclose(f(1000), 999), "The weight depends on e^Δ: take a logarithm."),
            (lambda f: not np.isclose(f(10), np.log(10)), "Close: there are n − 1 others, not n."),
            (lambda f: all(np.isclose(half(f(n), n), 0.5) for n in ns),
             lambda f: f"with your Δ the token gets {half(f(10), 10):.3f} of the weight at n = 10, not 0.5."),
        ]
        if prediction is not None:
            growth = np.log(9999) - np.log(999)          # Δ(10 000) − Δ(1000), with Δ = ln(n − 1)
            is_number = isinstance(prediction, (int, float, np.number))
            close_enough, message = rounded(growth, 2, otherwise=(
                "Δ = ln(n − 1), so from n = 1000 to n = 10 000 it grows by ln(9999/999), about ln 10: "
                "the same amount each time n is multiplied by 10."))
            rules.append((lambda f: is_number, "Your function is right. Set prediction_10_4 to a number."))
            rules.append((lambda f: close_enough(prediction),
                          lambda f: f"Your function is right. About your prediction: {message(prediction)}"))
        ok = feedback(answer, rules)
        if ok and prediction is not None:
            print(f"  Δ is {answer(1000):.2f} at n = 1000 and {answer(10_000):.2f} at n = 10 000: "
                  f"{answer(10_000) - answer(1000):.2f} more, about ln 10 for every factor 10 in n.")
        elif ok:
            print("  Now set prediction_10_4 and run the check again.")
        return ok

    def check_10_5(answer):
        """Exercise 5: memory held after the inputs and after A = exp(S) at n = 2048, in MiB (1 decimal place)."""
        def held(n):                                     # from the shapes: Q, K, V; then also S and A
            inputs = 3 * n * D_K * BYTES / MiB
            return np.array([inputs, inputs + 2 * n * n * BYTES / MiB])
        expected, before = held(2048), held(4096)
        near = lambda x, ref: np.max(np.abs(np.asarray(x, dtype=float) - ref)) <= 0.1
        ok = feedback(answer, [
            (lambda x: x is not None, "Not answered yet: put two numbers of MiB in answer_10_5."),
            (lambda x: np.shape(x) == (2,), lambda x: f"expected two numbers, got shape {np.shape(x)}"),
            (lambda x: not near(x, before),
             "These are the numbers for n = 4096: set N_STEPS = 2048, then run the cell again."),
            (lambda x: not near(np.asarray(x, dtype=float) / MiB, expected),
             "These are bytes: divide by MiB (2 ** 20) to get MiB."),
            rounded(expected, 1, otherwise="Not yet: read dict(steps)['inputs Q, K, V'] and dict(steps)['A = exp(S)'], "
                                           "each divided by MiB."),
        ])
        if ok:
            square = expected[1] - expected[0]
            print(f"  Halving n halves the inputs ({before[0]:.1f} → {expected[0]:.1f} MiB: three n × d_k matrices) "
                  f"but quarters S and A ({before[1] - before[0]:.0f} → {square:.0f} MiB: two n × n matrices), so the "
                  f"memory held at the peak falls {before[1] / expected[1]:.1f}-fold: nearly 4, because the square "
                  f"matrices are almost all of it.")
        return ok

    return check_10_1, check_10_2, check_10_3, check_10_4, check_10_5
