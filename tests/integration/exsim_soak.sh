#!/bin/bash
# The short soak: scripts/soak.sh for 10 s at 50,000 ticks/s (packed, noise
# 1) over AF_XDP against the gateway, on a rig of its own: zero loss,
# counters consistent on both sides, parity with the backtester, RSS flat
# after the warm-up, latency per 5 s window printed.  make soak runs the
# long one (60 s at 100,000 ticks/s).
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

test_ten_seconds_at_50000_ticks_lose_nothing_and_stay_flat() {
	check "soak.sh: 10 s at 50,000 ticks/s" rig_run "" scripts/soak.sh \
		--seconds 10 --rate 50000 --window 5 --warmup 4 --out "$T_TMP"
}

run_tests "$@"
