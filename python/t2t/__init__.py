# SPDX-License-Identifier: MIT
"""t2t: the gateway's HMA/HMA3 strategy kernel, books and engine from Python.

Every function runs libt2t.so (api/t2t_api.h), the code t2t-backtest and
t2t-gateway run, so results equal the command line's (tests/python):

    sweep(close, lengths, fee=0.09)           one series, many lengths -> numpy arrays
    research_day(path, symbols, lengths)      one reading of a day, every combination
    backtest_day(path, {sym: len}, paper_latency_ns=None)   a day's orders
    read_capture(path)                        a gateway capture log's orders and stages
    replay_day(path)                          the day through the books only (a baseline)

Importable from the tree after make: PYTHONPATH=python /usr/bin/python3.
Failures raise t2t.Error subclasses (also ValueError, OSError or
LookupError as fits) with the library's message; nothing crashes the
interpreter.
"""

import collections
import numbers
import os

import numpy as np
import pandas as pd

from t2t import _lib
from t2t._lib import (ArgumentError, DayFileError, Error, FormatError, LimitError,
                      RangeError, SymbolError, FEE_PCT, LEN_MIN, LEN_MAX)

__all__ = ["sweep", "research_day", "backtest_day", "read_capture", "replay_day", "grid",
           "Sweep", "Error", "ArgumentError", "RangeError", "DayFileError", "FormatError",
           "SymbolError", "LimitError", "FEE_PCT", "isa"]

Sweep = collections.namedtuple("Sweep", "lengths trades pnl_pct")


