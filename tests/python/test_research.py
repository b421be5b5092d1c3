# SPDX-License-Identifier: MIT
"""t2t-research on a real Dask cluster == the same work in one process:
a dask-scheduler and two dask-worker processes started here on localhost
(the workers import t2t from PYTHONPATH and read the days by path, as on a
shared filesystem), and the default local cluster.  A broken day is
reported with its error while the other days' rows all arrive (exit 1)."""

import os
import re
import pathlib
import shutil
import subprocess
import time

import pandas as pd
import pytest

from conftest import ROOT, prog

ARGS = ["--symbols", "AAPL,MSFT,NVDA", "--lengths", "6:60:9"]


def research(*args):
    return subprocess.run([prog("t2t-research"), "sweep", *map(str, args)], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def dayglob(days, tmp_path_factory):
    d = tmp_path_factory.mktemp("research")
    for p in days["gz"]:
        shutil.copy(p, d)
    broken = d / "20260109.gz"
    broken.write_bytes(pathlib.Path(days["gz"][0]).read_bytes()[:3000])
    return str(d / "*.gz")


@pytest.fixture(scope="module")
def one_process(dayglob, tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "r.csv"
    p = research("--days", dayglob, *ARGS, "--no-cluster", "-q", "-o", out)
    assert p.returncode == 1, p.stderr
    return pd.read_csv(out), p


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    sf = d / "scheduler.json"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    log = open(d / "dask.log", "w")
    procs = [subprocess.Popen(["/usr/bin/dask-scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sf)],
                              stdout=log, stderr=log, env=env, cwd=d)]
    try:
        deadline = time.monotonic() + 30
        while not sf.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sf.exists(), "dask-scheduler did not start"
        for i in range(2):
            procs.append(subprocess.Popen(
                ["/usr/bin/dask-worker", "--scheduler-file", str(sf), "--nthreads", "1",
                 "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                 "--local-directory", str(d / f"w{i}")],
                stdout=log, stderr=log, env=env, cwd=d))
        from distributed import Client
        with Client(scheduler_file=str(sf), timeout="20s") as c:
            c.wait_for_workers(2, timeout=30)
            addr = c.scheduler.address
        yield addr
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        log.close()


def test_scheduler_and_two_workers_equal_one_process(dayglob, one_process, scheduler, tmp_path):
    want, _ = one_process
    out = tmp_path / "r.csv"
    summ = tmp_path / "s.csv"
    p = research("--days", dayglob, *ARGS, "--scheduler", scheduler, "-o", out,
                 "--summary-out", summ)
    assert p.returncode == 1, p.stderr
    assert "2 workers" in p.stderr
    assert "20260109.gz: FAILED: FormatError" in p.stderr and "cut short" in p.stderr
    assert "4/4 days (1 failed)" in p.stderr
    got = pd.read_csv(out)
    pd.testing.assert_frame_equal(got, want)
    assert sorted(got.day.unique()) == ["20260101.gz", "20260102.gz", "20260103.gz"]
    assert len(got) == 3 * 3 * 7
    s = pd.read_csv(summ)
    assert len(s) == 3 * 7
    one = s[(s.symbol == "AAPL") & (s.length == 6)].iloc[0]
    rows = got[(got.symbol == "AAPL") & (got.length == 6)]
    assert one.total_pnl == pytest.approx(rows.pnl.sum(), abs=1e-3)
    assert one.worst_day_pnl == pytest.approx(rows.pnl.min(), abs=1e-4)
    assert one.worst_day == rows.loc[rows.pnl.idxmin(), "day"]
    assert one.days_traded == (rows.orders > 0).sum()


def test_local_cluster_equals_one_process(dayglob, one_process, tmp_path):
    want, _ = one_process
    out = tmp_path / "r.csv"
    p = research("--days", dayglob, *ARGS, "--workers", 2, "-o", out)
    assert p.returncode == 1, p.stderr
    assert "a local cluster, 2 workers" in p.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out), want)
    # The days' time ends at the last result, before the tables are joined.
    m = re.search(r"(\d+) days in ([\d.]+) s \(the last result at ([\d.]+) s\)", p.stderr)
    assert m and 0 < float(m[3]) <= float(m[2]), p.stderr


def test_one_process_rows_equal_research_day(days, one_process):
    import t2t
    want, p = one_process
    df = t2t.research_day(days["gz"][1], ["AAPL", "MSFT", "NVDA"], list(range(6, 61, 9)))
    mine = want[want.day == "20260102.gz"].reset_index(drop=True)
    assert (mine.orders.to_numpy() == df.orders.to_numpy()).all()
    assert (abs(mine.pnl.to_numpy() - df.pnl.to_numpy()) < 1e-3).all()


@pytest.mark.parametrize("args, words", [
    (["--days", "/nonexistent/*.gz", *ARGS], "no file matches"),
    (["--days", "x", "--symbols", "AAPL", "--lengths", "5:10:1"], "out of range"),
    (["--days", "x", "--symbols", "AAPL", "--lengths", "banana"], "A:B:STEP"),
    (["--days", "x", "--symbols", "WAYTOOLONG", "--lengths", "6"], "--symbols"),
])
def test_bad_arguments(args, words):
    p = research(*args)
    assert p.returncode == 2
    assert words in p.stderr
