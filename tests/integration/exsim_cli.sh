#!/bin/bash
# exsim's command line and the modes the rig tests do not drive:
# - --help; every bad flag or value refused (exit 2) with a message naming it;
# - a multicast feed outside a named network namespace refused;
# - bad addresses at run time (no route, an order address not here): exit 1
#   with the reason;
# - a unicast feed over loopback received complete and in order; bursts
#   packed; --rate 0 with --duration stopping on time; SIGINT ending a run
#   with the summary and end of session.
# The run-time tests run this script again in a private network namespace
# (unshare -n) each, which vanishes with its processes: nothing reaches any
# real network.  They are the private_* functions, run by name.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/feed_recv

EXSIM=build/t2t-exsim

# private NAME: the function private_NAME run by this script in a network
# namespace of its own, loopback up.
private() {
	check "private_$1 in a network namespace of its own" unshare -n "$T_FILE" "private_$1"
}

# prices: a price file of three prices, $T_TMP/p3.
prices() {
	printf '5000\n6000\n7000\n' >"$T_TMP/p3"
}

# lo_recv NAME PORT [options]: a loopback receiver; returns once it listens.
lo_recv() {
	local name=$1 port=$2
	shift 2
	ip link set lo up || { fail "lo up in the private namespace"; return 1; }
	# Gone first: the redirect truncates only once the child runs, and a
	# stale "joined" would let the simulator start before the bind.
	rm -f "$T_TMP/$name.out"
	bg "$name" build/tools/feed_recv "$@" --timeout-ms 5000 127.0.0.1 "$port"
	wait_for 5 grep -qs '^joined$' "$T_TMP/$name.out" && return 0
	fail "feed_recv did not start: $(cat "$T_TMP/$name.out" "$T_TMP/$name.err")"
	return 1
}

# lo_finish NAME WHAT TICKS: the receiver NAME saw the whole session, in order.
lo_finish() {
	local rc
	wait "$(t_pid "$1")"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -qx "trades=$3" "$T_TMP/$1.out"; then
		ok "$2: $3 trades received, in order, end of session"
	else
		fail "$2: receiver exit $rc: $(grep -vE '=0$' "$T_TMP/$1.out" | tr '\n' ' ')"
	fi
}

test_help_lists_the_options() {
	"$EXSIM" --help >"$T_TMP/help" 2>&1
	check "--help" grep -q -- '--rate R' "$T_TMP/help"
}

test_bad_flags_and_values_refused() {
	prices
	expect_exit 2 "--rate wants 0..1e+09: 'abc'" "$EXSIM" --rate abc
	expect_exit 2 "--rate wants 0..1e+09: '-1'" "$EXSIM" --rate -1
	expect_exit 2 "--count wants 1..2147483648 ticks: '0'" "$EXSIM" --count 0
	expect_exit 2 "--count wants 1..2147483648 ticks: '1e3'" "$EXSIM" --count 1e3
	expect_exit 2 "--session must be 1-10 characters: 'TOOLONGSESS1'" "$EXSIM" --session TOOLONGSESS1
	expect_exit 2 "--session takes only letters and digits: 'a-b'" "$EXSIM" --session a-b
	expect_exit 2 "--symbols 'aapl': only A-Z" "$EXSIM" --symbols aapl
	expect_exit 2 "--symbols 'AAPL' is listed twice" "$EXSIM" --symbols AAPL,MSFT,AAPL
	expect_exit 2 "--symbols '' must be 1-8" "$EXSIM" --symbols AAPL,,MSFT
	expect_exit 2 "--symbols 'TOOLONGSYM' must be 1-8" "$EXSIM" --symbols TOOLONGSYM
	expect_exit 2 "--feed wants an IPv4 address: '1.2.3'" "$EXSIM" --feed 1.2.3
	expect_exit 2 "--feed: give a multicast group or a unicast host" "$EXSIM" --feed 0.0.0.0
	expect_exit 2 "--feed-port wants a port, 1..65535: '70000'" "$EXSIM" --feed-port 70000
	expect_exit 2 "--order-port wants a port, 1..65535: '0'" "$EXSIM" --order-port 0
	expect_exit 2 "--login wants USER:PASSWORD" "$EXSIM" --login nocolon
	expect_exit 2 "--login wants USER:PASSWORD" "$EXSIM" --login TOOLONGUSER:pw
	expect_exit 2 "--login names that user twice: 'A:C'" "$EXSIM" --login A:B --login A:C
	expect_exit 2 "--login names more than 4 accounts" "$EXSIM" --login a:1 --login b:1 \
		--login c:1 --login d:1 --login e:1
	expect_exit 2 "--soup-session wants 1-10 printable characters" "$EXSIM" --soup-session TOOLONGSESSION
	expect_exit 2 "--drop-after wants N (from 1), then :fin or :rst: '3:x'" "$EXSIM" --drop-after 3:x
	expect_exit 2 "--drop-after wants N (from 1)" "$EXSIM" --drop-after 0
	expect_exit 2 "--drop-at wants sequence numbers (from 1), comma-separated" "$EXSIM" --drop-at 1,,2
	expect_exit 2 "--soup-timeout wants milliseconds" "$EXSIM" --soup-timeout 0
	expect_exit 2 "--noise wants 0..20: '21'" "$EXSIM" --noise 21
	expect_exit 2 "--burst: needs a --rate" "$EXSIM" --rate 0 --burst 5
	expect_exit 2 "--mcast-if: only meaningful with a multicast" "$EXSIM" --feed 10.1.1.1 --mcast-if 10.1.1.2
	expect_exit 2 "--prices: the file holds one series" "$EXSIM" --prices "$T_TMP/p3" --symbols A,B
	expect_exit 2 "--prices: " "$EXSIM" --prices "$T_TMP/missing"
	expect_exit 2 "--rate 0.01 x --duration 1 is less than one tick" "$EXSIM" --rate 0.01 --duration 1
	expect_exit 2 "unknown option '--bogus'" "$EXSIM" --bogus
	expect_exit 2 "--count needs a value" "$EXSIM" --count
	expect_exit 2 "unexpected argument 'extra'" "$EXSIM" extra
}

