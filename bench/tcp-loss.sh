#!/bin/bash
# How soon a lost order is sent again, and what the loss costs the trading:
# the rig loses 3 % of its frames each way (the target's case), then the
# same with duplicates (1 %) and reordering (5 %, by 200 us: the faults of
# issue 40's held-out exchange; the rig's reordering queues the frames it
# delays in a slow class, so a reply can wait milliseconds), and the
# gateway trades GBM ticks through scripts/paper-run.sh (parity,
# reconciliation, every reply once) on its own TCP, then on kernel TCP,
# --runs times each, alternating, on one rig of its own (torn down at
# exit).  Two captures in
# the exchange's namespace say which of the gateway's frames were lost: the
# exchange veth's ingress sees every frame the gateway sent, the ifb that
# carries them through the loss only those that got through.  For each
# lost frame holding an order (a payload of 52 bytes or more), the resend
# time is the time from it to the next frame of the connection that
# carries its first byte again.  Printed per fault mix and stack: lost
# order frames, resend time p50 / p90 / p99 / max, frames never sent
# again, and the share of strategy changes traded at their print (parity's
# "exactly").  Bounded: 6,000 ticks at 3,000/s per run, 4 x --runs runs.
#
#   bench/tcp-loss.sh [--runs N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
out=build/bench-tcp-loss
mixes=("loss 3%" "loss 3% duplicate 1% reorder 5% delay 200us")
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "tcp-loss: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "tcp-loss: needs root (namespaces, XDP)" >&2; exit 2; }
for b in build/t2t-gateway build/t2t-exsim build/t2t-backtest; do
	[ -x "$b" ] || { echo "tcp-loss: $b is missing: run make first" >&2; exit 2; }
done
for t in tcpdump tshark jq; do
	command -v "$t" >/dev/null || { echo "tcp-loss: $t is missing (scripts/deps.sh)" >&2; exit 2; }
done

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names tcploss)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	"${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null
rm -rf "$out"
mkdir -p "$out"
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"

# capture IF FILE: the gateway's segments to the order port, as IF sees them.
capture() {
	ip netns exec "$RIG_NS_EX" tcpdump -i "$1" --immediate-mode -B 32768 -s 128 -n -w "$2" \
		"tcp dst port $RIG_ORDER_PORT" 2>"$2.err" &
	pids+=($!)
}

# frames PCAP: time, IP id, source port, sequence number, payload length.
frames() {
	tshark -r "$1" -o tcp.relative_sequence_numbers:FALSE -T fields -E separator=' ' \
		-e frame.time_epoch -e ip.id -e tcp.srcport -e tcp.seq -e tcp.len 2>/dev/null
}

# run NAME STACK: one paper run with both captures; the resend times of its
# lost order frames in NAME.resend (ms, one a line), the never-resent count
# in NAME.unresent, parity's line in NAME.parity.
run() {
	local name=$1 stack=$2 paths=af_xdp extra=()
	[ "$stack" = kernel ] && extra=(--gw-extra "--order-stack kernel")
	pids=()
	capture "$RIG_IF_EX" "$out/$name.all.pcap"
	capture "$RIG_IFB_EX" "$out/$name.passed.pcap"
	sleep 0.5
	scripts/paper-run.sh --prefix "$prefix" --subnet "$subnet" --keep-rig --paths "$paths" \
		--count 6000 --rate 3000 --symbols AAPL:8,MSFT:10,NVDA:12 --expect-gaps \
		"${extra[@]}" --out "$out/$name" >"$out/$name.log" 2>&1 ||
		echo "tcp-loss: $name: paper-run found a failure (see $out/$name.log)" >&2
	sleep 0.5
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
	grep -o 'parity: [0-9]* strategy orders: [0-9]* exactly[^;]*' "$out/$name.log" >"$out/$name.parity" || true
	frames "$out/$name.passed.pcap" >"$out/$name.passed"
	frames "$out/$name.all.pcap" | awk -v passed="$out/$name.passed" \
		-v unresent="$out/$name.unresent" '
		BEGIN { while ((getline l < passed) > 0) { split(l, f, " "); ok[f[3] " " f[2]] = 1 } }
		!(($3 " " $2) in seen) {	# a duplicate the fault made: once
			seen[$3 " " $2] = 1; n++; t[n] = $1; id[n] = $2; port[n] = $3
			seq[n] = $4; len[n] = $5 }
		END {
			for (i = 1; i <= n; i++) {
				if (len[i] < 52 || ((port[i] " " id[i]) in ok))
					continue
				for (j = i + 1; j <= n; j++)
					if (port[j] == port[i] && len[j] > 0 &&
					    (seq[i] - seq[j] + 4294967296) % 4294967296 < len[j])
						break
				if (j > n) { never++; continue }
				printf "%.3f\n", (t[j] - t[i]) * 1000
			}
			print never + 0 > unresent
		}' | sort -n >"$out/$name.resend"
}

