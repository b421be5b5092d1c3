#!/bin/bash
# A transient overload must cost at most its own length, never the session.
# At 300,000 ticks/s (packed) the gateway is stopped (SIGSTOP: its core
# taken away) for 50 ms, then in a second run for 500 ms, which overflows
# its RX ring: the kernel's drops are reported (XDP_STATISTICS), and the
# gateway recovers by itself: the drops are holes, re-requested from the
# oldest, the held packets caught up; every published message is decoded
# exactly once, the session is never stale, the summary says how long the
# recovery took.  Ticks that came back later than --max-catchup are
# followed by the strategy but not traded, and listed; the next tick of
# each symbol puts its position back on the strategy's target
# (scripts/parity.sh).  Each test is a paper-run.sh on a rig of its own.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

# stall MS: the run with the gateway stopped MS ms, its results in
# $T_TMP/MS; the session never stale, recovered, the summary says how long.
stall() {
	local ms=$1 j rec
	check "$ms ms stall: paper-run" rig_run "${ms:0:1}" scripts/paper-run.sh \
		--paths af_xdp --count 900000 --rate 300000 --symbols AAPL:12,MSFT:20 \
		--ex-extra "--rerequest-rate 1000000 --rerequest-burst 100000" \
		--no-reconcile \
		--midrun "kill -STOP \$gw_pid; sleep 0.$(printf %03d "$ms"); kill -CONT \$gw_pid" \
		--out "$T_TMP/$ms"
	j=$T_TMP/$ms/af_xdp.gw.json
	rec=$(jq '.gaps.recovery_ns_max / 1e6 | floor' "$j")
	check "$ms ms stall: session never stale, recovered (longest recovery $rec ms)" \
		[ "$(jq '.gaps.stale' "$j")/$(jq '.gaps.recovering' "$j")" = false/false ]
	check "$ms ms stall: the summary says how long recovery took" \
		grep -q "longest recovery" "$T_TMP/$ms/af_xdp.gw.txt"
}

test_a_50_ms_stall_is_recovered() {
	stall 50
}

test_a_500_ms_stall_overflows_the_ring_and_is_recovered() {
	local j drops
	stall 500
	j=$T_TMP/500/af_xdp.gw.json
	drops=$(jq '.xdp.rx_dropped + .xdp.rx_ring_full + .xdp.rx_fill_ring_empty' "$j")
	check "500 ms stall: kernel drops ($drops) reported, and filled by re-requests ($(jq .gaps.requests "$j"))" \
		bash -c "[ $drops -gt 0 ] && [ $(jq .gaps.requests "$j") -gt 0 ] && grep -q rx_ring_full '$T_TMP/500/af_xdp.gw.txt'"
}

run_tests "$@"
