#!/bin/bash
# The gateway's capture log on a rig of its own (scripts/paper-run.sh
# --capture), AF_XDP and kernel UDP blocking:
#   - zcat reads it; one record per order the gateway sent; the header names
#     the path, the rig and the rate, and a clock read cost;
#   - t2t-capture's table of it == the gateway's own latency figures;
#   - t_ack of every order == the simulator's kernel arrival stamp of it
#     (the rig's reply-Timestamp convention), and t_send == its send time.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/capture_gw.XXXXXX)
trap 'rm -rf "$out"' EXIT
tool=build/t2t-capture

scripts/paper-run.sh --prefix "cg$$" --subnet "10.$((120 + $$ % 40)).$(($$ % 250)).0/24" \
	--paths af_xdp,udp_block --count 4000 --rate 8000 --capture --out "$out" >"$out/run.log" 2>&1 || {
	cat "$out/run.log"
	echo "capture_gateway: paper-run failed"
	exit 1
}

fails=0
check() {	# check NAME CMD...
	local name=$1
	shift
	if "$@"; then echo "  ok   $name"; else echo "  FAIL $name"; fails=$((fails + 1)); fi
}

for p in af_xdp udp_block; do
	cap=$out/$p.capture.gz
	sent=$(jq .orders.sent "$out/$p.gw.json")
	check "$p: zcat reads the capture; $sent records (the orders sent)" \
		bash -c "[ \$(zcat '$cap' | grep -vc '^#') = $((sent + 1)) ] && [ $sent -gt 100 ]"
	check "$p: header names path, rig, rate and the clock read" \
		bash -c "zcat '$cap' | grep -qx '# path=$p' && zcat '$cap' | grep -qx '# rig=cg$$' &&
			zcat '$cap' | grep -qx '# rate=8000' && zcat '$cap' | grep -qE '^# clock_read_ns_p50=[1-9][0-9]*$'"

	# Every stage, the same figures from the capture: both compute them with
	# order_stages() (latency/order_rec.h).
	$tool table --json "$cap" | jq -S '.latency_ns | map_values({count, min, p50, p90, p99, "p99.9", max})' >"$out/$p.cap.lat"
	jq -S '.latency_ns | map_values({count, min, p50, p90, p99, "p99.9", max})' "$out/$p.gw.json" >"$out/$p.gw.lat"
	check "$p: t2t-capture table == the gateway's latency figures, stage by stage" \
		bash -c "jq -e 'keys | length == 9' '$out/$p.gw.lat' >/dev/null &&
			cmp -s '$out/$p.cap.lat' '$out/$p.gw.lat'"

	# Join on the triggering sequence number (one order per tick at most).
	$tool csv "$cap" | awk -F, 'NR > 1 { print $2, $9, $15 }' | sort >"$out/$p.cap.j"
	awk -F, 'NR > 1 && $2 != 0 { print $2, $7, $12 }' "$out/$p.ex_orders.csv" | sort >"$out/$p.ex.j"
	check "$p: t_send and t_ack of every order == the simulator's send time and kernel arrival" \
		bash -c "[ -s '$out/$p.ex.j' ] && cmp -s '$out/$p.cap.j' '$out/$p.ex.j'"
done
echo "capture_gateway: $fails failure(s)"
[ "$fails" -eq 0 ]
