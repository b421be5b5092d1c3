#!/bin/bash
# The gateway's throughput on a real-shaped open: a generated day with a
# real day's shape (t2t-genday --shape real) at the full-scale day's
# message rate (30 M messages over a 39-minute session: 12,800 a second on
# average, four times that in the open's first part, microbursts of
# thousands back to back), cut a minute after the open (t2t-exsim
# --replay-until: the pre-open's book, the opening cross, the open's
# burst), replayed into the gateway with the books of every symbol
# (--books all, paper mode: nothing but the feed) on both paths, at x1,
# at x10, then faster until a pace loses messages.  Loss is any packet the
# gateway did not take in order: a gap it opened (re-requested from the
# simulator), a drop in the ring or the socket.  On a rig of its own (torn
# down at exit); each run bounded by the slice (90 s at x1, 9 s at x10).
#
#   bench/day-load.sh [--paths xdp,udp] [--speeds "10 20 40 80 max"] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh

paths=xdp,udp
speeds="10 20 40 80 max"
out=build/bench-day-load
while [ $# -gt 0 ]; do
	case $1 in
	--paths) paths=$2; shift 2 ;;
	--speeds) speeds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "day-load: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "day-load: needs root" >&2; exit 2; }

# The session: 2,340 s from 09:30 (a tenth of a day's length and of its
# 300 M messages, so the rate is a full day's); its pre-open starts 30 s
# before; the slice ends at 09:31.
MESSAGES=30000000
SESSION_S=2340
UNTIL_S=$((34200 + 60))
mkdir -p "$out"
day=$out/real-30M-2340s-s3.bin
if [ ! -s "$day" ]; then
	echo "day-load: generating the real-shaped day ($MESSAGES messages, about 20 s)" >&2
	build/t2t-genday --shape real --messages "$MESSAGES" --duration "$SESSION_S" --seed 3 \
		--stats -o "$day" >"$day.stats"
fi

. scripts/rig_names.sh
read -r prefix subnet < <(rig_names dayload)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet")
gw_pid=
cleanup() {
	[ -n "$gw_pid" ] && kill "$gw_pid" 2>/dev/null
	"${rig[@]}" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null
"${rig[@]}" up >"$out/rig.log"
eval "$("${rig[@]}" env)"

# run PATH SPEED: one replay of the slice; prints "published lost rate_msgs_s"
run() {
	local p=$1 s=$2 name=$1-x$2 pub lost secs
	nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" --mode "$p" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --rerequest "$RIG_IP_EX:$RIG_REREQUEST_PORT" \
		--paper --books all --book-orders 4194304 \
		--symbol AAPL:20 --symbol MSFT:32 --symbol NVDA:48 --feed-clock mono --cpu 1 \
		--exit-on-end --grace 1 --duration 200 -q --monitor off \
		--json "$out/$name.gw.json" >"$out/$name.gw.txt" 2>"$out/$name.gw.err" &
	gw_pid=$!
	gw_wait_ready "$out/$name.gw.err" "$gw_pid" || { cat "$out/$name.gw.err" >&2; exit 1; }
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --replay "$day" --speed "$s" \
		--replay-until "$UNTIL_S" --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --rerequest-port "$RIG_REREQUEST_PORT" \
		--book-orders 4194304 --cpu 0 -q --json "$out/$name.ex.json" \
		>"$out/$name.ex.txt" 2>&1 || { cat "$out/$name.ex.txt" >&2; exit 1; }
	gw_wait_exit "$gw_pid" 60 day-load >/dev/null 2>&1 || true
	gw_pid=
	pub=$(jq -r .replay.published "$out/$name.ex.json")
	secs=$(jq -r .publish_s "$out/$name.ex.json")
	# lost: gaps opened (each a run of packets that did not arrive in
	# order: on the kernel path a socket's overflow shows only so), the
	# AF_XDP ring's drops, messages not decoded at the end
	lost=$(jq -r --argjson pub "$pub" '.gaps.opened + (.xdp.rx_dropped // 0) +
		(.xdp.rx_ring_full // 0) + ($pub - .feed.messages)' "$out/$name.gw.json")
	awk -v p="$pub" -v l="$lost" -v t="$secs" 'BEGIN { printf "%d %d %.0f\n", p, l, p / t }'
}

echo "day-load: $(date -u +%FT%TZ), $(nproc --all) CPUs, kernel $(uname -r)"
echo "real-shaped day: $MESSAGES messages over a ${SESSION_S} s session (seed 3), the slice to"
echo "09:31 (shape: $day.stats); gateway --paper --books all, 3 traded symbols"
echo
echo "| path | speed | messages | lost | messages/s | peak live orders (gateway) |"
echo "|---|---:|---:|---:|---:|---:|"
for p in ${paths//,/ }; do
	best=
	for s in 1 $speeds; do
		read -r pub lost rate < <(run "$p" "$s")
		peak=$(jq -r '.book.peak_orders // "?"' "$out/$p-x$s.gw.json")
		echo "| $p | x$s | $pub | $lost | $rate | $peak |"
		[ "$lost" -eq 0 ] && best="x$s ($rate messages/s)"
		# x1 and x10 are the targets; beyond, stop at the first loss
		[ "$lost" -eq 0 ] || [ "$s" = 1 ] || [ "$s" = 10 ] || break
	done
	echo "| $p | highest pace with zero loss: ${best:-none} | | | | |"
done
