#!/bin/bash
# End to end on a rig of its own, for each path (AF_XDP, kernel UDP spin and
# blocking): ticks sent == ticks decoded, the gateway's orders == the
# backtester's on the recorded ticks, positions and cash reconciled with the
# exchange simulator, no XDP program left behind (scripts/paper-run.sh does
# the checks): on GBM prints with book noise, and on a generated ITCH day
# replayed at its own pace with the exchange's time-of-day stamps (the
# gateway trades the tape its books make; parity against t2t-backtest
# --itch on the same file).
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

# Several messages per packet and non-trade noise that must be skipped.
test_every_path_trades_the_backtesters_orders_and_reconciles() {
	check "paper-run: af_xdp, udp_spin, udp_block" rig_run "" scripts/paper-run.sh \
		--count 6000 --rate 5000 --noise 0.5 --symbols AAPL:12,MSFT:20:50,NVDA:48 --out "$T_TMP"
}

test_every_path_trades_a_replayed_day_like_the_backtester() {
	local p
	build/t2t-exsim --gen-day "$T_TMP/day.bin.gz" --messages 60000 --day-seconds 4 --seed 11 \
		--symbols AAPL,MSFT,NVDA,IBM >/dev/null || { fail "gen-day"; return; }
	check "paper-run --day: af_xdp, udp_spin, udp_block" rig_run d scripts/paper-run.sh \
		--day "$T_TMP/day.bin.gz" --speed 1 --symbols AAPL:12,MSFT:20 --out "$T_TMP/day"
	for p in af_xdp udp_spin udp_block; do
		expect_eq "$p: the feed's clock was the exchange's" \
			"$(j "$T_TMP/day/$p.gw.json" .feed_clock)" tod
		check "$p: executions (E) decoded and orders made on the tape" \
			[ "$(j "$T_TMP/day/$p.gw.json" '.messages_by_type.E // 0')" -gt 100 \
			  -a "$(j "$T_TMP/day/$p.gw.json" .orders.sent)" -gt 0 ]
	done
	# Reconciled above with the exchange: none of these reached the wire.
	check "af_xdp: idle turns sent dry orders ($(j "$T_TMP/day/af_xdp.gw.json" .xdp.dry_sends)), one per turn" \
		bash -c "[ '$(j "$T_TMP/day/af_xdp.gw.json" .xdp.dry_sends)' -gt 1000 ] &&
			 [ '$(j "$T_TMP/day/af_xdp.gw.json" .xdp.dry_sends)' = '$(j "$T_TMP/day/af_xdp.gw.json" .xdp.warm_turns)' ]"
}

run_tests "$@"