def grid():
    """The spec's 80-length sweep grid, 6..200 (docs/strategy.md)."""
    return np.array([6 + (388 * k + 79) // 158 for k in range(80)], dtype=np.uint32)


def isa():
    """The instruction set the lanes run on here: avx512, avx2 or generic."""
    return _lib.lib.t2t_isa(_lib.handle()).decode()


def _lengths(lengths):
    if lengths is None:
        return grid()
    if isinstance(lengths, numbers.Integral):
        lengths = [lengths]
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.size == 0:
        raise ArgumentError("lengths must be a non-empty sequence of integers")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"lengths must be integers, not {arr.dtype}")
    bad = arr[(arr < LEN_MIN) | (arr > LEN_MAX)]
    if bad.size:
        raise RangeError(f"HMA length {int(bad[0])} out of range [{LEN_MIN}, {LEN_MAX}]",
                         "T2T_ERANGE")
    return np.ascontiguousarray(arr, dtype=np.uint32)


def _closes(close):
    if not isinstance(close, np.ndarray):
        raise TypeError("close must be a numpy array: uint32 Price(4) integers or float64 "
                        f"dollars, not {type(close).__name__}")
    if close.ndim != 1:
        raise ArgumentError(f"close must be one-dimensional, not {close.ndim}-dimensional")
    if close.dtype == np.uint32 and close.dtype.isnative:
        fn = _lib.lib.t2t_sweep_u32
    elif close.dtype == np.float64 and close.dtype.isnative:
        fn = _lib.lib.t2t_sweep_f64
    else:
        raise TypeError(f"close must be uint32 (Price(4) integers) or float64 (dollars), "
                        f"not {close.dtype}: convert it first, e.g. close.astype(np.uint32)")
    if not close.flags.c_contiguous:
        raise ArgumentError("close must be C-contiguous (it crosses to the library without "
                            "a copy): pass np.ascontiguousarray(close)")
    return fn


def sweep(close, lengths=None, fee=FEE_PCT, kernel="incremental"):
    """The strategy over one series for each length: Sweep(lengths, trades, pnl_pct).

    close: a 1-D C-contiguous numpy array, uint32 Price(4) integers or float64
    dollars (each converted exactly to Price(4), or refused).  It crosses to
    the library once, where it is: no copy.  lengths: HMA lengths in [6, 256]
    (default: the spec's 80-length grid).  fee: the round-trip fee in
    percentage points.  kernel: "incremental" (lanes, every core),
    "batch" (the reference) or "scalar" (the gateway's kernel, one length
    at a time).
    """
    fn = _closes(close)
    L = _lengths(lengths)
    if kernel not in _lib.KERNELS:
        raise ArgumentError(f"kernel must be one of {', '.join(_lib.KERNELS)}, not {kernel!r}")
    try:
        fee = float(fee)
    except (TypeError, ValueError):
        raise TypeError(f"fee must be a number of percentage points, not {fee!r}") from None
    trades = np.empty(L.size, dtype=np.uint64)
    pnl = np.empty(L.size, dtype=np.float64)
    h = _lib.handle()
    _lib.check(h, fn(h, close.ctypes.data, close.size, L.ctypes.data, L.size, fee,
                     _lib.KERNELS[kernel], trades.ctypes.data, pnl.ctypes.data))
    return Sweep(L, trades, pnl)


def _path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name, not {type(path).__name__}")
    p = os.fsencode(path)
    if not os.path.exists(p):
        raise DayFileError(f"{os.fsdecode(p)}: no such file", "T2T_EIO")
    return p


def _symbol(sym):
    if not isinstance(sym, str):
        raise TypeError(f"a symbol must be a str, not {type(sym).__name__}")
    b = sym.encode("ascii", errors="replace")
    if not 1 <= len(b) <= 8 or not sym.isprintable() or not sym.isascii() or ":" in sym:
        raise ArgumentError(f"symbol {sym!r}: 1 to 8 printable ASCII characters")
    return b


def _combos(pairs):
    arr = (_lib.Combo * len(pairs))()
    for c, (sym, length, unit) in zip(arr, pairs):
        c.symbol = _symbol(sym)
        if not isinstance(length, numbers.Integral) or not LEN_MIN <= length <= LEN_MAX:
            raise RangeError(f"{sym}: HMA length {length} out of range [{LEN_MIN}, {LEN_MAX}]",
                             "T2T_ERANGE")
        if not isinstance(unit, numbers.Integral) or not 1 <= unit <= 1000000:
            raise RangeError(f"{sym}: unit {unit} out of range [1, 1000000] shares",
                             "T2T_ERANGE")
        c.length = int(length)
        c.unit = int(unit)
    return arr


def _unit_of(unit, sym):
    return unit.get(sym, 100) if isinstance(unit, dict) else unit


def _results_frame(pairs, res):
    r = np.frombuffer(res, dtype=_lib.RESULT_DTYPE) if not isinstance(res, np.ndarray) else res
    return pd.DataFrame({
        "symbol": [p[0] for p in pairs],
        "length": np.array([p[1] for p in pairs], dtype=np.int64),
        "unit": np.array([p[2] for p in pairs], dtype=np.int64),
        "ticks": r["ticks"].astype(np.int64),
        "refused": r["refused"].astype(np.int64),
        "orders": r["orders"].astype(np.int64),
        "fills": r["fills"].astype(np.int64),
        "trades": r["trades"].astype(np.int64),
        "position": r["position"],
        "max_position": r["max_position"],
        "cash": r["cash"] / 1e4,
        "pnl": r["pnl"] / 1e4,
        "pnl_pct": r["pnl_pct"],
        "last_price": r["last_price"] / 1e4,
    })


def _orders_frame(pairs, o):
    combo = o["combo"].astype(np.int64)
    syms = np.array([p[0] for p in pairs], dtype=object)
    lens = np.array([p[1] for p in pairs], dtype=np.int64)
    df = pd.DataFrame({
        "md_seq": o["md_seq"].astype(np.int64),
        "symbol": syms[combo] if len(o) else np.array([], dtype=object),
        "length": lens[combo] if len(o) else np.array([], dtype=np.int64),
        "side": o["side"].astype("U1"),
        "shares": o["shares"].astype(np.int64),
        "price": o["price"].astype(np.int64),
        "filled": o["filled"].astype(np.int64),
        "cash": o["cash"].astype(np.int64),
        "combo": combo,
    })
    return df


def _research(path, pairs, want_orders):
    h = _lib.handle(days=True)
    p = _path(path)
    combos = _combos(pairs)
    res = np.zeros(len(pairs), dtype=_lib.RESULT_DTYPE)
    day = _lib.Day()
    n = _lib.ctypes.c_size_t(0)
    cap = 1 << 16 if want_orders else 0
    while True:
        orders = np.zeros(cap, dtype=_lib.ORDER_DTYPE)
        st = _lib.lib.t2t_research_day(h, p, _lib.ctypes.addressof(combos), len(pairs),
                                       res.ctypes.data, orders.ctypes.data if want_orders else None,
                                       cap, _lib.ctypes.byref(n), _lib.ctypes.byref(day))
        if st == _lib.ESPACE:
            cap = n.value
            continue
        _lib.check(h, st)
        return res, orders[:n.value], day


def _as_list(x, what):
    if isinstance(x, (str, numbers.Integral)):
        return [x]
    try:
        out = list(x)
    except TypeError:
        raise TypeError(f"{what} must be one or a sequence, not {type(x).__name__}") from None
    if not out:
        raise ArgumentError(f"no {what} given")
    return out


def research_day(path, symbols, lengths, unit=100, orders=False):
    """One reading of a day file (plain or gzip) through the books and the tape,
    every (symbol, length) at once, with t2t-backtest --itch's orders: one
    order of |change| x unit shares per change of position, filled at the print.

    Returns a DataFrame with one row per (symbol, length): ticks, orders,
    trades, position, max_position (shares), cash and pnl (dollars, marked at
    the last print), pnl_pct (the rule's).  With orders=True, (results, orders)
    where orders has md_seq, symbol, length, side, shares, price, filled, cash
    (Price(4) x shares) in tape order.  unit: shares per unit of position, one
    number or {symbol: unit}.
    """
    syms = _as_list(symbols, "symbols")
    lens = [int(L) for L in _lengths(_as_list(lengths, "lengths"))]
    pairs = [(s, L, _unit_of(unit, s)) for s in syms for L in lens]
    res, o, _ = _research(path, pairs, orders)
    df = _results_frame(pairs, res)
    if not orders:
        return df
    odf = _orders_frame(pairs, o).sort_values(["md_seq", "combo"], kind="stable")
    return df, odf.drop(columns="combo").reset_index(drop=True)


def _spec_pairs(combos, unit):
    if not isinstance(combos, dict) or not combos:
        raise TypeError("combinations must be a non-empty dict {symbol: length} or "
                        "{symbol: (length, unit)}")
    pairs = []
    for sym, v in combos.items():
        length, u = (v if isinstance(v, tuple) else (v, _unit_of(unit, sym)))
        pairs.append((sym, length, u))
    return pairs


def backtest_day(path, combos, paper_latency_ns=None, limit_bp=None, unit=100):
    """A day's orders, as t2t-backtest runs it: a DataFrame with md_seq, symbol,
    side, shares, filled, cash (Price(4) x shares), in the order they were made.

    combos: {symbol: length} or {symbol: (length, unit)}.  With
    paper_latency_ns=None, t2t-backtest --itch DAY --symbol SYM:LEN: each change
    one order, filled whole at its print.  With a latency (ns), t2t-backtest
    --itch --paper NS: the gateway's own engine, orders sized as the gateway
    sizes them, paper fills against the book at print + latency (docs/paper.md);
    limit_bp the orders' limit (None: the gateway's).  The per-symbol summary
    (positions, cash, pnl) is in .attrs["summary"].
    """
    pairs = _spec_pairs(combos, unit)
    if paper_latency_ns is None:
        if limit_bp is not None:
            raise ArgumentError("limit_bp goes with paper_latency_ns")
        res, o, _ = _research(path, pairs, True)
        odf = _orders_frame(pairs, o).sort_values(["md_seq", "combo"], kind="stable")
    else:
        if not isinstance(paper_latency_ns, numbers.Integral) or not 0 <= paper_latency_ns <= 60_000_000_000:
            raise RangeError(f"paper_latency_ns {paper_latency_ns!r}: a whole number of ns, "
                             "0 to 60e9", "T2T_ERANGE")
        lim = _lib.LIMIT_GATEWAY if limit_bp is None else limit_bp
        if not isinstance(lim, numbers.Integral) or not (0 <= lim <= 10000 or lim == _lib.LIMIT_GATEWAY):
            raise RangeError(f"limit_bp {limit_bp!r} out of range [0, 10000]", "T2T_ERANGE")
        h = _lib.handle()
        p = _path(path)
        carr = _combos(pairs)
        res = np.zeros(len(pairs), dtype=_lib.RESULT_DTYPE)
        n = _lib.ctypes.c_size_t(0)
        cap = 1 << 16
        while True:
            o = np.zeros(cap, dtype=_lib.ORDER_DTYPE)
            st = _lib.lib.t2t_paper_day(h, p, _lib.ctypes.addressof(carr), len(pairs),
                                        int(paper_latency_ns), int(lim), res.ctypes.data,
                                        o.ctypes.data, cap, _lib.ctypes.byref(n))
            if st == _lib.ESPACE:
                cap = n.value
                continue
            _lib.check(h, st)
            break
        odf = _orders_frame(pairs, o[:n.value])
    odf = odf[["md_seq", "symbol", "side", "shares", "filled", "cash", "length", "price"]]
    odf = odf.reset_index(drop=True)
    odf.attrs["summary"] = _results_frame(pairs, res)
    return odf


def replay_day(path):
    """The day through the books and the tape with no strategy (the research
    pass's baseline): {messages, prints, seconds}."""
    h = _lib.handle(days=True)
    day = _lib.Day()
    _lib.check(h, _lib.lib.t2t_replay_day(h, _path(path), _lib.ctypes.byref(day)))
    return {"messages": day.messages, "prints": day.prints, "seconds": day.seconds}


def read_capture(path):
    """A capture log (t2t-gateway --capture FILE): one row per order with its
    timestamps (ns) and the duration of each stage (ns, <NA> where the order
    has no such stage: docs/architecture.md, latency/order_rec.h)."""
    h = _lib.handle()
    p = _path(path)
    n = _lib.ctypes.c_size_t(0)
    cap = 4096
    while True:
        recs = np.zeros(cap, dtype=_lib.CAPTURE_DTYPE)
        st = _lib.lib.t2t_read_capture(h, p, recs.ctypes.data, cap, _lib.ctypes.byref(n))
        if st == _lib.ESPACE:
            cap = n.value
            continue
        _lib.check(h, st)
        break
    r = recs[:n.value]
    outcome_names = [_lib.lib.t2t_outcome_name(i).decode() for i in range(7)]
    df = pd.DataFrame({
        "order_no": r["order_no"].astype(np.int64),
        "md_seq": r["md_seq"].astype(np.int64),
        "symbol": np.ascontiguousarray(r["symbol"]).view("S9")[:, 0].astype("U9"),
        "side": r["side"].astype("U1"),
        "shares": r["shares"].astype(np.int64),
        "price": r["price"].astype(np.int64),
        "outcome": [outcome_names[i] if i < len(outcome_names) else str(i) for i in r["outcome"]],
        "flags": r["flags"].astype(np.int64),
    })
    for t in ("t_send", "t_hook", "t_seen", "t_decided", "t_queued", "t_sent", "t_ack", "exch_ts"):
        df[t] = r[t].astype(np.int64)
    for s in range(_lib.STAGES):
        v = r["stage_ns"][:, s]
        df[_lib.lib.t2t_stage_name(s).decode()] = pd.array(np.where(v < 0, 0, v), dtype="Int64")
        df.loc[v < 0, _lib.lib.t2t_stage_name(s).decode()] = pd.NA
    return df
