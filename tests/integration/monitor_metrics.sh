#!/bin/bash
# t2t-monitor's /metrics and /api/state against t2t-monwriter:
#   - /metrics passes promtool check metrics (Debian's prometheus: its
#     parser and its lint) with no segment, with a running writer, after
#     the writer is gone and with a segment it refuses;
#   - the two answers agree: counters, positions, each stage's histogram
#     (+Inf bucket = _count = the JSON's count, cumulative buckets never
#     fall, _sum in seconds = the JSON's mean x count);
#   - the writer gone: t2t_up 0, the last values still served;
#   - a segment of an unknown layout version is refused with the message,
#     by t2t-monitor and by t2t-top.
. "$(dirname "$0")/../lib.sh"
need build/t2t-monitor build/t2t-monwriter build/t2t-top promtool curl

promtool_ok() {	# FILE
	if ! promtool check metrics <"$1" >"$T_TMP/promtool.out" 2>&1; then
		sed 's/^/     /' "$T_TMP/promtool.out" | head -20
		return 1
	fi
}

val() { awk -v m="$1" '$1 == m { print $2 }' "$T_TMP/end.prom"; }
same() {	# WHAT PROM_VALUE JSON_VALUE
	if [ "$2" = "$3" ] && [ -n "$2" ]; then return 0; fi
	echo "     $1: /metrics $2, /api/state $3"
	return 1
}
# Each stage: cumulative buckets never fall, +Inf = _count = the JSON's count, sum = mean x count.
stages_ok() {
	local bad
	bad=$(jq -r '.latency_ns.stages[] | "\(.stage) \(.all.count) \(.all.mean // 0)"' "$T_TMP/end.json" |
	while read -r stage count mean; do
		awk -v s="$stage" -v n="$count" -v mean="$mean" '
		index($0, "{stage=\"" s "\"") == 0 { next }
		/_bucket/ { if ($2 < prev) bad = bad " falls"; prev = $2; if ($0 ~ /le="\+Inf"/) inf = $2; nb++ }
		/_count/ { cnt = $2 } /_sum/ { sum = $2 }
		END {
			if (nb != 26 || inf != n || cnt != n) bad = bad " counts " nb "/" inf "/" cnt "/" n
			if (n && (sum * 1e9 < mean * n * 0.999 || sum * 1e9 > mean * n * 1.001)) bad = bad " sum"
			if (bad != "") print s ":" bad
		}' "$T_TMP/end.prom"
	done)
	[ -z "$bad" ] || { echo "     $bad"; return 1; }
	[ "$(jq '[.latency_ns.stages[].all.count] | add' "$T_TMP/end.json")" -gt 0 ]
}
# One t2t-monitor for the tests, started before the first writer.
monitor_start || exit 1

test_without_a_segment_t2t_up_is_0_and_api_state_says_why() {
	get /metrics >"$T_TMP/none.prom"
	check "no segment: t2t_up 0" grep -qx 't2t_up 0' "$T_TMP/none.prom"
	check "no segment: promtool check metrics" promtool_ok "$T_TMP/none.prom"
	check "no segment: /api/state says why" \
		sh -c "curl -sf http://127.0.0.1:$MON_PORT/api/state | jq -e '.ok == false and (.error | test(\"t2t-$MON_NAME\"))' >/dev/null"
}

# A writer running, then gone: its last values, frozen, from both endpoints.
test_a_writer_is_served_live_and_its_last_values_kept() {
	writer_start --rate 3000 --duration 3
	sleep 1.5
	get /metrics >"$T_TMP/live.prom"
	check "running: t2t_up 1" grep -qx 't2t_up 1' "$T_TMP/live.prom"
	check "running: promtool check metrics" promtool_ok "$T_TMP/live.prom"
	check "running: every stage a histogram of 26 buckets (1-2-5 from 100 ns to 10 s, +Inf)" \
		test "$(grep -c '^t2t_stage_latency_seconds_bucket' "$T_TMP/live.prom")" -eq $((9 * 26))

	# The writer gone: its last values, frozen, from both endpoints.
	wait "$writer_pid"
	get /metrics >"$T_TMP/end.prom"
	get /api/state >"$T_TMP/end.json"
	check "writer gone: t2t_up 0" grep -qx 't2t_up 0' "$T_TMP/end.prom"
	check "writer gone: /api/state alive false" \
		sh -c "jq -e '.ok and .segment.alive == false' $T_TMP/end.json >/dev/null"
	check "writer gone: promtool check metrics" promtool_ok "$T_TMP/end.prom"
}

test_metrics_agree_with_api_state() {
	local sym
	[ -s "$T_TMP/end.json" ] || test_a_writer_is_served_live_and_its_last_values_kept
	check "feed ticks agree" same ticks "$(val t2t_feed_ticks_total)" "$(jq .counters.feed.ticks "$T_TMP/end.json")"
	check "orders sent agree" same sent "$(val t2t_orders_sent_total)" "$(jq .counters.orders.sent "$T_TMP/end.json")"
	check "a flag is a 0/1 gauge" same kill "$(val t2t_orders_kill_switch)" 0
	check "recovery time in seconds" same recovery \
		"$(val t2t_gaps_recovery_seconds_total)" \
		"$(jq -r '.counters.gaps.recovery_ns_total / 1e9 | tostring' "$T_TMP/end.json" | awk '{ printf "%.9f", $1 }')"
	for sym in AAPL MSFT NVDA; do
		check "$sym position agrees" same "$sym" "$(val "t2t_position_shares{symbol=\"$sym\"}")" \
			"$(jq ".symbols[] | select(.symbol == \"$sym\") | .position" "$T_TMP/end.json")"
		check "$sym PnL agrees" same "$sym" "$(val "t2t_pnl_dollars{symbol=\"$sym\"}")" \
			"$(jq -r ".symbols[] | select(.symbol == \"$sym\") | .pnl" "$T_TMP/end.json" | awk '{ printf "%.4f", $1 }')"
	done

	check "stage histograms agree with /api/state" stages_ok
}

# A segment of a layout version nobody here knows.
test_an_unknown_layout_version_is_refused() {
	writer_start --rate 100 --duration 30
	printf '\143\000\000\000' | dd of="/dev/shm/t2t-$MON_NAME" bs=1 seek=8 conv=notrunc status=none
	{ kill -9 "$monitor_pid"; wait "$monitor_pid"; } 2>/dev/null
	monitor_start || return 1
	get /api/state >"$T_TMP/v99.json"
	check "version 99: /api/state refuses it, naming both versions" \
		sh -c "jq -e '.ok == false and (.error | test(\"layout version 99; this program reads version [0-9]+ only\"))' $T_TMP/v99.json >/dev/null"
	get /metrics >"$T_TMP/v99.prom"
	check "version 99: t2t_up 0" grep -qx 't2t_up 0' "$T_TMP/v99.prom"
	check "version 99: promtool check metrics" promtool_ok "$T_TMP/v99.prom"
	build/t2t-top --once --name "$MON_NAME" >"$T_TMP/top.out" 2>"$T_TMP/top.err"
	check "version 99: t2t-top --once exits 1" test $? -eq 1
	check "version 99: t2t-top says why" grep -q "has layout version 99" "$T_TMP/top.err"
}

run_tests "$@"
