#!/bin/bash
# The floor responders (build/t2t-floor, bench/floor/) answer every tick with
# an order the exchange simulator takes, so that the latency benchmark's
# floor cannot rot: for AF_XDP and kernel UDP, every tick is answered once
# with an order the simulator accepted (not rejected or malformed) and
# acknowledged (t2t-latency-report check-floor); the capture log holds one
# record per order with every stage, and its wire to wire equals the
# simulator's own for the tokens' sequence numbers (so each token names the
# tick it answers); --answer-every 5 answers the first tick and then one in
# five; no XDP program is left attached.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-floor build/t2t-exsim build/t2t-capture build/t2t-latency-report

COUNT=2000

# floor_run NAME MODE [t2t-floor options]: one run, files $T_TMP/NAME.*
floor_run() {
	local name=$1 mode=$2
	shift 2
	rig_up
	bg "$name.fl" nsenter --net="$RIG_NETNS_GW" build/t2t-floor --mode "$mode" \
		-i "$RIG_IF_GW" --feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --cpu 1 --exit-on-end --duration 60 \
		--capture "$T_TMP/$name.capture.gz" --json "$T_TMP/$name.floor.json" "$@"
	if ! wait_for 10 grep -qs "hot loop on CPU" "$T_TMP/$name.fl.err"; then
		fail "t2t-floor $name did not start: $(tail -2 "$T_TMP/$name.fl.err")"
		return 1
	fi
	# One tick per packet: the floor answers each packet's first trade print.
	# The feed waits for the floor's login (its kernel TCP connect retries
	# with a backoff; ticks before it are not answered).
	ex_start "$name" --wait-login 5000 --source gbm --symbols AAPL,MSFT --count "$COUNT" --rate 2000 \
		--max-per-packet 1 --stamp mono --grace 1000
	check "$name: the simulator ran" ex_wait "$name"
	check "$name: the floor exited by itself after the end of session" \
		wait_for 10 bash -c "! kill -0 $(t_pid "$name.fl") 2>/dev/null"
	wait "$(t_pid "$name.fl")"
}

# wire to wire in the capture: count, min, p50, max (and hook->queued's count)
capture_w2w() {
	build/t2t-capture table --tsv "$1" | awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "send->ack" { printf "%d %d %d %d", $col["count"], $col["min"], $col["p50"],
				    $col["max"] }
		$1 == "hook->queued" { staged = $col["count"] }
		END { printf " %d\n", staged }'
}

answers() {	# answers MODE
	local ex f
	check "$1: exit 0" floor_run "$1" "$1"
	check "$1: every tick answered with an order the simulator took and acknowledged" \
		build/t2t-latency-report check-floor "$T_TMP/$1"
	read -r -a f < <(capture_w2w "$T_TMP/$1.capture.gz")
	expect_eq "$1: orders in the capture with every stage" "${f[4]}" "$COUNT"
	ex=$(j "$T_TMP/$1.ex.json" '.wire_to_wire_ns | "\(.count) \(.min) \(.p50) \(.max)"')
	expect_eq "$1: capture's wire to wire (count min p50 max) == the simulator's" \
		"${f[0]} ${f[1]} ${f[2]} ${f[3]}" "$ex"
}

test_xdp_answers() {
	answers xdp
	check "no XDP program left on $RIG_IF_GW" \
		bash -c "! nsenter --net='$RIG_NETNS_GW' ip link show '$RIG_IF_GW' | grep -q xdp"
}

test_udp_answers() {
	answers udp
}

test_answer_every() {
	check "exit 0" floor_run every xdp --answer-every 5
	check "the first tick then one in five answered, each order taken" \
		build/t2t-latency-report check-floor "$T_TMP/every"
	expect_eq "ticks answered" "$(j "$T_TMP/every.floor.json" .ticks)" $((COUNT / 5))
}

run_tests "$@"
