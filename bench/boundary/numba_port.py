# SPDX-License-Identifier: MIT
"""A plain numba port of docs/strategy.md's rule, for make bench-boundary:
@njit, float64, one thread, each weighted moving average summed over its
window as the spec writes it, then the sign of HMA - HMA3 and the
stop-and-reverse rule.  What a researcher would write first; the study
measured the kernel against such a port."""

import numpy as np
from numba import njit


@njit(cache=False)
def _wma(y, k, first, out):
    D = k * (k + 1) / 2.0
    for t in range(first + k - 1, y.shape[0]):
        s = 0.0
        for i in range(k):
            s += (k - i) * y[t - i]
        out[t] = s / D


@njit(cache=False)
def _isqrt(v):
    r = 0
    while (r + 1) * (r + 1) <= v:
        r += 1
    return r


@njit(cache=False)
def run_length(x, L, fee):
    N = x.shape[0]
    n, h, s = L, L // 2, _isqrt(L)
    p = L // 2
    a, b = p // 3, p // 2
    wn, wh, wa, wb = np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N)
    _wma(x, n, 0, wn)
    _wma(x, h, 0, wh)
    _wma(x, a, 0, wa)
    _wma(x, b, 0, wb)
    r = 2.0 * wh - wn
    q = 3.0 * wa - wb - wh
    hma, hma3 = np.zeros(N), np.zeros(N)
    _wma(r, s, n - 1, hma)
    _wma(q, p, p - 1, hma3)
    pos, e, trades, pnl = 0, 0.0, 0, 0.0
    for t in range(n + s - 2, N):
        dd = hma[t] - hma3[t]
        d = 1 if dd > 0 else (-1 if dd < 0 else 0)
        if d != 0 and d != pos:
            if pos != 0:
                pnl += pos * (x[t] - e) / e * 100.0 - fee
                trades += 1
            pos, e = d, x[t]
    if pos != 0 and N:
        pnl += pos * (x[N - 1] - e) / e * 100.0 - fee
        trades += 1
    return trades, pnl


def sweep(x, lengths, fee=0.09):
    """x: float64 Price(4) values; (trades, pnl_pct) arrays."""
    out = [run_length(x, int(L), fee) for L in lengths]
    return (np.array([o[0] for o in out], dtype=np.uint64), np.array([o[1] for o in out]))


def warm():
    run_length(np.linspace(1e6, 1.1e6, 600), 20, 0.09)
