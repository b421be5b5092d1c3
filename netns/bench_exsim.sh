#!/bin/bash
# bench-exsim: how fast exsim publishes and how closely it keeps its
# schedule, on a rig of its own (prefix ben<PID>, torn down on exit), with a
# plain kernel receiver in the gateway namespace checking every message.
#   - flat out (--rate 0), trades only and with 3 noise messages per trade;
#   - steady rates from 1,000 to 200,000 ticks/s, about 1-2 s each.
# Figures: achieved ticks/s and messages/s, packets/s, ticks per packet,
# send lag (actual - intended send time) percentiles, the send() call, and
# whether the receiver got everything in order.  Bounded: ~15 s in all.
set -u
cd "$(dirname "$0")/.." || exit 1
. scripts/rig_names.sh
read -r P SUBNET < <(rig_names bench_exsim)
TMP=$(mktemp -d)
recv_pid=

rig() {
	./netns/rig.sh --prefix "$P" --subnet "$SUBNET" "$@"
}
cleanup() {
	[ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null && wait "$recv_pid" 2>/dev/null
	rig down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-exsim: must run as root" >&2; exit 1; }
rig up >/dev/null || exit 1
eval "$(rig env)"

# run LABEL [exsim options]
run() {
	local label=$1 res
	shift
	rm -f "$TMP/recv"	# no stale "joined" from the previous run
	ip netns exec "$RIG_NS_GW" timeout 120 ./build/tools/feed_recv --timeout-ms 5000 \
		"$RIG_GROUP" "$RIG_FEED_PORT" "$RIG_IP_GW" >"$TMP/recv" 2>&1 &
	recv_pid=$!
	for _ in $(seq 50); do grep -qs '^joined$' "$TMP/recv" && break; sleep 0.1; done
	ip netns exec "$RIG_NS_EX" timeout 120 ./build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --linger 0 \
		--json "$TMP/j" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; return; }
	wait "$recv_pid"
	recv_pid=
	res=$(sed -n 's/^result=//p' "$TMP/recv")
	jq -r --arg l "$label" --arg r "$res" '
		def us(x): (x / 1000 * 10 | round / 10 | tostring);
		[$l, (.achieved_tps | round | tostring),
		 ((.messages / .publish_s) | round | tostring),
		 ((.data_packets / .publish_s) | round | tostring),
		 ((.ticks / .data_packets * 10 | round / 10) | tostring),
		 (if .rate_tps > 0 then us(.send_lag_ns.p50) + " / " + us(.send_lag_ns.p99) + " / " +
		  us(.send_lag_ns.p99_9) + " / " + us(.send_lag_ns.max) else "-" end),
		 us(.send_call_ns.p50) + " / " + us(.send_call_ns.p99),
		 $r] | @tsv' "$TMP/j"
}

{
	printf 'run\tticks/s\tmsgs/s\tpackets/s\tticks/packet\tlag us p50/p99/p99.9/max\tsend() us p50/p99\treceiver\n'
	run "flat out" --rate 0 --count 2000000
	run "flat out, noise 3" --rate 0 --count 500000 --noise 3
	run "1000/s" --rate 1000 --count 2000
	run "10000/s" --rate 10000 --count 20000
	run "100000/s" --rate 100000 --count 200000
	run "200000/s" --rate 200000 --count 400000
	run "200000/s, 1/packet max" --rate 200000 --count 200000 --max-per-packet 1
} | column -t -s "$(printf '\t')"
