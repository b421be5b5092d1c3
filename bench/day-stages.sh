#!/bin/bash
# make bench-day-stages: where the real-shaped day's in-gateway latency goes.
# On one rig of its own, the AF_XDP gateway trades the day replayed at its
# pace (t2t-exsim --replay) once per variant, each variant taking one
# ingredient away or changing it, and the floor (t2t-floor --answer-seqs:
# no decoder, book, strategy or risk) answers the same prints; the GBM
# workload (one tick per packet, 10,000/s) runs beside them as the yardstick,
# and once more in bursts of 50 packets back to back (the same mean rate):
# what a burst alone does to the loop and to its TX kick.
# Each run's stages come from its capture log (t2t-capture table); the table
# gives p50 / p99 per stage, µs, and the in-gateway p50 against the GBM one.
#
#   floor         the bare responder on the same replay: what the workload
#                 and the host cost with no decode, book or strategy at all
#   default       the gateway as it runs by default (--books ours)
#   books all     every symbol's book kept (the book's share)
#   4k pages      the books on 4 KB pages without THP (the TLB's share)
#   no warm       no idle-time cache warming (cold lines)
#   warm 16       warming every 16 idle spins instead of 64
#   monitor off   no live-state publication (the loop's housekeeping)
#   4k code       the program's code left on 4 KB pages (the instruction TLB)
#   orders 64k    an order table of 65,536 orders (128k slots, 2 MB) instead
#                 of 2 M (64 MB): its lookups' share in cache misses
#   gateway b     with --gateway-b BIN: another build of the gateway (say, the
#                 commit before a change) as it runs by default, on the day
#                 and on GBM, beside this one in every repetition
#
#   bench/day-stages.sh [--day FILE] [--speed X] [--reps N] [--out DIR]
#                       [--variants LIST] [--gateway-b BIN]
# Defaults: the demo's day (build/demo/day-real.bin.gz, made when missing),
# x1, 1 repetition (the variants interleaved in each), OUT build/bench-day,
# every variant (LIST: names with _ for spaces, comma-separated, e.g.
# floor,default,gateway_b).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh
. scripts/demo_day.sh

day=$DEMO_DAY
speed=1
reps=1
out=build/bench-day
symbols=(--symbol AAPL:20 --symbol MSFT:32 --symbol NVDA:48)
only=
gw_b=

die() { echo "day-stages: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--day) day=$2; shift 2 ;;
	--speed) speed=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--variants) only=",$2,"; shift 2 ;;
	--gateway-b) gw_b=$2; shift 2 ;;
	-h|--help) sed -n '2,33s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP)"
[ -z "$gw_b" ] || [ -x "$gw_b" ] || die "--gateway-b $gw_b: not an executable"
for b in build/t2t-gateway build/t2t-floor build/t2t-exsim build/t2t-backtest build/t2t-capture \
	 build/t2t-genday; do
	[ -x "$b" ] || die "$b is missing: run make first"
done
if [ ! -s "$day" ]; then
	[ "$day" = "$DEMO_DAY" ] || die "--day $day: no such file"
	demo_day || exit 2
fi

