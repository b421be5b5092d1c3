# SPDX-License-Identifier: MIT
"""t2t-research: the strategy's lengths over many day files, on Dask.

    t2t-research sweep --days 'DIR/*.gz' --symbols AAPL,MSFT --lengths 6:200:2
                       [--scheduler HOST:PORT | --workers N | --no-cluster]
                       [-o results.csv] [--summary-out summary.csv]

Each day file is one task: one research pass (t2t.research_day) with every
(symbol, length) at once.  With no --scheduler a local cluster runs them on
this machine's cores, one single-threaded worker process per core; with
--scheduler a running dask-scheduler hands them to its workers, which read
the day files by the same path (a shared filesystem) and import t2t from
their PYTHONPATH.  Progress goes to standard error.  The result is one row
per (day, symbol, length) and a summary per (symbol, length) over the days:
total PnL, the worst day, the days traded.  A day that fails is reported
with its error and the others go on; the exit status is then 1.
"""

import argparse
import glob
import logging
import os
import sys
import time

import pandas as pd

import t2t

COLUMNS = ["day", "symbol", "length", "ticks", "orders", "trades", "position", "max_position",
           "cash", "pnl", "pnl_pct"]


def parse_lengths(text):
    """"A:B:STEP" (B included) or "L1,L2,..."."""
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) == 2:
                parts.append(1)
            a, b, step = parts
            if step < 1 or b < a:
                raise ValueError
            out = list(range(a, b + 1, step))
        else:
            out = [int(p) for p in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want A:B:STEP (B included) or L1,L2,...")
    bad = [L for L in out if not t2t.LEN_MIN <= L <= t2t.LEN_MAX]
    if not out or bad:
        raise argparse.ArgumentTypeError(
            f"HMA length {bad[0] if bad else '?'} out of range [{t2t.LEN_MIN}, {t2t.LEN_MAX}]")
    return out


def parse_symbols(text):
    syms = [s for s in text.split(",") if s]
    if not syms:
        raise argparse.ArgumentTypeError("no symbol given")
    return syms


def run_day(path, symbols, lengths, unit):
    """One task: the day's research pass: (rows, None, seconds) or (None, error, seconds)."""
    t0 = time.perf_counter()
    try:
        df = t2t.research_day(path, symbols, lengths, unit=unit)
    except Exception as e:  # reported with the day, never lost
        return None, f"{type(e).__name__}: {e}", time.perf_counter() - t0
    df.insert(0, "day", os.path.basename(path))
    return df[COLUMNS], None, time.perf_counter() - t0


def open_library():
    """A warm-up task: the worker's handle (its books) opened before the work starts."""
    t2t._lib.handle(days=True)
    return os.getpid()


def summarize(table):
    """Per (symbol, length) over the days: total PnL, the worst day, days traded."""
    if table.empty:
        return pd.DataFrame(columns=["symbol", "length", "days", "days_traded", "orders",
                                     "total_pnl", "worst_day", "worst_day_pnl"])
    g = table.groupby(["symbol", "length"], sort=True)
    worst = table.loc[g["pnl"].idxmin(), ["symbol", "length", "day", "pnl"]]
    out = g.agg(days=("day", "count"), days_traded=("orders", lambda o: int((o > 0).sum())),
                orders=("orders", "sum"), total_pnl=("pnl", "sum")).reset_index()
    worst = worst.rename(columns={"day": "worst_day", "pnl": "worst_day_pnl"})
    return out.merge(worst, on=["symbol", "length"])


class Progress:
    def __init__(self, total, quiet):
        self.total, self.done, self.failed, self.quiet = total, 0, 0, quiet
        self.t0 = time.perf_counter()
        self.last = 0.0

    def start(self):
        """The clock starts when the work does (after the cluster is up)."""
        self.t0 = time.perf_counter()

    def elapsed(self):
        return time.perf_counter() - self.t0

    def note(self, day, err, seconds):
        self.done += 1
        self.last = self.elapsed()
        if err:
            self.failed += 1
            print(f"t2t-research: {day}: FAILED: {err}", file=sys.stderr, flush=True)
        if not self.quiet:
            print(f"t2t-research: {self.done}/{self.total} days ({self.failed} failed), "
                  f"{os.path.basename(day)} {seconds:.2f} s, {time.perf_counter() - self.t0:.1f} s "
                  "in all", file=sys.stderr, flush=True)


def run_here(days, args, progress):
    parts = []
    for d in days:
        df, err, s = run_day(d, args.symbols, args.lengths, args.unit)
        progress.note(d, err, s)
        if df is not None:
            parts.append(df)
    return parts


def run_dask(days, args, progress):
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler, timeout=args.connect_timeout)
    else:
        workers = args.workers or len(os.sched_getaffinity(0))
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    parts = []
    try:
        if not args.quiet:
            n = len(client.scheduler_info().get("workers", {}))
            where = args.scheduler or "a local cluster"
            print(f"t2t-research: {len(days)} days on {where}, {n} workers", file=sys.stderr,
                  flush=True)
        # Each worker opens its books once, before the clock starts: the
        # cluster's cost, not the days'.
        for addr in client.scheduler_info().get("workers", {}):
            client.submit(open_library, workers=[addr], pure=False, key=f"open-{addr}").result()
        progress.start()
        futures = client.map(run_day, days, symbols=args.symbols, lengths=args.lengths,
                             unit=args.unit, pure=False)
        day_of = {f.key: d for f, d in zip(futures, days)}
        for f in as_completed(futures):
            try:
                df, err, s = f.result()
            except Exception as e:  # the worker itself failed (died, lost)
                df, err, s = None, f"{type(e).__name__}: {e}", 0.0
            progress.note(day_of[f.key], err, s)
            if df is not None:
                parts.append(df)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return parts


