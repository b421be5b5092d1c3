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
set -uo pipefail
. "$(dirname "$0")/monitor_lib.sh"
mon_setup mt
command -v promtool >/dev/null || { echo "FAIL promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }

promtool_ok() {	# FILE
	if ! promtool check metrics <"$1" >"$tmp/promtool.out" 2>&1; then
		sed 's/^/     /' "$tmp/promtool.out" | head -20
		return 1
	fi
}

monitor_start || exit 1

# No segment yet.
get /metrics >"$tmp/none.prom"
check "no segment: t2t_up 0" grep -qx 't2t_up 0' "$tmp/none.prom"
check "no segment: promtool check metrics" promtool_ok "$tmp/none.prom"
check "no segment: /api/state says why" \
	sh -c "curl -sf http://127.0.0.1:$port/api/state | jq -e '.ok == false and (.error | test(\"t2t-$name\"))' >/dev/null"

# A writer running.
writer_start --rate 3000 --duration 3
sleep 1.5
get /metrics >"$tmp/live.prom"
check "running: t2t_up 1" grep -qx 't2t_up 1' "$tmp/live.prom"
check "running: promtool check metrics" promtool_ok "$tmp/live.prom"
check "running: every stage a histogram of 26 buckets (1-2-5 from 100 ns to 10 s, +Inf)" \
	test "$(grep -c '^t2t_stage_latency_seconds_bucket' "$tmp/live.prom")" -eq $((9 * 26))

# The writer gone: its last values, frozen, from both endpoints.
wait "$writer_pid"
get /metrics >"$tmp/end.prom"
get /api/state >"$tmp/end.json"
check "writer gone: t2t_up 0" grep -qx 't2t_up 0' "$tmp/end.prom"
check "writer gone: /api/state alive false" \
	sh -c "jq -e '.ok and .segment.alive == false' $tmp/end.json >/dev/null"
check "writer gone: promtool check metrics" promtool_ok "$tmp/end.prom"

val() { awk -v m="$1" '$1 == m { print $2 }' "$tmp/end.prom"; }
same() {	# WHAT PROM_VALUE JSON_VALUE
	if [ "$2" = "$3" ] && [ -n "$2" ]; then return 0; fi
	echo "     $1: /metrics $2, /api/state $3"
	return 1
}
check "feed ticks agree" same ticks "$(val t2t_feed_ticks_total)" "$(jq .counters.feed.ticks "$tmp/end.json")"
check "orders sent agree" same sent "$(val t2t_orders_sent_total)" "$(jq .counters.orders.sent "$tmp/end.json")"
check "a flag is a 0/1 gauge" same kill "$(val t2t_orders_kill_switch)" 0
check "recovery time in seconds" same recovery \
	"$(val t2t_gaps_recovery_seconds_total)" \
	"$(jq -r '.counters.gaps.recovery_ns_total / 1e9 | tostring' "$tmp/end.json" | awk '{ printf "%.9f", $1 }')"
for sym in AAPL MSFT NVDA; do
	check "$sym position agrees" same "$sym" "$(val "t2t_position_shares{symbol=\"$sym\"}")" \
		"$(jq ".symbols[] | select(.symbol == \"$sym\") | .position" "$tmp/end.json")"
	check "$sym PnL agrees" same "$sym" "$(val "t2t_pnl_dollars{symbol=\"$sym\"}")" \
		"$(jq -r ".symbols[] | select(.symbol == \"$sym\") | .pnl" "$tmp/end.json" | awk '{ printf "%.4f", $1 }')"
done

# Each stage: cumulative buckets never fall, +Inf = _count = the JSON's count, sum = mean x count.
stages_ok() {
	local bad
	bad=$(jq -r '.latency_ns.stages[] | "\(.stage) \(.all.count) \(.all.mean // 0)"' "$tmp/end.json" |
	while read -r stage count mean; do
		awk -v s="$stage" -v n="$count" -v mean="$mean" '
		index($0, "{stage=\"" s "\"") == 0 { next }
		/_bucket/ { if ($2 < prev) bad = bad " falls"; prev = $2; if ($0 ~ /le="\+Inf"/) inf = $2; nb++ }
		/_count/ { cnt = $2 } /_sum/ { sum = $2 }
		END {
			if (nb != 26 || inf != n || cnt != n) bad = bad " counts " nb "/" inf "/" cnt "/" n
			if (n && (sum * 1e9 < mean * n * 0.999 || sum * 1e9 > mean * n * 1.001)) bad = bad " sum"
			if (bad != "") print s ":" bad
		}' "$tmp/end.prom"
	done)
	[ -z "$bad" ] || { echo "     $bad"; return 1; }
	[ "$(jq '[.latency_ns.stages[].all.count] | add' "$tmp/end.json")" -gt 0 ]
}
check "stage histograms agree with /api/state" stages_ok

# A segment of a layout version nobody here knows.
writer_start --rate 100 --duration 30
printf '\143\000\000\000' | dd of="/dev/shm/t2t-$name" bs=1 seek=8 conv=notrunc status=none
{ kill -9 "$monitor_pid"; wait "$monitor_pid"; } 2>/dev/null
monitor_start || exit 1
get /api/state >"$tmp/v99.json"
check "version 99: /api/state refuses it, naming both versions" \
	sh -c "jq -e '.ok == false and (.error | test(\"layout version 99; this program reads version 1 only\"))' $tmp/v99.json >/dev/null"
get /metrics >"$tmp/v99.prom"
check "version 99: t2t_up 0" grep -qx 't2t_up 0' "$tmp/v99.prom"
check "version 99: promtool check metrics" promtool_ok "$tmp/v99.prom"
build/t2t-top --once --name "$name" >"$tmp/top.out" 2>"$tmp/top.err"
check "version 99: t2t-top --once exits 1" test $? -eq 1
check "version 99: t2t-top says why" grep -q "has layout version 99" "$tmp/top.err"

echo "monitor_metrics: $fails failed"
[ "$fails" -eq 0 ]
