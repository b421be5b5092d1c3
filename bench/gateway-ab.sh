#!/bin/bash
# What the book and the monitor cost the hot loop, in one run: the AF_XDP
# gateway trades GBM prints, each after one non-printing book message on
# average (adds, cancels, executions, deletes, replaces: t2t-exsim --noise 1),
# so that every configuration sends the same orders and only the work
# around them differs; on a rig of its own, three configurations taken in
# turn, three times each:
#   - books off (the book messages are skipped), no monitor segment;
#   - books of its symbols (the default), no monitor segment;
#   - books of its symbols, the monitor segment published and read at 10 Hz
#     (t2t-monitor, with /api/state fetched every 100 ms).
# and, on a feed of prints alone (--noise 0: the book has nothing to do but
# the tape), books off against books on: what keeping books costs a print.
# The table gives the medians of the runs' seen->queued (the loop's own work
# per order: decode, book, strategy, order on the TX ring) p50 and p99, and
# hook->queued p50.  Bounded: 40,000 ticks at 10,000/s per run.
#
#   bench/gateway-ab.sh [--runs N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh

runs=3
out=build/bench-gateway-ab
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "gateway-ab: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "gateway-ab: needs root" >&2; exit 2; }

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names gwab)
name=$prefix
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
gw_pid=
mon_pid=
poll_pid=
cleanup() {
	for p in "$poll_pid" "$mon_pid" "$gw_pid"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	"${rig[@]}" down >/dev/null 2>&1 || true
	rm -f "/dev/shm/t2t-$name"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null
mkdir -p "$out"
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"
port=$((20000 + $$ % 20000))

# run NAME WATCH NOISE [gateway options]: one run; WATCH=1 reads the
# segment at 10 Hz; NOISE book messages per print on average.
run() {
	local name_run=$1 watch=$2 noise=$3
	shift 3
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		--symbol AAPL:8 --symbol MSFT:12 --symbol NVDA:16 --cpu 1 --exit-on-end \
		--grace 1 --duration 120 -q --json "$out/$name_run.gw.json" "$@" \
		>"$out/$name_run.gw.txt" 2>"$out/$name_run.gw.err" &
	gw_pid=$!
	gw_wait_ready "$out/$name_run.gw.err" "$gw_pid" || { cat "$out/$name_run.gw.err" >&2; exit 1; }
	if [ "$watch" = 1 ]; then
		taskset -c 0 build/t2t-monitor --name "$name" --listen "127.0.0.1:$port" \
			>"$out/monitor.txt" 2>&1 &
		mon_pid=$!
		( while sleep 0.1; do curl -sf "http://127.0.0.1:$port/api/state" >/dev/null; done ) &
		poll_pid=$!
	fi
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --wait-login 5000 --noise "$noise" --symbols AAPL,MSFT,NVDA \
		--count 40000 --rate 10000 --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --cpu 0 -q --json "$out/$name_run.ex.json" \
		>"$out/$name_run.ex.txt" 2>&1
	gw_wait_exit "$gw_pid" 20 gateway-ab >/dev/null 2>&1 || true
	gw_pid=
	if [ "$watch" = 1 ]; then
		kill "$poll_pid" "$mon_pid" 2>/dev/null
		wait "$poll_pid" "$mon_pid" 2>/dev/null || true
		poll_pid= mon_pid=
	fi
}

for ((i = 1; i <= runs; i++)); do
	run "off$i" 0 1 --books off --monitor off
	run "book$i" 0 1 --monitor off
	run "mon$i" 1 1 --monitor "$name"
	run "poff$i" 0 0 --books off --monitor off
	run "pbook$i" 0 0 --monitor off
done

median() {	# median KIND JQ
	for ((i = 1; i <= runs; i++)); do
		jq -r "$2" "$out/$1$i.gw.json"
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "gateway-ab: 40,000 GBM ticks at 10,000/s, AF_XDP; medians of $runs runs (ns)"
echo
echo "| configuration | orders | seen->queued p50 | seen->queued p99 | hook->queued p50 |"
echo "|---|---:|---:|---:|---:|"
for k in off book mon poff pbook; do
	case $k in
	off) label="noise 1: books off, no monitor" ;;
	book) label="noise 1: books of its symbols, no monitor" ;;
	mon) label="noise 1: books, monitor read at 10 Hz" ;;
	poff) label="prints only: books off" ;;
	pbook) label="prints only: books of its symbols" ;;
	esac
	printf '| %s | %s | %s | %s | %s |\n' "$label" "$(median "$k" .orders.sent)" \
		"$(median "$k" '.latency_ns["seen->queued"].p50')" \
		"$(median "$k" '.latency_ns["seen->queued"].p99')" \
		"$(median "$k" '.latency_ns["hook->queued"].p50')"
done
