"""Attention speed on this machine: plain numpy, tiled numpy, PyTorch (CPU).

    python benchmarks/attention.py                 # d_k = 64, n = 256, 1024, 4096
    python benchmarks/attention.py --threads 1     # one thread for numpy's BLAS and torch
    python benchmarks/attention.py --block-size 128 --rounds 5

Prints one Markdown table: for each n, the median time of one forward pass
(float32, one head, no mask) of

- plain numpy attention (builds the n x n matrix),
- tiled numpy attention (chapter 10: online softmax, never builds it),
- the same tiled function run on the query blocks in parallel threads (the
  query blocks are independent; numpy releases the GIL, and numpy's BLAS is
  set to one thread meanwhile so that the threads do not compete),
- torch.nn.functional.scaled_dot_product_attention on the CPU, if torch is
  installed,

with the ratio to PyTorch, the achieved GFLOP/s (counting 4 n^2 d operations:
the two matrix products) and the fraction of this machine's numpy float32
matmul rate, measured on the same two products (Q K^T and P V) alone. Then the
peak memory of the tiled version at n = 32768 beyond its inputs and output.

Each library is timed in its own block (numpy, then torch, imported only
then): their thread pools would fight if the calls were interleaved. The
blocks alternate for a few rounds and each number is the best round's median,
so that a burst of load from other programs does not decide the comparison.
This is a benchmark, not a test: the numbers depend on the machine and on
what else runs on it.
"""
import argparse
import ctypes
import math
import os
import statistics
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np

MiB = 2 ** 20


def attention(Q, K, V, causal=False):
    """Plain attention softmax(Q Kᵀ / √d_k) V; builds the whole n_q × n_k matrix."""
    d_k = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)
    if causal:
        S = np.where(np.triu(np.ones(S.shape[-2:], bool), 1), -np.inf, S)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ V


TILE = 2 ** 19   # entries in one score tile (2 MiB in float32) = query block × block_size


