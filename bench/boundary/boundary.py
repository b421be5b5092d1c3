# SPDX-License-Identifier: MIT
"""make bench-boundary's table (the "IPC tax" study with this kernel): the
150,000 x 80 reference sweep in process in C (bench_boundary), from Python
through t2t.sweep once, from Python once per length, by spawning
t2t-backtest --prices per sweep, with the closes round-tripped as JSON text;
each with its time and the boundary's share.  Then the plain numba port,
the research pass against a plain replay, and t2t-research on 1 and 2
workers, each against its target."""

import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import t2t  # noqa: E402

REPS = int(os.environ.get("REPS", "9"))


def c_side(*args):
    out = subprocess.run([os.path.join(BUILD, "bench", "bench_boundary"), *map(str, args)],
                         capture_output=True, text=True, check=True).stdout
    return {k: (float(v) if v[0].isdigit() else v) for k, v in (l.split() for l in out.splitlines())}


def timed(fn, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def same(a, b):
    return (a[0] == b[0]).all() and np.abs(a[1] - b[1]).max() <= 1e-9


def main():
    work = sys.argv[1]
    prices = os.path.join(work, "prices.txt")
    subprocess.run([os.path.join(BUILD, "t2t-backtest"), "--gen", "150000", "--seed", "42", "-o",
                    prices], check=True)
    x = np.loadtxt(prices, dtype=np.uint32)
    grid = t2t.grid()
    ref = t2t.sweep(x)
    ref = (ref.trades, ref.pnl_pct)

    # C in process and Python through t2t.sweep(), one call each, in turns so
    # that both see the same machine: the medians of the rounds' medians
    rounds = []
    for _ in range(3):
        c = c_side("sweep", REPS)
        rounds.append((c["c_sweep"], timed(lambda: t2t.sweep(x), REPS)))
    c["c_sweep"] = statistics.median(r[0] for r in rounds)
    py_once = statistics.median(r[1] for r in rounds)
    # Python, one call per length
    per = []
    py_per = timed(lambda: per.append([t2t.sweep(x, [L]) for L in grid]), max(3, REPS // 3))
    r = per[-1]
    assert same((np.array([s.trades[0] for s in r]), np.array([s.pnl_pct[0] for s in r])), ref)

    # a process per sweep: the closes as text on its stdin, its CSV back
    text = None

    def spawn():
        nonlocal text
        body = "\n".join(map(str, x.tolist())) + "\n"
        p = subprocess.run([os.path.join(BUILD, "t2t-backtest"), "--prices", "-", "-q"],
                           input=body, capture_output=True, text=True, check=True)
        text = p.stdout
    t_spawn = timed(spawn, max(3, REPS // 3))
    rows = np.loadtxt(text.splitlines()[1:], delimiter=",")
    assert same((rows[:, 1].astype(np.uint64), rows[:, 2]), ref)

    # JSON text both ways, then the sweep
    xd = x / 1e4
    js = []

    def via_json():
        s = json.dumps(xd.tolist())
        y = np.array(json.loads(s), dtype=np.float64)
        js.append(t2t.sweep(y))
    t_json = timed(via_json, REPS)
    assert same((js[-1].trades, js[-1].pnl_pct), ref)
    t_json_only = timed(lambda: np.array(json.loads(json.dumps(xd.tolist())), dtype=np.float64), REPS)

    # the numba port (compiled first, then timed)
    import numba_port
    numba_port.warm()
    xf = x.astype(np.float64)
    nb = []
    t_numba = timed(lambda: nb.append(numba_port.sweep(xf, grid)), 3)
    numba_exact = same(nb[-1], ref)

    # the research pass against a plain replay of the same day
    day = os.path.join(work, "day16.bin")
    rs = c_side("research", day, REPS)

    # t2t-research on 1 and 2 workers
    def research(workers):
        p = subprocess.run([os.path.join(BUILD, "t2t-research"), "sweep", "--days",
                            os.path.join(work, "days", "*.bin"), "--symbols",
                            "AAPL,MSFT,NVDA,AMZN,GOOG,META,TSLA,AMD", "--lengths", "6:200:5",
                            "--workers", str(workers)], capture_output=True, text=True, check=True)
        line = [l for l in p.stderr.splitlines() if " days in " in l][-1]
        return float(line.split("the last result at ")[1].split()[0])
    w1 = statistics.median([research(1) for _ in range(3)])
    w2 = statistics.median([research(2) for _ in range(3)])

    cs = c["c_sweep"]
    share = lambda t, base: f"{100 * (t - base) / t:.1f} %"
    print(f"\nReference sweep: 150,000 GBM ticks (seed 42) x 80 lengths (6..200), lanes on "
          f"{c['isa']}, {int(c['threads'])} threads; medians of {REPS} (per-length, spawn: "
          f"{max(3, REPS // 3)}; C and Python once: the median of 3 rounds taken in turns)\n")
    print("| path | time | vs C | boundary's share |")
    print("|---|---:|---:|---:|")
    print(f"| C in process, t2t_sweep_u32(), one call | {cs * 1e3:.1f} ms | 1.00x | - |")
    print(f"| Python t2t.sweep(), one call, closes in place | {py_once * 1e3:.1f} ms | "
          f"{py_once / cs:.3f}x | {share(py_once, cs)} |")
    print(f"| Python, one call per length (80) | {py_per * 1e3:.1f} ms | {py_per / cs:.2f}x | "
          f"{share(py_per, c['c_per_length'])} (C one call per length: "
          f"{c['c_per_length'] * 1e3:.1f} ms) |")
    print(f"| a t2t-backtest --prices process per sweep, closes as text | {t_spawn * 1e3:.1f} ms | "
          f"{t_spawn / cs:.2f}x | {share(t_spawn, c['c_scalar_1cpu'])} (its kernel: the scalar one, "
          f"one CPU, {c['c_scalar_1cpu'] * 1e3:.1f} ms) |")
    print(f"| Python, closes round-tripped as JSON text | {t_json * 1e3:.1f} ms | {t_json / cs:.2f}x "
          f"| {share(t_json, cs)} (JSON {t_json_only * 1e3:.1f} ms = "
          f"{t_json_only / c['raw_copy']:,.0f}x the raw copy of 1.2 MB, {c['raw_copy'] * 1e6:.0f} us) |")
    print(f"| plain numba port (@njit, float64, one thread) | {t_numba * 1e3:.0f} ms | "
          f"{t_numba / cs:.1f}x | trades and PnL equal the kernel's: {'yes' if numba_exact else 'NO'} |")
    print(f"\nC sweep on one CPU: {c['c_sweep_1cpu'] * 1e3:.1f} ms; the gateway's scalar kernel on "
          f"one CPU: {c['c_scalar_1cpu'] * 1e3:.1f} ms")
    print(f"\nResearch pass, {int(rs['day_messages']):,} messages, {int(rs['day_prints']):,} prints, "
          f"16 symbols x 40 lengths: {rs['research'] * 1e3:.1f} ms against one plain replay "
          f"{rs['replay'] * 1e3:.1f} ms: {rs['research'] / rs['replay']:.3f}x")
    ndays = len(os.listdir(os.path.join(work, "days")))
    print(f"t2t-research, {ndays} days x 8 symbols x 39 lengths, local cluster (median of 3, "
          f"from the first task to the last result): 1 worker {w1:.2f} s, 2 workers {w2:.2f} s: "
          f"{w1 / w2:.2f}x")
    print("\n| target | figure | met |")
    print("|---|---:|---|")
    rows = [
        ("Python sweep <= 1.01x the C sweep", f"{py_once / cs:.3f}x", py_once / cs <= 1.01),
        ("C sweep >= 50x the numba port", f"{t_numba / cs:.1f}x", t_numba / cs >= 50),
        ("research pass (16 x 40) <= 1.2x one plain replay", f"{rs['research'] / rs['replay']:.3f}x",
         rs["research"] / rs["replay"] <= 1.2),
        ("2 local workers >= 1.8x one", f"{w1 / w2:.2f}x", w1 / w2 >= 1.8),
        ("exact: numba port == kernel (trades, PnL to 1e-9)", "yes" if numba_exact else "no", numba_exact),
    ]
    for name, fig, ok in rows:
        print(f"| {name} | {fig} | {'yes' if ok else 'no'} |")


if __name__ == "__main__":
    main()
