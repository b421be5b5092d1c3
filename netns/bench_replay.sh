#!/bin/bash
# bench-replay: how fast exsim replays a day file flat out (--replay DAY
# --speed max), from gzip and from plain, on a rig of its own (prefix
# ben<PID>r, torn down on exit) with a plain kernel receiver in the gateway
# namespace checking every message (feed_recv: sequence, lengths, counts);
# and how fast the generator writes a day (t2t-exsim --gen-day, plain and
# gzip).  Median of 3 runs of each, by messages/s; min and max shown.
#
#   netns/bench_replay.sh DAY.bin DAY.gz
#
# Bounded: a few seconds per run.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 2 ] || { echo "usage: $0 DAY.bin DAY.gz" >&2; exit 2; }
PLAIN=$1
GZ=$2
. scripts/rig_names.sh
read -r P SUBNET < <(rig_names bench_replay r)
TMP=$(mktemp -d)
recv_pid=
REPS=3

rig() {
	./netns/rig.sh --prefix "$P" --subnet "$SUBNET" "$@"
}
cleanup() {
	[ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null && wait "$recv_pid" 2>/dev/null
	rig down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-replay: must run as root" >&2; exit 1; }

# median LABEL: of the "msgs/s rest..." lines in $TMP/runs, by msgs/s, with min and max
median() {
	sort -n "$TMP/runs" | awk -v l="$1" '{ v[NR] = $0; r[NR] = $1 }
		END { split(v[int((NR + 1) / 2)], m, " "); printf "%s\t%d\t%s\t%s\t%s\t%d - %d\t%s\n",
			l, m[1], m[2], m[3], m[4], r[1], r[NR], m[5] }'
}

# One replay flat out; appends "msgs/s packets/s msgs/packet seconds receiver".
replay() {
	rm -f "$TMP/recv"
	ip netns exec "$RIG_NS_GW" timeout 120 ./build/tools/feed_recv --timeout-ms 5000 \
		"$RIG_GROUP" "$RIG_FEED_PORT" "$RIG_IP_GW" >"$TMP/recv" 2>&1 &
	recv_pid=$!
	for _ in $(seq 50); do grep -qs '^joined$' "$TMP/recv" && break; sleep 0.1; done
	ip netns exec "$RIG_NS_EX" timeout 120 ./build/t2t-exsim -q --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --linger 0 --grace 0 \
		--replay "$1" --speed max --cpu 0 --json "$TMP/j" >/dev/null 2>"$TMP/err" ||
		{ cat "$TMP/err" >&2; return 1; }
	wait "$recv_pid"
	recv_pid=
	jq -r --arg r "$(sed -n 's/^result=//p' "$TMP/recv")" '
		[((.messages / .publish_s) | round), ((.data_packets / .publish_s) | round),
		 ((.messages / .data_packets * 10 | round) / 10), (.publish_s * 1000 | round) / 1000,
		 $r] | map(tostring) | join(" ")' "$TMP/j" >>"$TMP/runs"
}

# One generation; appends "msgs/s bytes/s - seconds ok".
generate() {
	./build/t2t-exsim --gen-day "$TMP/gen$1" --messages "$2" --symbols 100 --seed 7 >"$TMP/g" ||
		return 1
	sed -n 's/.*generated  in \([0-9.]*\) s: \([0-9]*\) messages\/s/\2 - - \1 ok/p' "$TMP/g" \
		>>"$TMP/runs"
	rm -f "$TMP/gen$1"
}

n=$(./build/t2t-backtest --itch "$PLAIN" --stats | jq -r .messages)
rig up >/dev/null || exit 1
eval "$(rig env)"
echo "day: $PLAIN, $n messages ($(du -m "$PLAIN" | cut -f1) MB plain, $(du -m "$GZ" | cut -f1) MB gzip)"
{
	printf 'run\tmsgs/s\tpackets/s\tmsgs/packet\ts\tmsgs/s min - max\treceiver\n'
	for f in "$GZ" "$PLAIN"; do
		: >"$TMP/runs"
		for _ in $(seq $REPS); do replay "$f" || exit 1; done
		median "replay flat out, $( [ "$f" = "$GZ" ] && echo gzip || echo plain)"
	done
	for ext in .bin .gz; do
		: >"$TMP/runs"
		for _ in $(seq $REPS); do generate "$ext" 2000000 || exit 1; done
		median "gen-day 2 M messages, $( [ "$ext" = .gz ] && echo gzip || echo plain)"
	done
} | column -t -s "$(printf '\t')"