VARIANTS=(
	"floor|"
	"default|"
	"books all|--books all"
	"4k pages|--book-pages 4k"
	"no warm|--no-warm"
	"warm 16|--warm-every 16"
	"monitor off|--monitor off"
	"4k code|--no-huge-text"
	"orders 64k|--book-orders 65536"
)
[ -n "$gw_b" ] && VARIANTS+=("gateway b|")
if [ -n "$only" ]; then
	kept=()
	for v in "${VARIANTS[@]}"; do
		name=${v%%|*}
		[[ $only == *",${name// /_},"* ]] && kept+=("$v")
	done
	[ ${#kept[@]} -gt 0 ] || die "--variants ${only:1:-1}: none of them is a variant (see --help)"
	VARIANTS=("${kept[@]}")
fi

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names daystg)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
bg_pid=
cleanup() {
	if [ -n "$bg_pid" ]; then
		kill "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null || true
	fi
	"${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null
rm -rf "$out"
mkdir -p "$out"
build/t2t-backtest --itch "$day" "${symbols[@]}" --track named -o "$out/day.bt.csv" \
	2>"$out/day.bt.err" || die "t2t-backtest: $(tail -2 "$out/day.bt.err")"
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"
session=(--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --feed "$RIG_GROUP:$RIG_FEED_PORT"
	 --feed-source "$RIG_IP_EX" -i "$RIG_IF_GW" --cpu 1 --exit-on-end --duration 600)
ports=(--feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --cpu 0 -q)

# run DIR WORKLOAD(day|gbm|gbm_burst) RESPONDER(floor|gw|gw_b) [gateway options]
run() {
	local dir=$1 load=$2 resp=$3
	shift 3
	mkdir -p "$dir"
	if [ "$resp" = floor ]; then
		local want=()
		[ "$load" = day ] && want=(--answer-seqs "$out/day.bt.csv")
		nsenter --net="$RIG_NETNS_GW" build/t2t-floor --mode xdp "${session[@]}" \
			"${want[@]}" --capture "$dir/capture.gz" --json "$dir/resp.json" \
			2>"$dir/resp.err" &
	else
		local clock=() bin=build/t2t-gateway
		[ "$load" != day ] && clock=(--feed-clock mono)
		[ "$resp" = gw_b ] && bin=$gw_b
		nsenter --net="$RIG_NETNS_GW" "$bin" "${session[@]}" "${symbols[@]}" \
			"${clock[@]}" -q "$@" --capture "$dir/capture.gz" --json "$dir/resp.json" \
			>/dev/null 2>"$dir/resp.err" &
	fi
	bg_pid=$!
	gw_wait_ready "$dir/resp.err" "$bg_pid" || { cat "$dir/resp.err" >&2; return 1; }
	if [ "$load" = day ]; then
		ip netns exec "$RIG_NS_EX" build/t2t-exsim --replay "$day" --speed "$speed" \
			--wait-login 5000 --grace 1000 "${ports[@]}" --json "$dir/ex.json" \
			>"$dir/ex.txt" 2>&1
	else
		local burst=1
		[ "$load" = gbm_burst ] && burst=50
		ip netns exec "$RIG_NS_EX" build/t2t-exsim --source gbm --symbols AAPL,MSFT,NVDA \
			--count 20000 --rate 10000 --burst "$burst" --max-per-packet 1 --stamp mono \
			--wait-login 5000 \
			--grace 1000 "${ports[@]}" --json "$dir/ex.json" >"$dir/ex.txt" 2>&1
	fi
	gw_wait_exit "$bg_pid" 20 "day-stages: $resp" || true
	bg_pid=
	build/t2t-capture table --tsv "$dir/capture.gz" >"$dir/stages.tsv"
}

echo "day-stages: rig $prefix, $day at x$speed, $reps rep(s) of ${#VARIANTS[@]} variants + GBM"
for r in $(seq "$reps"); do
	echo "rep $r/$reps: gbm"
	run "$out/r$r/gbm-default" gbm gw
	run "$out/r$r/gbm-floor" gbm floor
	run "$out/r$r/gbm-burst" gbm_burst gw
	[ -n "$gw_b" ] && run "$out/r$r/gbm-b" gbm gw_b
	for v in "${VARIANTS[@]}"; do
		IFS='|' read -r name opts <<<"$v"
		echo "rep $r/$reps: day, $name"
		# shellcheck disable=SC2086 # the options are words
		if [ "$name" = floor ]; then
			run "$out/r$r/day-floor" day floor
		elif [ "$name" = "gateway b" ]; then
			run "$out/r$r/day-gateway_b" day gw_b
		else
			run "$out/r$r/day-${name// /_}" day gw $opts
		fi
	done
done

# The table: medians over repetitions of each run's p50 and p99, µs.
q() {	# q RUN STAGE COLUMN(5 = p50, 7 = p99): the median over reps, ns
	local f
	for f in "$out"/r*/"$1"/stages.tsv; do
		awk -F'\t' -v s="$2" -v c="$3" '$1 == s { print $c }' "$f"
	done | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'
}
us() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f / %.2f", a / 1000, b / 1000 }'; }
stages=("hook->seen" "seen->decided" "decided->queued" "hook->queued" "queued->sent")
gbm50=$(q gbm-default "hook->queued" 5)
{
	echo "| run | hook->seen | seen->decided | decided->queued | in-gw (hook->queued) | queued->sent (the kick) | in-gw p50 / GBM gateway's |"
	echo "|-----|---:|---:|---:|---:|---:|---:|"
	rows=("GBM, gateway|gbm-default" "GBM, floor|gbm-floor" "GBM in bursts of 50, gateway|gbm-burst")
	[ -n "$gw_b" ] && rows+=("GBM, gateway b|gbm-b")
	for v in "${VARIANTS[@]}"; do
		IFS='|' read -r name _ <<<"$v"
		rows+=("day, $name|day-${name// /_}")
	done
	for row in "${rows[@]}"; do
		IFS='|' read -r label dir <<<"$row"
		printf '| %s |' "$label"
		for s in "${stages[@]}"; do
			printf ' %s |' "$(us "$(q "$dir" "$s" 5)" "$(q "$dir" "$s" 7)")"
		done
		awk -v a="$(q "$dir" "hook->queued" 5)" -v b="$gbm50" 'BEGIN { printf " %.2f |\n", a / b }'
	done
} | tee "$out/day-stages.md"
echo
echo "p50 / p99 per stage, µs, medians over $reps repetition(s); $(date -u +%Y-%m-%dT%H:%M:%SZ)," \
	"$(nproc --all) CPUs, kernel $(uname -r); runs in $out/"