# pct FILE P: the P-th percentile (nearest rank) of a sorted column.
pct() {
	awk -v p="$2" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		k = int((p * NR + 99) / 100); if (k < 1) k = 1; print v[k] }' "$1"
}

# report MIX: the table's rows for the runs of fault mix MIX (files m<MIX>-*).
report() {
	local m=$1 stack unresent traded
	for stack in own kernel; do
		cat "$out/m$m-$stack"[0-9]*.resend | sort -n >"$out/m$m-$stack.resend"
		unresent=$(cat "$out/m$m-$stack"[0-9]*.unresent | awk '{ s += $1 } END { print s + 0 }')
		traded=$(cat "$out/m$m-$stack"[0-9]*.parity | awk '{ n += $2; x += $5 }
			END { if (n) printf "%d/%d %.1f%%", x, n, 100 * x / n; else print "-" }')
		printf '%-6s %-10s %6d %8s %8s %8s %8s %8d %14s\n' "$m" "$stack" \
			"$(wc -l <"$out/m$m-$stack.resend")" "$(pct "$out/m$m-$stack.resend" 50)" \
			"$(pct "$out/m$m-$stack.resend" 90)" "$(pct "$out/m$m-$stack.resend" 99)" \
			"$(awk 'END { print NR ? $1 : "-" }' "$out/m$m-$stack.resend")" "$unresent" "$traded"
	done
}

for m in "${!mixes[@]}"; do
	"${rig[@]}" netem "${mixes[m]}" --dir both >>"$out/rig.log"
	for i in $(seq "$runs"); do
		run "m$m-own$i" own
		run "m$m-kernel$i" kernel
	done
done
"${rig[@]}" netem off >>"$out/rig.log"

echo "tcp-loss: rig $prefix ($subnet), $runs run(s) per stack and fault mix, 6000 ticks at 3000/s; mixes, both ways:"
for m in "${!mixes[@]}"; do
	echo "  $m: ${mixes[m]}"
done
printf '%-6s %-10s %6s %8s %8s %8s %8s %8s %14s\n' mix stack lost p50_ms p90_ms p99_ms max_ms \
	unresent traded_at_print
for m in "${!mixes[@]}"; do
	report "$m"
done
echo "own TCP, per run (probes, spurious, RTOs, PTO at the end, cwnd stalls):"
for m in "${!mixes[@]}"; do
	for i in $(seq "$runs"); do
		jq -r '"  mix '"$m"' run '"$i"': \(.tcp.tail_loss_probes) probes, \(.tcp.spurious_probes) spurious, \(.tcp.rto_expiries) RTOs, PTO \(.tcp.pto_ns / 1e6) ms, \(.tcp.cwnd_stalls) cwnd stalls, \(.orders.sent) orders"' \
			"$out/m$m-own$i/af_xdp.gw.json" 2>/dev/null || echo "  mix $m run $i: no report"
	done
done
