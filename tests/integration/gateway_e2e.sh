#!/bin/bash
# End to end on a rig of its own, for each path (AF_XDP, kernel UDP spin and
# blocking): ticks sent == ticks decoded, the gateway's orders == the
# backtester's on the recorded ticks, positions and cash reconciled with the
# exchange simulator, no XDP program left behind (scripts/paper-run.sh does
# the checks).
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

# Several messages per packet and non-trade noise that must be skipped.
test_every_path_trades_the_backtesters_orders_and_reconciles() {
	check "paper-run: af_xdp, udp_spin, udp_block" rig_run "" scripts/paper-run.sh \
		--count 6000 --rate 5000 --noise 0.5 --symbols AAPL:12,MSFT:20:50,NVDA:48 --out "$T_TMP"
}

run_tests "$@"
