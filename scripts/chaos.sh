#!/bin/bash
# The seeded chaos harness: for each seed, a generated ITCH day is published
# by the exchange simulator over two lines (A and B) into the gateway
# (AF_XDP, or kernel UDP with --path udp), on a rig of its own, with faults drawn from the seed: per-line
# loss (up to 20 % on one line, in bursts of up to 100 packets; up to 5 % on
# the other), duplication, reordering, each line's delay and jitter, and
# sometimes a late start of the gateway.  Every run must end with
#   - the gateway's books equal to the exchange's: the digest over every
#     level of every symbol, printed by both, and by t2t-backtest --itch on the
#     same day;
#   - every message decoded exactly once, and every print (the tape);
#   - the gateway's orders equal to t2t-backtest --itch on the same day
#     (scripts/parity.sh), the session never stale.
# A failing seed prints the command that replays it alone.
#
#   scripts/chaos.sh [options]
#     --seeds N          seeds 1..N (default 10)
#     --seed S           this seed only
#     --messages N       messages in each day (default 200000)
#     --rate R           messages per second (default 40000)
#     --path P           af_xdp (default: the A/B rule in the XDP hook) or
#                        udp (kernel UDP, the same rule over two sockets)
#     --out DIR          results (default build/chaos)
# Exit 0 when every seed passed, 1 when one failed, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gw_ready.sh

seeds=10
only=
messages=200000
rate=40000
out=build/chaos
path=af_xdp
die() { echo "chaos: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || case $1 in -h|--help) ;; *) die "$1 needs a value" ;; esac
	case $1 in
	--seeds) seeds=$2; shift 2 ;;
	--seed) only=$2; shift 2 ;;
	--messages) messages=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--path) path=$2; shift 2 ;;
	-h|--help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
for v in seeds messages rate; do
	[[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v wants a positive integer"
done
[ -z "$only" ] || [[ "$only" =~ ^[0-9]+$ ]] || die "--seed wants a number"
[ "$messages" -le 5000000 ] || die "--messages: at most 5000000"
[ "$rate" -le 200000 ] || die "--rate: at most 200000"
case $path in
af_xdp) gw_mode=(--mode xdp) ;;
udp) gw_mode=(--mode udp --udp-recv spin) ;;
*) die "--path is af_xdp or udp" ;;
esac
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP)"
for b in build/t2t-gateway build/t2t-exsim build/t2t-backtest; do
	[ -x "$b" ] || die "$b is missing: run make first"
done

SYMS=AAPL,MSFT,NVDA,IBM,ORCL,INTC
GW_SYMS=(--symbol AAPL:16 --symbol MSFT:20 --symbol NVDA:24)
. scripts/rig_names.sh
read -r prefix subnet < <(rig_names chaos)
read -r _ subnet_b < <(rig_names chaos b)
rig=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet" --line-b "$subnet_b")
gw_pid=
ex_pid=
cleanup() {
	[ -n "$ex_pid" ] && kill "$ex_pid" 2>/dev/null
	[ -n "$gw_pid" ] && kill "$gw_pid" 2>/dev/null
	wait 2>/dev/null
	"${rig[@]}" down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM
taskset -pc 0 $$ >/dev/null

mkdir -p "$out"
"${rig[@]}" up >"$out/rig.log" || die "the rig did not come up"
eval "$("${rig[@]}" env)"

# The faults of seed S, drawn with awk's generator: shell words for exsim,
# then the late start in seconds, then line A's delay words (drawn last, so
# that the draws before them stay what they were before A had a delay).
draw() {
	awk -v s="$1" 'BEGIN {
		srand(s)
		heavy = rand() < 0.5 ? "a" : "b"
		la = heavy == "a" ? rand() * 0.20 : rand() * 0.05
		lb = heavy == "b" ? rand() * 0.20 : rand() * 0.05
		ba = 1 + int(rand() * (heavy == "a" ? 100 : 10))
		bb = 1 + int(rand() * (heavy == "b" ? 100 : 10))
		printf "--drop-rate %.4f --drop-burst %d --dup-rate %.4f --reorder-rate %.4f ",
			la, ba, rand() * 0.02, rand() * 0.02
		printf "--b-drop-rate %.4f --b-drop-burst %d --b-dup-rate %.4f --b-reorder-rate %.4f ",
			lb, bb, rand() * 0.02, rand() * 0.02
		printf "--b-delay-us %d --b-jitter-us %d\n", int(rand() * 200), int(rand() * 50)
		printf "%s\n", rand() < 0.5 ? 0 : 1 + int(rand() * 2)
		printf "--delay-us %d --jitter-us %d\n", int(rand() * 200), int(rand() * 50)
	}'
}