def tiled_attention(Q, K, V, block_size=128, causal=False):
    """Exact attention softmax(Q Kᵀ / √d_k) V without ever making the n_q × n_k matrix.

    The same function as in chapter 10 (notebooks/11_exact_attention_linear_memory.ipynb).
    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v); leading batch
    dimensions broadcast. Keys are read in blocks of `block_size`, queries in
    blocks of about TILE / block_size rows. causal=True: query i sees keys j <= i.
    Returns O (..., n_q, d_v) in the inputs' float dtype.
    """
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype, np.float32)
    Q, K, V = (np.asarray(X, dtype) for X in (Q, K, V))
    n_q, d_k = Q.shape[-2:]
    n_k, d_v = V.shape[-2:]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    q_block = max(1, TILE // (block_size * math.prod(batch)))
    scale = dtype.type(1 / math.sqrt(d_k))
    O = np.empty(batch + (n_q, d_v), dtype)
    for i0 in range(0, n_q, q_block):
        i1 = min(i0 + q_block, n_q)
        q = Q[..., i0:i1, :] * scale
        m = np.full(batch + (i1 - i0, 1), -np.inf, dtype)
        l = np.zeros(batch + (i1 - i0, 1), dtype)
        acc = np.zeros(batch + (i1 - i0, d_v), dtype)
        for j0 in range(0, n_k, block_size):
            j1 = min(j0 + block_size, n_k)
            if causal and j0 >= i1:
                break
            S = q @ np.swapaxes(K[..., j0:j1, :], -1, -2)
            if causal and j1 - 1 > i0:
                S[..., np.arange(i0, i1)[:, None] < np.arange(j0, j1)] = -np.inf
            m_new = np.maximum(m, S.max(axis=-1, keepdims=True))
            S -= m_new
            np.exp(S, out=S)
            rescale = np.exp(m - m_new)
            l = l * rescale + S.sum(axis=-1, keepdims=True)
            acc *= rescale
            acc += S @ V[..., j0:j1, :]
            m = m_new
        O[..., i0:i1, :] = acc / l
    return O


def _openblas(function):
    """The OpenBLAS function `function` ('set_num_threads' or 'get_num_threads') of numpy, or None."""
    try:
        maps = open("/proc/self/maps").read()
    except OSError:
        return None
    for path in sorted({line.split()[-1] for line in maps.splitlines() if "openblas" in line}):
        lib = ctypes.CDLL(path)
        for name in [f"scipy_openblas_{function}64_", f"openblas_{function}64_", f"openblas_{function}"]:
            if hasattr(lib, name):
                return getattr(lib, name)
    return None


def set_blas_threads(k):
    """Ask the OpenBLAS library numpy loaded (Linux) to use k threads; True if done."""
    f = _openblas("set_num_threads")
    if f is not None:
        f(k)
    return f is not None


def blas_threads():
    """The number of threads of numpy's OpenBLAS, or None if unknown."""
    f = _openblas("get_num_threads")
    return f() if f is not None else None


def tiled_in_threads(Q, K, V, block_size, pool, workers):
    """tiled_attention with the queries split into `workers` parts computed in parallel threads."""
    parts = [p for p in np.array_split(np.arange(len(Q)), workers) if len(p)]
    outs = pool.map(lambda p: tiled_attention(Q[p[0]:p[-1] + 1], K, V, block_size), parts)
    return np.concatenate(list(outs))


def median_time(f, repeats, warmup=2):
    """Median wall-clock seconds of f() over `repeats` calls, after `warmup` calls."""
    for _ in range(warmup):
        f()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def inputs(n, d, seed):
    """Random float32 Q, K, V of shape (n, d)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, d), dtype=np.float32) for _ in range(3)]


def numpy_block(ns, d, block_size, repeats, workers):
    """Times of plain and tiled numpy attention, and numpy's matmul time on the same products."""
    out = {}
    threads = blas_threads()
    with ThreadPoolExecutor(workers) as pool:
        for n in ns:
            Q, K, V = inputs(n, d, seed=n)
            P = np.random.default_rng(0).random((n, n), dtype=np.float32)
            KT = np.ascontiguousarray(K.T)
            r = repeats[n]
            matmul = median_time(lambda: Q @ KT, r) + median_time(lambda: P @ V, r)
            del P
            out[n] = {"matmul": matmul,
                      "plain numpy": median_time(lambda: attention(Q, K, V), r),
                      f"tiled numpy (block_size {block_size})":
                          median_time(lambda: tiled_attention(Q, K, V, block_size), r),
                      "output": tiled_attention(Q, K, V, block_size)}
            if workers > 1 and threads:
                set_blas_threads(1)
                out[n][f"tiled numpy, queries on {workers} threads"] = median_time(
                    lambda: tiled_in_threads(Q, K, V, block_size, pool, workers), r)
                set_blas_threads(threads)
    return out


def torch_block(ns, d, repeats, threads):
    """Times of torch's scaled_dot_product_attention, or None without torch."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None, None
    if threads:
        torch.set_num_threads(threads)
    out = {}
    with torch.inference_mode():
        for n in ns:
            q, k, v = (torch.from_numpy(X).reshape(1, 1, n, d) for X in inputs(n, d, seed=n))
            out[n] = {"torch SDPA": median_time(lambda: F.scaled_dot_product_attention(q, k, v),
                                                repeats[n]),
                      "output": F.scaled_dot_product_attention(q, k, v).reshape(n, d).numpy()}
    return out, f"torch {torch.__version__}, {torch.get_num_threads()} threads"


def tiled_memory(n, d, block_size):
    """Peak bytes numpy allocates during one tiled call, minus its output (inputs exist before)."""
    Q, K, V = inputs(n, d, seed=1)
    tracemalloc.start()
    O = tiled_attention(Q, K, V, block_size)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - O.nbytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d", type=int, default=64, help="d_k = d_v (default 64)")
    parser.add_argument("--n", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--block-size", type=int, default=512, help="keys per block of the tiled version")
    parser.add_argument("--repeats", type=float, default=1.0, help="multiply the number of repeats")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads for numpy's BLAS and for torch (default: the libraries' own)")
    parser.add_argument("--memory-n", type=int, default=32768)
    parser.add_argument("--rounds", type=int, default=3, help="alternating numpy/torch rounds")
    args = parser.parse_args()
    d = args.d
    repeats = {n: max(3, int(args.repeats * min(50, 4e9 / (4 * n * n * d)))) for n in args.n}
    if args.threads:
        set_blas_threads(args.threads)
    workers = args.threads or os.cpu_count() or 1

    def best(old, new):   # keep the faster median of each implementation
        if old is None:
            return new
        for n in new:
            for k, v in new[n].items():
                if k != "output":
                    old[n][k] = min(old[n][k], v)
        return old

    numpy_results = torch_results = torch_info = None
    for _ in range(args.rounds):
        numpy_results = best(numpy_results, numpy_block(args.n, d, args.block_size, repeats, workers))
        time.sleep(0.5)                     # let the other library's idle threads go to sleep
        new, torch_info = torch_block(args.n, d, repeats, args.threads)
        if new is not None:
            torch_results = best(torch_results, new)
            time.sleep(0.5)
    memory = tiled_memory(args.memory_n, d, args.block_size)

    print(f"# Attention forward pass, float32, d_k = d_v = {d}, one head, no mask\n")
    print(f"numpy {np.__version__} (BLAS threads: {blas_threads()}); "
          f"{torch_info or 'torch not installed'}; {os.cpu_count()} CPUs; median of "
          f"{', '.join(f'{repeats[n]}' for n in args.n)} runs (n = {', '.join(map(str, args.n))}), "
          f"best of {args.rounds} rounds\n")
    print("| implementation | n | median time (ms) | time / PyTorch | GFLOP/s "
          "| fraction of numpy matmul rate |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for n in args.n:
        flops = 4 * n * n * d
        rows = {k: v for k, v in numpy_results[n].items() if k not in ("matmul", "output")}
        if torch_results:
            rows.update({k: v for k, v in torch_results[n].items() if k != "output"})
        matmul_rate = flops / numpy_results[n]["matmul"]
        for name, seconds in rows.items():
            ratio = f"{seconds / torch_results[n]['torch SDPA']:.2f}" if torch_results else "n/a"
            print(f"| {name} | {n} | {1e3 * seconds:.3f} | {ratio} | {flops / seconds / 1e9:.1f} "
                  f"| {flops / seconds / matmul_rate:.2f} |")
        print(f"| numpy matmul alone (Q Kᵀ and P V) | {n} | {1e3 * numpy_results[n]['matmul']:.3f} "
              f"| | {matmul_rate / 1e9:.1f} | 1.00 |")
    print()
    print(f"Peak memory of tiled numpy attention at n = {args.memory_n} (block_size {args.block_size}) "
          f"beyond inputs and output: {memory / MiB:.2f} MiB "
          f"(a single n x n float32 matrix: {args.memory_n ** 2 * 4 / MiB:.0f} MiB).")
    if torch_results:
        diff = max(np.abs(numpy_results[n]["output"] - torch_results[n]["output"]).max() for n in args.n)
        print(f"Largest |tiled numpy - torch| over all n: {diff:.1e}.")


if __name__ == "__main__":
    main()
