#!/bin/bash
# exsim's command line and the modes the rig tests do not drive:
# - --help; every bad flag or value refused (exit 2) with a message naming it;
# - a multicast feed outside a named network namespace refused;
# - bad addresses at run time (no route, an order address not here): exit 1
#   with the reason;
# - a unicast feed over loopback received complete and in order; bursts
#   packed; --rate 0 with --duration stopping on time; SIGINT ending a run
#   with the summary and end of session.
# The run-time part executes in a private network namespace (unshare -n),
# which vanishes with its processes: nothing reaches any real network.
set -u
cd "$(dirname "$0")/../.." || exit 1
EXSIM=./build/exsim
RECV=./build/netns/feed_recv
# The private-namespace half runs as "$0 inner TMPDIR" and shares the directory.
if [ "${1:-}" = inner ]; then
	TMP=$2
else
	TMP=$(mktemp -d)
fi
failures=0
recv_pid=
sim_pid=

cleanup() {
	[ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null && wait "$recv_pid" 2>/dev/null
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
	[ "${1:-}" = inner ] || rm -rf "$TMP"
}
trap 'cleanup "${1:-}"' EXIT

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# refused EXIT SUBSTRING ARGS...: exsim exits EXIT with SUBSTRING on stderr.
refused() {
	local want=$1 msg=$2 rc
	shift 2
	"$EXSIM" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$TMP/err"; then
		ok "exsim $* -> exit $rc: $(head -1 "$TMP/err")"
	else
		fail "exsim $*: exit $rc, stderr '$(head -1 "$TMP/err")' (want exit $want and '$msg')"
	fi
}

# start_recv PORT [options]: loopback receiver, returns once it listens.
start_recv() {
	local port=$1
	shift
	# Gone first: the redirect truncates only once the child runs, and a
	# stale "joined" would let the simulator start before the bind.
	rm -f "$TMP/recv"
	"$RECV" "$@" --timeout-ms 5000 127.0.0.1 "$port" >"$TMP/recv" 2>&1 &
	recv_pid=$!
	for _ in $(seq 50); do
		grep -qs '^joined$' "$TMP/recv" && return 0
		sleep 0.1
	done
	fail "feed_recv did not start: $(cat "$TMP/recv")"
	return 1
}

# finish_recv WHAT TICKS: the receiver saw the whole session, in order.
finish_recv() {
	wait "$recv_pid"
	local rc=$?
	recv_pid=
	if [ "$rc" -eq 0 ] && grep -qx "trades=$2" "$TMP/recv"; then
		ok "$1: $2 trades received, in order, end of session"
	else
		fail "$1: receiver exit $rc: $(grep -vE '=0$' "$TMP/recv" | tr '\n' ' ')"
	fi
}

jv() {
	jq -r "$2" "$1"
}

inner() {
	ip link set lo up || { fail "lo up in the private namespace"; return; }

	refused 2 "refusing to multicast" --count 1
	refused 1 "no route" --source gbm --feed 10.99.0.1 --count 1
	refused 1 "no interface here has that address" --source gbm --feed 127.0.0.1 --order-addr 10.9.9.9 --count 1
	refused 2 "has only 3 prices" --feed 127.0.0.1 --prices "$TMP/p3" --count 4

	# Unicast, noise, a price file: the file's prices in order.
	start_recv 27400 --trades "$TMP/trades" || return
	if "$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27400 --order-port 27401 \
		--prices "$TMP/p3" --rate 100 --noise 2 --warmup 0 --linger 0 \
		--json "$TMP/uni.json" >"$TMP/sim" 2>&1; then
		ok "unicast run"
	else
		fail "unicast run: $(cat "$TMP/sim")"
	fi
	finish_recv "unicast" 3
	[ "$(cut -d, -f4 "$TMP/trades" | tail -n +2 | tr '\n' ' ')" = "5000 6000 7000 " ] &&
		ok "unicast: trades carry the price file's prices" ||
		fail "unicast: prices $(cut -d, -f4 "$TMP/trades" | tr '\n' ' ')"
	[ "$(jv "$TMP/uni.json" .feed_multicast)" = false ] || fail "json says multicast"

	# A burst of 100 due at once leaves packed (31 per packet), not as 100.
	start_recv 27410 || return
	"$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27410 --order-port 27411 --count 1000 \
		--rate 10000 --burst 100 --warmup 0 --linger 0 --json "$TMP/burst.json" \
		>"$TMP/sim" 2>&1 || fail "burst run: $(cat "$TMP/sim")"
	finish_recv "burst" 1000
	mpp=$(jv "$TMP/burst.json" .max_ticks_per_packet)
	dp=$(jv "$TMP/burst.json" .data_packets)
	[ "$mpp" -eq 31 ] && [ "$dp" -lt 100 ] &&
		ok "burst: packed, up to $mpp ticks per packet, $dp data packets" ||
		fail "burst: up to $mpp ticks per packet, $dp data packets"

	# Flat out for 0.2 s, at most 100000 ticks: stops at whichever comes first.
	start_recv 27420 || return
	"$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27420 --order-port 27421 --rate 0 \
		--duration 0.2 --count 100000 --warmup 0 --linger 0 --json "$TMP/flat.json" \
		>"$TMP/sim" 2>&1 || fail "flat-out run: $(cat "$TMP/sim")"
	n=$(jv "$TMP/flat.json" .ticks)
	finish_recv "flat out" "$n"
	awk -v n="$n" -v s="$(jv "$TMP/flat.json" .publish_s)" \
		'BEGIN { exit !(n > 0 && (n == 100000 || (s > 0.15 && s < 0.3))) }' &&
		ok "flat out: $n ticks in $(jv "$TMP/flat.json" .publish_s) s ($(jv "$TMP/flat.json" .achieved_tps)/s)" ||
		fail "flat out: $n ticks in $(jv "$TMP/flat.json" .publish_s) s"

	# SIGINT: summary, JSON, end of session.
	start_recv 27430 || return
	"$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27430 --order-port 27431 --count 1000000 \
		--rate 1000 --warmup 0 --json "$TMP/int.json" >"$TMP/sim" 2>&1 &
	sim_pid=$!
	sleep 1	# at 1,000/s: some ticks out, far from all, even on a slow start
	kill -INT "$sim_pid"
	wait "$sim_pid"
	rc=$?
	sim_pid=
	n=$(jv "$TMP/int.json" .ticks)
	[ "$rc" -eq 0 ] && grep -q INTERRUPTED "$TMP/sim" &&
		[ "$(jv "$TMP/int.json" .interrupted)" = true ] && [ "$n" -gt 0 ] && [ "$n" -lt 1000000 ] &&
		ok "SIGINT: exit 0 after $n ticks, summary and JSON marked interrupted" ||
		fail "SIGINT: exit $rc, $n ticks, $(head -1 "$TMP/sim")"
	finish_recv "SIGINT" "$n"
}

if [ "${1:-}" = inner ]; then
	inner
	exit $((failures > 0))
fi

[ "$(id -u)" -eq 0 ] || { echo "FAIL: must run as root"; exit 1; }
[ -x "$EXSIM" ] && [ -x "$RECV" ] || { echo "FAIL: build first (make build-all)"; exit 1; }

"$EXSIM" --help >"$TMP/help" 2>&1 && grep -q -- '--rate R' "$TMP/help" &&
	ok "--help" || fail "--help"
printf '5000\n6000\n7000\n' >"$TMP/p3"

refused 2 "--rate wants 0..1e+09: 'abc'" --rate abc
refused 2 "--rate wants 0..1e+09: '-1'" --rate -1
refused 2 "--count wants 1..2147483648 ticks: '0'" --count 0
refused 2 "--count wants 1..2147483648 ticks: '1e3'" --count 1e3
refused 2 "--session must be 1-10 characters: 'TOOLONGSESS1'" --session TOOLONGSESS1
refused 2 "--session takes only letters and digits: 'a-b'" --session a-b
refused 2 "--symbols 'aapl': only A-Z" --symbols aapl
refused 2 "--symbols 'AAPL' is listed twice" --symbols AAPL,MSFT,AAPL
refused 2 "--symbols '' must be 1-8" --symbols AAPL,,MSFT
refused 2 "--symbols 'TOOLONGSYM' must be 1-8" --symbols TOOLONGSYM
refused 2 "--feed wants an IPv4 address: '1.2.3'" --feed 1.2.3
refused 2 "--feed: give a multicast group or a unicast host" --feed 0.0.0.0
refused 2 "--feed-port wants a port, 1..65535: '70000'" --feed-port 70000
refused 2 "--order-port wants a port, 1..65535: '0'" --order-port 0
refused 2 "--noise wants 0..20: '21'" --noise 21
refused 2 "--burst: needs a --rate" --rate 0 --burst 5
refused 2 "--mcast-if: only meaningful with a multicast" --feed 10.1.1.1 --mcast-if 10.1.1.2
refused 2 "--prices: the file holds one series" --prices "$TMP/p3" --symbols A,B
refused 2 "--prices: " --prices "$TMP/missing"
refused 2 "--rate 0.01 x --duration 1 is less than one tick" --rate 0.01 --duration 1
refused 2 "unknown option '--bogus'" --bogus
refused 2 "--count needs a value" --count
refused 2 "unexpected argument 'extra'" extra

# The rest in a private network namespace of its own.
unshare -n "$0" inner "$TMP" || failures=$((failures + 1))

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all exsim command-line checks passed"
