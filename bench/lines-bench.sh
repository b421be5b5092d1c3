#!/bin/bash
# What the second feed line buys: line A loses 5 % of its packets, line B
# carries every packet 30 us behind A.  The AF_XDP gateway runs on both
# lines (the hook keeps the first copy) and on line A alone (the losses are
# re-requested), alternating, three times each, on one rig of its own (torn
# down at exit); the exchange simulator measures wire-to-wire (tick sent ->
# order arrived, kernel stamps) and the table gives the medians of the three
# runs' p50 / p99 / p99.9, the gaps opened and the re-requests.  Bounded:
# 20,000 ticks at 5,000/s per run.
#
#   bench/lines-bench.sh [--runs N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh

runs=3
out=build/bench-lines
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "lines-bench: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "lines-bench: needs root" >&2; exit 2; }

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names lines)
read -r _ subnet_b < <(rig_names lines b)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet" --line-b "$subnet_b")
gw_pid=
cleanup() {
	[ -n "$gw_pid" ] && kill "$gw_pid" 2>/dev/null
	"${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null
mkdir -p "$out"
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"

# run NAME [gateway options]: one paper run; exsim always publishes both lines.
run() {
	local name=$1
	shift
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		--symbol AAPL:8 --symbol MSFT:12 --feed-clock mono --cpu 1 --exit-on-end \
		--grace 1 --duration 60 -q --monitor off --json "$out/$name.gw.json" "$@" \
		>"$out/$name.gw.txt" 2>"$out/$name.gw.err" &
	gw_pid=$!
	gw_wait_ready "$out/$name.gw.err" "$gw_pid" || { cat "$out/$name.gw.err" >&2; exit 1; }
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --wait-login 5000 --stamp mono --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --symbols AAPL,MSFT \
		--count 20000 --rate 5000 --max-per-packet 1 --drop-rate 0.05 \
		--line-b "$RIG_GROUP_B:$RIG_FEED_PORT" --b-delay-us 30 --cpu 0 -q \
		--json "$out/$name.ex.json" >"$out/$name.ex.txt" 2>&1
	gw_wait_exit "$gw_pid" 20 lines-bench >/dev/null 2>&1 || true
	gw_pid=
}

for ((i = 1; i <= runs; i++)); do
	run "ab$i" --line-b "$RIG_IF_GW_B" --feed-b "$RIG_GROUP_B:$RIG_FEED_PORT"
	run "a$i"
done

# median KIND JQ: the median over the runs of one figure.
median() {
	local kind=$1 q=$2
	for ((i = 1; i <= runs; i++)); do
		jq -r "$q" "$out/$kind$i.${3:-ex}.json"
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "lines-bench: line A loses 5%, line B every packet 30 us later; medians of $runs runs"
echo "(20,000 ticks at 5,000/s, one per packet), wire-to-wire at the exchange, us"
echo
echo "| gateway on | p50 | p99 | p99.9 | gaps opened | re-requests |"
echo "|---|---:|---:|---:|---:|---:|"
for kind in ab a; do
	printf '| %s | %s | %s | %s | %s | %s |\n' \
		"$([ "$kind" = ab ] && echo "lines A and B" || echo "line A alone")" \
		"$(median "$kind" '.wire_to_wire_ns.p50 / 1000')" \
		"$(median "$kind" '.wire_to_wire_ns.p99 / 1000')" \
		"$(median "$kind" '.wire_to_wire_ns.p99_9 / 1000')" \
		"$(median "$kind" '.gaps.opened' gw)" "$(median "$kind" '.gaps.requests' gw)"
done