fails=0
run_seed() {
	local s=$1 d=$out/seed$1 faults late adelay ok=1 why=()
	mkdir -p "$d"
	rm -f "$d"/*
	{ read -r faults; read -r late; read -r adelay; } < <(draw "$s")
	faults="$faults $adelay"
	# A late joiner may be ready only after the day's end and then catches
	# up from the re-request server, which a real exchange keeps up all
	# day: this one keeps serving after its end of session until the
	# gateway is done (then SIGINT; its summary is written all the same).
	local grace=$((late > 0 ? 60000 : 100))
	build/t2t-exsim --gen-day "$d/day.bin" --messages "$messages" --symbols "$SYMS" \
		--seed "$s" >"$d/genday.txt" 2>&1 || { echo "chaos: seed $s: gen-day failed"; return 1; }
	build/t2t-backtest --itch "$d/day.bin" "${GW_SYMS[@]}" --stats="$d/bt.stats.json" \
		-o "$d/bt.csv" 2>"$d/bt.err" || { echo "chaos: seed $s: backtest failed"; return 1; }

	local gw=(nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW"
		--line-b "$RIG_IF_GW_B" --feed "$RIG_GROUP:$RIG_FEED_PORT"
		--feed-b "$RIG_GROUP_B:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX"
		--feed-source-b "$RIG_IP_EX_B" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT"
		"${gw_mode[@]}" "${GW_SYMS[@]}" --books all --cpu 1 --exit-on-end --grace 1 --duration 300 -q
		--monitor off --json "$d/gw.json" --orders-out "$d/gw.orders.csv")
	if [ "$late" = 0 ]; then
		"${gw[@]}" >"$d/gw.txt" 2>"$d/gw.err" &
		gw_pid=$!
		gw_wait_ready "$d/gw.err" "$gw_pid" || { echo "chaos: seed $s: gateway did not start"; return 1; }
	fi
	# shellcheck disable=SC2086 # the drawn faults are words
	ip netns exec "$RIG_NS_EX" build/t2t-exsim --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --line-b "$RIG_GROUP_B:$RIG_FEED_PORT" \
		--symbols "$SYMS" --seed "$s" --count "$messages" --rate "$rate" --fault-seed "$s" \
		$faults --linger 1000 --grace "$grace" --cpu 0 -q --json "$d/ex.json" \
		$([ "$late" = 0 ] && echo --wait-login 5000) \
		>"$d/ex.txt" 2>"$d/ex.err" &
	ex_pid=$!
	if [ "$late" != 0 ]; then
		sleep "$late"
		"${gw[@]}" >"$d/gw.txt" 2>"$d/gw.err" &
		gw_pid=$!
		gw_wait_ready "$d/gw.err" "$gw_pid" || { echo "chaos: seed $s: gateway did not start"; return 1; }
	fi
	if [ "$late" != 0 ]; then
		gw_wait_exit "$gw_pid" 70 "chaos: seed $s" >/dev/null 2>&1
		gw_pid=
		kill -INT "$ex_pid" 2>/dev/null
	fi
	wait "$ex_pid" || why+=("exsim failed: $(tail -1 "$d/ex.err")")
	ex_pid=
	if [ -n "$gw_pid" ]; then
		gw_wait_exit "$gw_pid" 60 "chaos: seed $s" >/dev/null 2>&1
		gw_pid=
	fi

	if [ ! -s "$d/gw.json" ] || [ ! -s "$d/ex.json" ]; then
		why+=("no summary: $(tail -1 "$d/gw.err")")
	else
		local gd ed bd
		gd=$(jq -r .book.digest "$d/gw.json")
		ed=$(jq -r .book.digest "$d/ex.json")
		bd=$(jq -r .digest "$d/bt.stats.json")
		[ "$gd" = "$ed" ] && [ "$gd" = "$bd" ] ||
			why+=("books differ: gateway $gd, exchange $ed, backtest $bd")
		[ "$(jq .feed.messages "$d/gw.json")" = "$(jq .messages "$d/ex.json")" ] ||
			why+=("messages: gateway $(jq .feed.messages "$d/gw.json"), published $(jq .messages "$d/ex.json")")
		[ "$(jq .book.prints "$d/gw.json")" = "$(jq .prints "$d/bt.stats.json")" ] ||
			why+=("prints: gateway $(jq .book.prints "$d/gw.json"), the day's $(jq .prints "$d/bt.stats.json")")
		[ "$(jq .gaps.stale "$d/gw.json")" = false ] || why+=("the session went stale")
		scripts/parity.sh "$d/bt.csv" "$d/gw.orders.csv" "$d/gw.json" >"$d/parity.txt" 2>&1 ||
			why+=("$(tail -1 "$d/parity.txt")")
	fi
	printf 'chaos: seed %-4s %-4s late %s s, A %s, B %s; gaps %s, re-requests %s%s\n' "$s" \
		"$([ ${#why[@]} -eq 0 ] && echo ok || echo FAIL)" "$late" \
		"$(awk '{print $2 "/" $4 ", " $22 "us"}' <<<"$faults")" "$(awk '{print $10 "/" $12 ", " $18 "us"}' <<<"$faults")" \
		"$(jq -r .gaps.opened "$d/gw.json" 2>/dev/null)" "$(jq -r .gaps.requests "$d/gw.json" 2>/dev/null)" \
		"$([ "$late" != 0 ] && jq -r '", caught up \(.gaps.catchup_msgs) in \(.gaps.catchup_ns / 1e6 | floor) ms"' "$d/gw.json" 2>/dev/null)"
	if [ ${#why[@]} -gt 0 ]; then
		printf '        %s\n' "${why[@]}"
		echo "        replay: scripts/chaos.sh --seed $s --messages $messages --rate $rate --path $path"
		ok=0
	fi
	[ "$ok" = 1 ]
}

if [ -n "$only" ]; then
	list=("$only")
else
	mapfile -t list < <(seq 1 "$seeds")
fi
echo "chaos: ${#list[@]} seed(s), days of $messages messages at $rate/s, two lines, rig $prefix"
for s in "${list[@]}"; do
	run_seed "$s" || fails=$((fails + 1))
done
echo "chaos: $((${#list[@]} - fails)) of ${#list[@]} seeds passed; results in $out/"
[ "$fails" -eq 0 ]