test_bad_addresses_refused_at_run_time() {
	private bad_addresses
}
private_bad_addresses() {
	ip link set lo up || { fail "lo up in the private namespace"; return 1; }
	prices
	expect_exit 2 "refusing to multicast" "$EXSIM" --count 1
	expect_exit 1 "no route" "$EXSIM" --source gbm --feed 10.99.0.1 --count 1
	expect_exit 1 "no interface here has that address" "$EXSIM" --source gbm --feed 127.0.0.1 \
		--order-addr 10.9.9.9 --count 1
	expect_exit 2 "has only 3 prices" "$EXSIM" --feed 127.0.0.1 --prices "$T_TMP/p3" --count 4
}

# Unicast, noise, a price file: the file's prices in order.
test_unicast_feed_carries_the_price_file() {
	private unicast
}
private_unicast() {
	prices
	lo_recv uni 27400 --trades "$T_TMP/trades" || return 1
	if "$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27400 --order-port 27401 \
		--prices "$T_TMP/p3" --rate 100 --noise 2 --warmup 0 --linger 0 \
		--json "$T_TMP/uni.json" >"$T_TMP/sim" 2>&1; then
		ok "unicast run"
	else
		fail "unicast run: $(cat "$T_TMP/sim")"
	fi
	lo_finish uni "unicast" 3
	expect_eq "unicast: trades carry the price file's prices" \
		"$(cut -d, -f4 "$T_TMP/trades" | tail -n +2 | tr '\n' ' ')" "5000 6000 7000 "
	expect_eq "unicast: json says not multicast" "$(j "$T_TMP/uni.json" .feed_multicast)" false
}

# A burst of 100 due at once leaves packed (31 per packet), not as 100.
test_a_burst_leaves_packed() {
	private burst
}
private_burst() {
	local mpp dp
	lo_recv burst 27410 || return 1
	"$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27410 --order-port 27411 --count 1000 \
		--rate 10000 --burst 100 --warmup 0 --linger 0 --json "$T_TMP/burst.json" \
		>"$T_TMP/sim" 2>&1 || fail "burst run: $(cat "$T_TMP/sim")"
	lo_finish burst "burst" 1000
	mpp=$(j "$T_TMP/burst.json" .max_ticks_per_packet)
	dp=$(j "$T_TMP/burst.json" .data_packets)
	[ "$mpp" -eq 31 ] && [ "$dp" -lt 100 ] &&
		ok "burst: packed, up to $mpp ticks per packet, $dp data packets" ||
		fail "burst: up to $mpp ticks per packet, $dp data packets"
}

# Flat out for 0.2 s, at most 100000 ticks: stops at whichever comes first.
test_flat_out_stops_at_duration_or_count() {
	private flat_out
}
private_flat_out() {
	local n
	lo_recv flat 27420 || return 1
	"$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27420 --order-port 27421 --rate 0 \
		--duration 0.2 --count 100000 --warmup 0 --linger 0 --json "$T_TMP/flat.json" \
		>"$T_TMP/sim" 2>&1 || fail "flat-out run: $(cat "$T_TMP/sim")"
	n=$(j "$T_TMP/flat.json" .ticks)
	lo_finish flat "flat out" "$n"
	awk -v n="$n" -v s="$(j "$T_TMP/flat.json" .publish_s)" \
		'BEGIN { exit !(n > 0 && (n == 100000 || (s > 0.15 && s < 0.3))) }' &&
		ok "flat out: $n ticks in $(j "$T_TMP/flat.json" .publish_s) s ($(j "$T_TMP/flat.json" .achieved_tps)/s)" ||
		fail "flat out: $n ticks in $(j "$T_TMP/flat.json" .publish_s) s"
}

# SIGINT: summary, JSON, end of session.
test_sigint_ends_with_summary_and_end_of_session() {
	private sigint
}
private_sigint() {
	local rc n
	lo_recv int 27430 || return 1
	bg sim "$EXSIM" -q --source gbm --feed 127.0.0.1 --feed-port 27430 --order-port 27431 \
		--count 1000000 --rate 1000 --warmup 0 --json "$T_TMP/int.json"
	sleep 1	# at 1,000/s: some ticks out, far from all, even on a slow start
	kill -INT "$sim_pid"
	wait "$sim_pid"
	rc=$?
	n=$(j "$T_TMP/int.json" .ticks)
	[ "$rc" -eq 0 ] && grep -q INTERRUPTED "$T_TMP/sim.out" "$T_TMP/sim.err" &&
		[ "$(j "$T_TMP/int.json" .interrupted)" = true ] && [ "$n" -gt 0 ] && [ "$n" -lt 1000000 ] &&
		ok "SIGINT: exit 0 after $n ticks, summary and JSON marked interrupted" ||
		fail "SIGINT: exit $rc, $n ticks, $(head -1 "$T_TMP/sim.err")"
	lo_finish int "SIGINT" "$n"
}

run_tests "$@"
