# SPDX-License-Identifier: MIT
"""A day from Python == the command line on the same day:
research_day == t2t-backtest --itch DAY --symbol SYM:LEN for every
combination, order for order (and its summary line); backtest_day ==
--itch with several symbols, and with paper fills == --itch --paper NS;
plain == gzip; read_capture == t2t-capture csv.  Missing, broken and
unknown input raises, and the library stays usable after."""

import gzip
import io
import pathlib
import re

import numpy as np
import pandas as pd
import pytest

import t2t
from conftest import prog, run

SYMBOLS = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META"]
LENGTHS = [6, 20, 97, 256]


def cli_orders(day, *specs, paper=None, extra=()):
    args = [prog("t2t-backtest"), "--itch", day]
    for s in specs:
        args += ["--symbol", s]
    if paper is not None:
        args += ["--paper", paper]
    p = run(*args, *extra)
    return pd.read_csv(io.StringIO(p.stdout), dtype={"symbol": str}), p.stderr


def test_research_day_equals_backtest_itch_for_every_combination(days):
    day = days["gz"][0]
    res, orders = t2t.research_day(day, SYMBOLS, LENGTHS, orders=True)
    assert len(res) == len(SYMBOLS) * len(LENGTHS)
    assert len(orders) == res["orders"].sum() > 0
    for sym in SYMBOLS:
        for L in LENGTHS:
            cli, err = cli_orders(day, f"{sym}:{L}")
            mine = orders[(orders.symbol == sym) & (orders.length == L)]
            mine = mine[["md_seq", "symbol", "side", "shares"]]
            assert list(cli.columns) == list(mine.columns)
            assert mine.values.tolist() == cli.values.tolist(), (sym, L)
            row = res[(res.symbol == sym) & (res.length == L)].iloc[0]
            m = re.search(r"ticks (\d+) +orders (\d+) +position ([+-]?\d+) shares "
                          r"cash \$([-0-9.]+) pnl \$([-0-9.]+) \(at the prints\); "
                          r"strategy trades (\d+), returns ([-0-9.]+)%", err)
            assert m, err
            assert row.ticks == int(m[1]) and row.orders == int(m[2])
            assert row.position == int(m[3])
            assert row.cash == pytest.approx(float(m[4]), abs=1e-4)
            assert row.pnl == pytest.approx(float(m[5]), abs=1e-4)
            assert row.trades == int(m[6])
            assert abs(row.pnl_pct - float(m[7])) <= 1e-9
    # the fills are at the print: cash and the mark follow from the orders
    for (sym, L), o in orders.groupby(["symbol", "length"]):
        row = res[(res.symbol == sym) & (res.length == L)].iloc[0]
        signed = np.where(o.side == "B", -1, 1) * o.cash
        assert signed.sum() / 1e4 == pytest.approx(row.cash, abs=1e-9)
        assert row.max_position == (100 if len(o) else 0)


def test_units_and_plain_equal_gzip(days):
    a = t2t.research_day(days["plain"], ["AAPL", "MSFT"], [8, 33], unit={"MSFT": 50})
    b = t2t.research_day(days["gz"][0], ["AAPL", "MSFT"], [8, 33], unit={"MSFT": 50})
    pd.testing.assert_frame_equal(a, b)
    assert set(a[a.symbol == "MSFT"].max_position) <= {0, 50}


def test_backtest_day_equals_backtest_itch(days):
    day = days["gz"][1]
    cli, _ = cli_orders(day, "AAPL:20", "MSFT:32:50", "NVDA:6")
    df = t2t.backtest_day(day, {"AAPL": 20, "MSFT": (32, 50), "NVDA": 6})
    pd.testing.assert_frame_equal(df[["md_seq", "symbol", "side", "shares"]], cli,
                                  check_dtype=False)
    assert (df.filled == df.shares).all()
    assert (df.cash == df.shares * df.price).all()


@pytest.mark.parametrize("latency, limit", [(0, None), (250000, None), (5000, 3)])
def test_backtest_day_paper_equals_backtest_itch_paper(days, latency, limit):
    day = days["gz"][2]
    extra = ("--limit-bp", limit) if limit is not None else ()
    cli, err = cli_orders(day, "AAPL:20", "MSFT:6:50", "AMZN:97", paper=latency, extra=extra)
    df = t2t.backtest_day(day, {"AAPL": 20, "MSFT": (6, 50), "AMZN": 97},
                          paper_latency_ns=latency, limit_bp=limit)
    mine = df[["md_seq", "symbol", "side", "shares", "filled", "cash"]].rename(columns={"md_seq": "seq"})
    pd.testing.assert_frame_equal(mine, cli, check_dtype=False)
    s = df.attrs["summary"]
    for sym in ("AAPL", "MSFT", "AMZN"):
        m = re.search(sym + r" paper .*orders (\d+) executions (\d+) position ([+-]?\d+) cash "
                      r"([-0-9.]+) pnl ([-0-9.]+)", err)
        row = s[s.symbol == sym].iloc[0]
        assert row.orders == int(m[1]) and row.fills == int(m[2])
        assert row.position == int(m[3])
        assert row.cash == pytest.approx(float(m[4]), abs=1e-4)
        assert row.pnl == pytest.approx(float(m[5]), abs=1e-4)
    assert (df.filled <= df.shares).all()


