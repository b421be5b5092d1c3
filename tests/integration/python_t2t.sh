#!/bin/bash
# The equivalence gate of libt2t and the t2t Python package (tests/python,
# pytest): t2t.sweep == t2t-backtest --prices and the batch reference on the
# reference workload; research_day == t2t-backtest --itch for every
# combination, order for order; backtest_day with paper fills ==
# t2t-backtest --itch --paper; read_capture == t2t-capture; t2t-research on a
# dask-scheduler with two dask-worker processes on localhost == one process;
# every bad input a Python exception.  Debian's python3 (scripts/deps.sh).
. "$(dirname "$0")/../lib.sh"
need build/libt2t.so build/t2t-backtest build/t2t-genday build/t2t-research build/t2t-capture \
	/usr/bin/python3 /usr/bin/dask-scheduler /usr/bin/dask-worker

test_pytest() {
	check "pytest tests/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
		--basetemp="$T_TMP/pytest" tests/python
}

run_tests "$@"