def cmd_sweep(args):
    days = sorted(glob.glob(args.days))
    if not days:
        print(f"t2t-research: --days {args.days}: no file matches", file=sys.stderr)
        return 2
    progress = Progress(len(days), args.quiet)
    parts = run_here(days, args, progress) if args.no_cluster else run_dask(days, args, progress)
    table = (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS))
    table = table.sort_values(["day", "symbol", "length"], kind="stable").reset_index(drop=True)
    summary = summarize(table)
    if not args.quiet:
        # The days' work ends at the last result; joining and summing the
        # tables after it is this process's alone, whatever the cluster.
        print(f"t2t-research: {len(days)} days in {progress.elapsed():.3f} s (the last result "
              f"at {progress.last:.3f} s)", file=sys.stderr)
    if args.output:
        table.to_csv(args.output, index=False, float_format="%.4f")
    if args.summary_out:
        summary.to_csv(args.summary_out, index=False, float_format="%.4f")
    if not args.quiet or not (args.output or args.summary_out):
        with pd.option_context("display.max_rows", 200, "display.width", 120):
            print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if progress.failed:
        print(f"t2t-research: {progress.failed} of {len(days)} days failed (above); the "
              "results hold the others", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="t2t-research",
        description="The HMA/HMA3 strategy's lengths over many ITCH day files, one "
                    "research pass per day (t2t.research_day), on Dask.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sw = sub.add_parser("sweep", help="every (symbol, length) over every day",
                        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sw.add_argument("--days", required=True, metavar="GLOB",
                    help="day files (plain or gzip), a glob: quote it ('DIR/*.gz')")
    sw.add_argument("--symbols", required=True, type=parse_symbols, metavar="SYM,SYM,...")
    sw.add_argument("--lengths", required=True, type=parse_lengths, metavar="A:B:STEP",
                    help="HMA lengths, A to B included by STEP, or L1,L2,...")
    sw.add_argument("--unit", type=int, default=100, help="shares per unit of position (100)")
    where = sw.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="HOST:PORT",
                       help="a running dask-scheduler (its workers read the days by path)")
    where.add_argument("--workers", type=int, default=0, metavar="N",
                       help="local cluster size (default: this machine's CPUs)")
    where.add_argument("--no-cluster", action="store_true",
                       help="every day in this process, one after another")
    sw.add_argument("--connect-timeout", default="10s", help="for --scheduler (10s)")
    sw.add_argument("-o", "--output", metavar="CSV", help="the (day, symbol, length) table")
    sw.add_argument("--summary-out", metavar="CSV", help="the per-(symbol, length) summary")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress")
    args = ap.parse_args(argv)
    if args.unit < 1 or args.unit > 1000000:
        ap.error("--unit: 1 to 1000000 shares")
    if args.workers < 0:
        ap.error("--workers: at least 1")
    for sym in args.symbols:
        try:
            t2t._symbol(sym)
        except (TypeError, ValueError) as e:
            ap.error(f"--symbols: {e}")
    return cmd_sweep(args)


if __name__ == "__main__":
    sys.exit(main())
