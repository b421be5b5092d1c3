#!/bin/bash
# The floor responders (build/t2t-floor, bench/floor/) answer every tick with
# an order the exchange simulator takes, on a rig of their own, so that the
# latency benchmark's floor cannot rot:
#   - AF_XDP and kernel UDP: every tick answered once, every order accepted
#     (not rejected or malformed, its token naming the tick's sequence
#     number), every order acknowledged (t2t-latency-report check-floor);
#   - the capture log holds one record per order with every stage, and
#     wire to wire (send->ack) for each, equal to the simulator's own
#     wire to wire (its send time of the token's sequence number): the
#     token names the tick that was answered;
#   - --answer-every 5 answers the first tick and then one in five;
#   - the XDP program is detached after the responder exits.
. "$(dirname "$0")/gw_lib.sh"

for b in build/t2t-floor build/exsim build/t2t-capture build/t2t-latency-report; do
	[ -x "$b" ] || { echo "FAIL $b is missing: run make"; exit 1; }
done
gw_rig_up fl
count=2000

# floor_run NAME MODE [t2t-floor options]: one run, files $tmp/NAME.*
floor_run() {
	local name=$1 mode=$2
	shift 2
	nsenter --net="$RIG_NETNS_GW" build/t2t-floor --mode "$mode" -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --cpu 1 --exit-on-end --duration 60 \
		--capture "$tmp/$name.capture.gz" --json "$tmp/$name.floor.json" "$@" \
		2>"$tmp/$name.err" &
	gw_pid=$!
	if ! gw_wait_ready "$tmp/$name.err" "$gw_pid"; then
		cat "$tmp/$name.err"
		return 1
	fi
	ip netns exec "$RIG_NS_EX" build/exsim --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT \
		--count "$count" --rate 2000 --max-per-packet 1 --stamp mono -q \
		--json "$tmp/$name.ex.json" >"$tmp/$name.ex.txt" 2>&1 || return 1
	gw_wait_exit "$gw_pid" 10 "floor_answers: $name" || return 1
	gw_pid=
}

# orders in the capture with every stage, with send->ack, and its min, p50, max
capture_counts() {
	build/t2t-capture table --tsv "$1" | awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "send->ack" { w = $col["count"]; wl = $col["min"]; wm = $col["p50"]
				    wh = $col["max"] }
		$1 == "hook->queued" { g = $col["count"] }
		END { printf "%d %d %d %d %d\n", g, w, wl, wm, wh }'
}

for mode in xdp udp; do
	check "$mode: the floor ran and exited by itself after the end of session" \
		floor_run "$mode" "$mode"
	check "$mode: every tick answered with an order the exchange took and acknowledged" \
		build/t2t-latency-report check-floor "$tmp/$mode"
	read -r staged w2w lo mid hi < <(capture_counts "$tmp/$mode.capture.gz")
	check "$mode: capture holds $count orders with every stage ($staged) and wire to wire ($w2w)" \
		[ "$staged" = "$count" -a "$w2w" = "$count" ]
	ex=$(jq -r '.wire_to_wire_ns | "\(.count) \(.min) \(.p50) \(.max)"' "$tmp/$mode.ex.json")
	check "$mode: wire to wire min/p50/max $lo/$mid/$hi ns == the simulator's for the tokens' ticks ($ex)" \
		[ "$count $lo $mid $hi" = "$ex" ]
done

check "xdp: no XDP program left on $RIG_IF_GW" \
	bash -c "! nsenter --net='$RIG_NETNS_GW' ip link show '$RIG_IF_GW' | grep -q xdp"

check "xdp --answer-every 5: the responder ran" floor_run every xdp --answer-every 5
check "xdp --answer-every 5: the first tick then one in five answered, each order taken" \
	build/t2t-latency-report check-floor "$tmp/every"
check "xdp --answer-every 5: $((count / 5)) answered" \
	grep -q "\"ticks\": $((count / 5))," "$tmp/every.floor.json"

[ "$fails" -eq 0 ]
