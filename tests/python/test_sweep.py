# SPDX-License-Identifier: MIT
"""t2t.sweep == t2t-backtest --prices on docs/strategy.md's reference
workload (t2t-backtest --gen 150000 --seed 42, the 80-length grid), with the
incremental kernel in lanes, the gateway's scalar kernel and the batch
reference: trades exactly, PnL to 1e-9 (and the lanes to the bit); float64
closes == uint32; every bad input a clear exception."""

import io

import numpy as np
import pandas as pd
import pytest

import t2t
from conftest import prog, run


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    prices = d / "prices.txt"
    run(prog("t2t-backtest"), "--gen", 150000, "--seed", 42, "-o", prices)
    x = np.loadtxt(prices, dtype=np.uint32)
    cli = pd.read_csv(io.StringIO(run(prog("t2t-backtest"), "--prices", prices).stdout))
    return prices, x, cli


def test_sweep_equals_backtest_prices_on_the_reference(reference):
    _, x, cli = reference
    r = t2t.sweep(x)
    assert list(r.lengths) == list(cli["length"]) == list(t2t.grid())
    assert (r.trades == cli["trades"].to_numpy()).all()
    assert np.abs(r.pnl_pct - cli["pnl_pct"].to_numpy()).max() <= 1e-9
    assert r.trades.min() > 0


def test_kernels_agree_to_the_bit(reference):
    _, x, _ = reference
    lanes = t2t.sweep(x)
    scalar = t2t.sweep(x, kernel="scalar")
    assert (lanes.trades == scalar.trades).all()
    assert (lanes.pnl_pct == scalar.pnl_pct).all()


def test_batch_reference_equals_backtest_batch(reference, tmp_path):
    _, x, _ = reference
    short = x[:12000].copy()
    p = tmp_path / "short.txt"
    np.savetxt(p, short, fmt="%d")
    lengths = [6, 7, 20, 97, 200, 256]
    cli = pd.read_csv(io.StringIO(run(prog("t2t-backtest"), "--prices", p, "--kernel", "batch",
                                      "--lengths", ",".join(map(str, lengths))).stdout))
    b = t2t.sweep(short, lengths, kernel="batch")
    i = t2t.sweep(short, lengths)
    assert (b.trades == cli["trades"].to_numpy()).all()
    assert np.abs(b.pnl_pct - cli["pnl_pct"].to_numpy()).max() <= 1e-9
    assert (b.trades == i.trades).all() and (b.pnl_pct == i.pnl_pct).all()


def test_float64_dollars_equal_price4(reference):
    _, x, _ = reference
    u = t2t.sweep(x, [6, 50, 199])
    f = t2t.sweep(x / 1e4, [6, 50, 199])
    assert (u.trades == f.trades).all() and (u.pnl_pct == f.pnl_pct).all()


def test_fee_is_the_rules(reference):
    _, x, _ = reference
    a = t2t.sweep(x[:20000], [8, 64], fee=0.0)
    b = t2t.sweep(x[:20000], [8, 64], fee=0.0, kernel="scalar")
    c = t2t.sweep(x[:20000], [8, 64])
    assert (a.pnl_pct == b.pnl_pct).all()
    assert np.allclose(a.pnl_pct - c.pnl_pct, 0.09 * c.trades, atol=1e-6)


def test_repeated_and_odd_lengths():
    x = (np.arange(1, 5001, dtype=np.uint32) * 7919) % 100000 + 900000
    x = x.astype(np.uint32)
    L = [256, 6, 6, 131, 17, 17, 200, 9, 10, 11]
    r = t2t.sweep(x, L)
    s = t2t.sweep(x, L, kernel="scalar")
    assert (r.trades == s.trades).all() and (r.pnl_pct == s.pnl_pct).all()
    assert r.trades[1] == r.trades[2]


def test_empty_and_short_series():
    r = t2t.sweep(np.array([], dtype=np.uint32), [6])
    assert r.trades[0] == 0 and r.pnl_pct[0] == 0
    r = t2t.sweep(np.array([5, 6, 7], dtype=np.uint32), [6, 256])
    assert (r.trades == 0).all()


@pytest.mark.parametrize("close, exc, words", [
    ([1.0, 2.0], TypeError, "numpy array"),
    (np.arange(1, 10, dtype=np.int64), TypeError, "uint32"),
    (np.arange(1, 10, dtype=np.float32), TypeError, "float64"),
    (np.arange(1, 10, dtype=">u4"), TypeError, "uint32"),
    (np.arange(1, 21, dtype=np.uint32)[::2], ValueError, "C-contiguous"),
    (np.ones((3, 3), dtype=np.uint32), ValueError, "one-dimensional"),
    (np.array([1.0, np.nan, 2.0]), t2t.RangeError, "close[1] is NaN"),
    (np.array([1.0, 2.00005]), t2t.RangeError, "four decimals"),
    (np.array([1.0, -3.0]), t2t.RangeError, "out of range"),
    (np.array([1.0, 1e12]), t2t.RangeError, "out of range"),
    (np.array([5, 0, 7], dtype=np.uint32), t2t.RangeError, "close[1] is 0"),
])
def test_bad_closes_raise(close, exc, words):
    with pytest.raises(exc) as e:
        t2t.sweep(close, [6])
    assert words in str(e.value)


@pytest.mark.parametrize("lengths, exc, words", [
    ([5], t2t.RangeError, "5 out of range [6, 256]"),
    ([6, 257], t2t.RangeError, "257 out of range"),
    ([-1], t2t.RangeError, "-1 out of range"),
    ([], ValueError, "non-empty"),
    ([6.5], TypeError, "integers"),
])
def test_bad_lengths_raise(lengths, exc, words):
    with pytest.raises(exc) as e:
        t2t.sweep(np.arange(1, 100, dtype=np.uint32), lengths)
    assert words in str(e.value)


def test_bad_kernel_and_fee():
    x = np.arange(1, 100, dtype=np.uint32)
    with pytest.raises(ValueError, match="kernel"):
        t2t.sweep(x, [6], kernel="fast")
    with pytest.raises(t2t.RangeError, match="fee"):
        t2t.sweep(x, [6], fee=float("inf"))
    with pytest.raises(TypeError, match="fee"):
        t2t.sweep(x, [6], fee="a lot")
