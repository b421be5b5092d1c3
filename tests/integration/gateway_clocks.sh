#!/bin/bash
# The feed's clock on both paths: the ITCH timestamp is the exchange's time
# of day unless both sides say it is this host's monotonic send time.
#  - time of day on both sides (the default, as a real feed): send->hook
#    and send->ack are "not measured" in the summary and the JSON, never a
#    count of 0; every other stage is measured; messages counted per ITCH
#    type;
#  - monotonic on both sides (the rig's measuring mode): send->ack measured
#    for every filled order, no stamp counted as foreign;
#  - the gateway told "mono" of a time-of-day feed: every order's stamp is
#    counted as not this host's clock and left out of the histograms.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim
taskset -pc 0 $$ >/dev/null

# run PATH NAME GW_CLOCK EX_STAMP: 3000 ticks at 3000/s, AAPL and MSFT.
run() {
	local path=$1 name=$2 clock=$3 stamp=$4 mode
	case $path in
	af_xdp) mode=(--mode xdp) ;;
	udp) mode=(--mode udp --udp-recv spin) ;;
	esac
	gw_start "$name" "${mode[@]}" --feed-source "$RIG_IP_EX" --symbol AAPL:12 \
		--symbol MSFT:20 --feed-clock "$clock" --exit-on-end --duration 60 || return 1
	# -q on the gateway keeps the status line quiet; the summary still prints
	ex_start "$name" --source gbm --symbols AAPL,MSFT --count 3000 --rate 3000 \
		--stamp "$stamp"
	ex_wait "$name" || fail "$name: exsim failed: $(tail -2 "$T_TMP/$name.ex.err")"
	gw_wait "$name" 20
}
g() { j "$T_TMP/$2.gw.json" "$1"; }

test_time_of_day_stamps_are_not_measured() {
	local p
	rig_up
	for p in af_xdp udp; do
		run "$p" "$p.tod" tod tod || continue
		expect_eq "$p: the JSON names the feed's clock" "$(g .feed_clock "$p.tod")" tod
		check "$p: orders were made ($(g .orders.sent "$p.tod"))" \
			[ "$(g .orders.sent "$p.tod")" -gt 20 ]
		for s in 'send->hook' 'send->ack'; do
			expect_eq "$p: $s not measured in the JSON" \
				"$(g ".latency_ns[\"$s\"].not_measured" "$p.tod")" true
			check "$p: $s not measured in the summary" \
				grep -qE "^  $s +not measured" "$T_TMP/$p.tod.gw.out"
		done
		expect_eq "$p: hook->queued measured for every order sent" \
			"$(g '.latency_ns["hook->queued"].count' "$p.tod")" "$(g .orders.sent "$p.tod")"
		expect_eq "$p: no stamp called foreign" "$(g .clock_mismatch "$p.tod")" 0
		expect_eq "$p: P messages counted by type == ticks published" \
			"$(g '.messages_by_type.P' "$p.tod")" "$(j "$T_TMP/$p.tod.ex.json" .ticks)"
		check "$p: the summary lists the types" \
			grep -qE '^types +.*P [0-9]+' "$T_TMP/$p.tod.gw.out"
	done
}

test_monotonic_stamps_on_both_sides_are_measured() {
	local p
	rig_up
	for p in af_xdp udp; do
		run "$p" "$p.mono" mono mono || continue
		expect_eq "$p: the JSON names the feed's clock" "$(g .feed_clock "$p.mono")" mono
		check "$p: send->ack measured for orders ($(g '.latency_ns["send->ack"].count' "$p.mono"))" \
			[ "$(g '.latency_ns["send->ack"].count' "$p.mono")" -gt 20 ]
		check "$p: send->hook measured" \
			[ "$(g '.latency_ns["send->hook"].count' "$p.mono")" -gt 20 ]
		expect_eq "$p: no stamp called foreign" "$(g .clock_mismatch "$p.mono")" 0
		expect_eq "$p: no clock error" "$(g .clock_errors "$p.mono")" 0
	done
}

test_a_feed_that_is_not_our_clock_is_counted_not_measured() {
	local p
	rig_up
	for p in af_xdp udp; do
		run "$p" "$p.bad" mono tod || continue
		expect_eq "$p: every order's stamp counted as not this host's" \
			"$(g .clock_mismatch "$p.bad")" "$(g .orders.sent "$p.bad")"
		expect_eq "$p: ... and left out of send->ack" \
			"$(g '.latency_ns["send->ack"].count' "$p.bad")" 0
		check "$p: the summary says so" \
			grep -q "stamps were not this host's clock (not measured)" "$T_TMP/$p.bad.gw.out"
	done
}

run_tests "$@"