def test_bad_days_and_symbols_raise_and_leave_the_library_usable(days, tmp_path):
    good = days["gz"][0]
    with pytest.raises(t2t.DayFileError, match="no such file"):
        t2t.research_day(tmp_path / "missing.gz", "AAPL", 20)
    cut = tmp_path / "cut.gz"
    cut.write_bytes(pathlib.Path(good).read_bytes()[:4000])
    with pytest.raises(t2t.FormatError, match="cut short"):
        t2t.research_day(cut, "AAPL", 20)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x05AAAAA\x00\x40zz")
    with pytest.raises(t2t.FormatError, match="junk.bin"):
        t2t.backtest_day(junk, {"AAPL": 20}, paper_latency_ns=0)
    with pytest.raises(t2t.SymbolError, match="ZZZZ is not in the day's stock directory"):
        t2t.research_day(good, ["AAPL", "ZZZZ"], 20)
    with pytest.raises(t2t.SymbolError, match="ZZZZ"):
        t2t.backtest_day(good, {"ZZZZ": 20}, paper_latency_ns=1000)
    with pytest.raises(t2t.RangeError, match="257"):
        t2t.research_day(good, "AAPL", [20, 257])
    with pytest.raises(ValueError, match="symbol"):
        t2t.research_day(good, "TOOLONGSYM", 20)
    with pytest.raises(TypeError):
        t2t.research_day(good, [b"AAPL"], 20)
    with pytest.raises(t2t.RangeError, match="unit"):
        t2t.backtest_day(good, {"AAPL": (20, 0)})
    with pytest.raises(t2t.RangeError, match="paper_latency_ns"):
        t2t.backtest_day(good, {"AAPL": 20}, paper_latency_ns=-1)
    with pytest.raises(TypeError):
        t2t.research_day(12, "AAPL", 20)
    # still works
    assert len(t2t.research_day(good, "AAPL", 20)) == 1


def test_replay_day_counts_the_tape(days):
    r = t2t.replay_day(days["gz"][0])
    st = run(prog("t2t-backtest"), "--itch", days["gz"][0], "--stats").stdout
    import json
    j = json.loads(st)
    assert r["messages"] == j["messages"] and r["prints"] == j["prints"]


def capture_file(path, n=50):
    cols = ("order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,t_seen,"
            "t_decided,t_queued,t_sent,t_ack,exch_ts")
    lines = ["# t2t-capture v2", "# path=af_xdp", cols]
    t = 10**12
    for i in range(n):
        t += 100000
        send, hook = t, t + 3000 + i * 7
        seen, dec, q, sent = hook + 500, hook + 900, hook + 950, hook + 5000
        ack = 0 if i % 7 == 0 else q + 2000
        outcome = "send_failed" if i % 11 == 0 else "filled"
        flags = "catchup" if i % 13 == 0 else "-"
        lines.append(f"{i},{10 + i},MSFT,{'BS'[i % 2]},100,1000000,{outcome},{flags},{send},{hook},"
                     f"{seen},{dec},{q},{sent},{ack},{34200 * 10**9 + i}")
    lines.append(f"# end records={n}")
    with gzip.open(path, "wt") as f:
        f.write("\n".join(lines) + "\n")


def test_read_capture_equals_t2t_capture_csv(tmp_path):
    p = tmp_path / "cap.gz"
    capture_file(p)
    df = t2t.read_capture(p)
    cli = pd.read_csv(io.StringIO(run(prog("t2t-capture"), "csv", p).stdout))
    assert len(df) == len(cli) == 50
    for c in ("order_no", "md_seq", "shares", "price", "t_hook", "t_sent", "t_ack"):
        assert (df[c].to_numpy() == cli[c].to_numpy()).all(), c
    assert (df["outcome"] == cli["outcome"]).all()
    stage_cols = [c for c in cli.columns if c.endswith("_ns")]
    assert len(stage_cols) == 9
    for k, c in enumerate(stage_cols):
        mine = df.iloc[:, 16 + k]
        theirs = cli[c]
        assert (mine.isna().to_numpy() == theirs.isna().to_numpy()).all(), c
        ok = ~theirs.isna()
        assert (mine[ok].astype("int64").to_numpy() == theirs[ok].astype("int64").to_numpy()).all(), c


def test_read_capture_errors(tmp_path):
    with pytest.raises(t2t.DayFileError):
        t2t.read_capture(tmp_path / "none.gz")
    bad = tmp_path / "bad.gz"
    with gzip.open(bad, "wt") as f:
        f.write("not a capture\n")
    with pytest.raises(t2t.FormatError, match="bad.gz"):
        t2t.read_capture(bad)
    cut = tmp_path / "cut.gz"
    capture_file(cut, 3000)
    cut.write_bytes(cut.read_bytes()[:-200])
    with pytest.raises(t2t.FormatError):
        t2t.read_capture(cut)
