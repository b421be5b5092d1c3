#!/bin/bash
# The gateway's capture log on a rig of its own (scripts/paper-run.sh
# --capture), AF_XDP and kernel UDP blocking:
#   - zcat reads it; one record per order the gateway sent; the header names
#     the path, the rig and the rate, and a clock read cost;
#   - t2t-capture's table of it == the gateway's own latency figures;
#   - t_ack of every order == the simulator's kernel arrival stamp of it
#     (the rig's reply-Timestamp convention), and t_send == its send time.
# One paper run for the file.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest build/t2t-capture

TOOL=build/t2t-capture
OUT=$T_TMP/out
PATHS="af_xdp udp_block"

# run: the paper run, once.
run() {
	[ -e "$OUT/run.log" ] && return "$(cat "$OUT/run.rc")"
	mkdir -p "$OUT"
	rig_run "" scripts/paper-run.sh --paths af_xdp,udp_block --count 4000 --rate 8000 \
		--capture --out "$OUT" >"$OUT/run.log" 2>&1
	echo $? >"$OUT/run.rc"
	[ "$(cat "$OUT/run.rc")" = 0 ] || { cat "$OUT/run.log"; fail "paper-run failed"; return 1; }
}

test_capture_has_a_record_per_order_and_names_its_run() {
	local p cap sent
	run || return 1
	for p in $PATHS; do
		cap=$OUT/$p.capture.gz
		sent=$(jq .orders.sent "$OUT/$p.gw.json")
		check "$p: zcat reads the capture; $sent records (the orders sent)" \
			bash -c "[ \$(zcat '$cap' | grep -vc '^#') = $((sent + 1)) ] && [ $sent -gt 100 ]"
		check "$p: header names path, rig, rate and the clock read" \
			bash -c "zcat '$cap' | grep -qx '# path=$p' && zcat '$cap' | grep -qx '# rig=${T_RIG%% *}' &&
				zcat '$cap' | grep -qx '# rate=8000' && zcat '$cap' | grep -qE '^# clock_read_ns_p50=[1-9][0-9]*$'"
	done
}

# Every stage, the same figures from the capture: both compute them with
# order_stages() (latency/order_rec.h).
test_capture_table_equals_the_gateways_latency_figures() {
	local p cap
	run || return 1
	for p in $PATHS; do
		cap=$OUT/$p.capture.gz
		$TOOL table --json "$cap" | jq -S '.latency_ns | map_values({count, min, p50, p90, p99, "p99.9", max})' >"$OUT/$p.cap.lat"
		jq -S '.latency_ns | map_values({count, min, p50, p90, p99, "p99.9", max})' "$OUT/$p.gw.json" >"$OUT/$p.gw.lat"
		check "$p: t2t-capture table == the gateway's latency figures, stage by stage" \
			bash -c "jq -e 'keys | length == 9' '$OUT/$p.gw.lat' >/dev/null &&
				cmp -s '$OUT/$p.cap.lat' '$OUT/$p.gw.lat'"
	done
}

# Joined on the triggering sequence number (one order per tick at most).
test_capture_stamps_equal_the_simulators_send_and_arrival() {
	local p cap
	run || return 1
	for p in $PATHS; do
		cap=$OUT/$p.capture.gz
		$TOOL csv "$cap" | awk -F, 'NR > 1 { print $2, $9, $15 }' | sort >"$OUT/$p.cap.j"
		awk -F, 'NR > 1 && $2 != 0 { print $2, $7, $12 }' "$OUT/$p.ex_orders.csv" | sort >"$OUT/$p.ex.j"
		check "$p: t_send and t_ack of every order == the simulator's send time and kernel arrival" \
			bash -c "[ -s '$OUT/$p.ex.j' ] && cmp -s '$OUT/$p.cap.j' '$OUT/$p.ex.j'"
	done
}

run_tests "$@"
