#!/bin/bash
# The live view of a paper run: the AF_XDP gateway publishes its monitor
# segment while it trades against the exchange simulator on a rig of its
# own; t2t-top, t2t-monitor's /metrics (checked by promtool) and /api/state
# show the run as it moves, the dashboard is drawn in headless Chromium
# (build/monitor/dashboard.png, the README's picture), and once the feed has
# ended the segment agrees with the gateway's own summary and with the
# exchange: positions, orders, fills, the order events, the stages.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-top build/t2t-monitor promtool curl

SYMS=AAPL,MSFT,NVDA
# /api/state from the run's t2t-monitor.
state() {
	curl -sf "http://127.0.0.1:$MON_PORT/api/state"
}

test_live_view_of_a_paper_run() {
	rig_up
	gw_start run --monitor "$MON_NAME" --symbol AAPL:8 --symbol MSFT:12 --symbol NVDA:16 \
		--feed-clock mono --exit-on-end --grace 6 --duration 90 || return 1
	check "the segment exists while the gateway runs" test -e "/dev/shm/t2t-$MON_NAME"
	monitor_start || return 1
	# 20 s of feed at 3,000 ticks/s, noise 1: enough to watch it move, and
	# for a slow Chromium start to find the gateway still running.
	ex_start run --source gbm --stamp mono --symbols "$SYMS" --count 60000 --rate 3000 \
		--noise 1 --orders-log "$T_TMP/ex.orders.csv"

	sleep 2
	state >"$T_TMP/s1.json"
	build/t2t-top --name "$MON_NAME" --once >"$T_TMP/top.txt" 2>&1
	check "t2t-top --once shows every symbol" \
		bash -c "for s in ${SYMS//,/ }; do grep -q \"^\$s \" '$T_TMP/top.txt' || exit 1; done"
	check "t2t-top --once shows the feed and the stages" \
		bash -c "grep -q '^feed ' '$T_TMP/top.txt' && grep -q '^hook->queued ' '$T_TMP/top.txt'"
	curl -sf "http://127.0.0.1:$MON_PORT/metrics" >"$T_TMP/metrics.txt"
	check "/metrics passes promtool check metrics" \
		bash -c "promtool check metrics <'$T_TMP/metrics.txt' >'$T_TMP/promtool.txt' 2>&1"
	check "/metrics has the gateway's counters and stage histograms" \
		bash -c "grep -q '^t2t_feed_ticks_total [1-9]' '$T_TMP/metrics.txt' &&
			 grep -q '_bucket{.*le=\"+Inf\"}' '$T_TMP/metrics.txt'"

	if command -v node >/dev/null && [ -x /usr/bin/chromium ] &&
		{ [ -e tests/browser/node_modules/playwright-core ] ||
		  (cd tests/browser && timeout 300 npm ci --no-audit --no-fund --loglevel=error); }; then
		mkdir -p build/monitor
		check "the dashboard in Chromium during the run (build/monitor/dashboard.png)" \
			timeout 120 node tests/browser/dashboard.cjs "http://127.0.0.1:$MON_PORT/" \
			build/monitor/dashboard.png "$SYMS"
	else
		fail "node, Chromium or playwright-core missing (scripts/deps.sh, npm ci)"
	fi
	state >"$T_TMP/s2.json"
	check "the feed moved between two reads" \
		test "$(j "$T_TMP/s2.json" .counters.feed.ticks)" -gt "$(j "$T_TMP/s1.json" .counters.feed.ticks)"

	ex_wait run || fail "exsim: $(tail -2 "$T_TMP/run.ex.err")"
	# The feed has ended, the replies are in; the idle loop and the main
	# thread publish within 100 ms.
	sleep 1
	state >"$T_TMP/end.json"
	gw_wait run 20 || fail "the gateway exited $?: $(tail -2 "$T_TMP/run.gw.err")"
	check "the segment is gone after the gateway's exit" test ! -e "/dev/shm/t2t-$MON_NAME"

	local gw=$T_TMP/run.gw.json ex=$T_TMP/run.ex.json end=$T_TMP/end.json s
	for s in ${SYMS//,/ }; do
		expect_eq "$s position: segment == gateway == exchange" \
			"$(j "$end" ".symbols[] | select(.symbol == \"$s\") | .position") $(j "$gw" ".symbols[] | select(.symbol == \"$s\") | .position")" \
			"$(j "$ex" ".positions[] | select(.symbol == \"$s\") | .position") $(j "$ex" ".positions[] | select(.symbol == \"$s\") | .position")"
	done
	expect_eq "orders sent, filled: segment == gateway" \
		"$(j "$end" '.counters.orders | "\(.sent) \(.filled)"')" \
		"$(j "$gw" '.orders | "\(.sent) \(.filled)"')"
	check "orders were sent" test "$(j "$gw" .orders.sent)" -gt 20
	# One event per order sent, order filled (whole or in part), cancel and
	# reject.
	expect_eq "order events in the segment == orders + orders filled + cancels + rejects" \
		"$(j "$end" '.events.next')" \
		"$(j "$gw" '.orders | .sent + .filled + .canceled + .rejected')"
	expect_eq "hook->queued measured for every order in the segment and the summary" \
		"$(j "$end" '.latency_ns.stages[] | select(.stage == "hook->queued") | .all.count')" \
		"$(j "$gw" '.latency_ns["hook->queued"].count')"
}

run_tests "$@"
