#!/bin/bash
# exsim's feed reaches a plain kernel UDP receiver in the gateway namespace
# complete and in order: every message, sequence numbers from 1 without a
# gap, message counts and types as the simulator reports them, heartbeat and
# end of session; at a low rate (1000 ticks/s, one tick per packet, with
# noise messages and three symbols) and a high one (200,000 ticks/s, packed).
# The --record file has one row per published trade, identical to what the
# receiver decoded (seq, symbol, locate, price, shares, send time), and each
# symbol's prices are the spec's GBM series of seed + i.
#
# One rig for the file.  Bounded: about 2 s at the low rate and 1 s at the
# high one.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/feed_recv build/t2t-backtest

# run_feed NAME TICKS [exsim options]: receiver + simulator, both must pass.
run_feed() {
	local name=$1 ticks=$2 rc
	shift 2
	start_recv "$name" --expect-trades "$ticks" --trades "$T_TMP/$name.trades" --timeout-ms 5000 ||
		return 1
	if ! ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--count "$ticks" --stamp mono --record "$T_TMP/$name.rec" --json "$T_TMP/$name.json" \
		"$@" >"$T_TMP/$name.sim" 2>&1; then
		fail "$name: exsim failed: $(tail -3 "$T_TMP/$name.sim")"
	fi
	wait_recv "$name"
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(kv "$T_TMP/$name.out" result)" = ok ]; then
		ok "$name: receiver got every message in order ($(kv "$T_TMP/$name.out" messages) messages, $(kv "$T_TMP/$name.out" data_packets) packets, no gap)"
	else
		fail "$name: receiver: rc $rc: $(grep -vE '=0$' "$T_TMP/$name.out" | tr '\n' ' ')"
	fi
}

# check_against_sim NAME TICKS: the receiver's view equals the simulator's.
check_against_sim() {
	local name=$1 ticks=$2 j=$T_TMP/$1.json r=$T_TMP/$1.out t
	expect_eq "$name: trades received" "$(kv "$r" trades)" "$ticks"
	expect_eq "$name: ticks the simulator sent" "$(j "$j" .ticks)" "$ticks"
	expect_eq "$name: messages received = sent" "$(kv "$r" messages)" "$(j "$j" .messages)"
	expect_eq "$name: next seq received = sent" "$(kv "$r" next_seq)" "$(j "$j" .next_seq)"
	expect_eq "$name: data packets received = sent" "$(kv "$r" data_packets)" "$(j "$j" .data_packets)"
	for t in S R A F E C X D U P; do
		[ "$(kv "$r" "type_$t")" = "$(j "$j" ".messages_by_type.$t")" ] ||
			fail "$name: type $t: received $(kv "$r" "type_$t"), sent $(j "$j" ".messages_by_type.$t")"
	done
	expect_eq "$name: system events (O S Q M E C)" "$(kv "$r" type_S)" 6
	expect_eq "$name: end of session" "$(kv "$r" end_of_session)" 1
	[ "$(kv "$r" heartbeats)" -ge 1 ] && ok "$name: heartbeat seen" ||
		fail "$name: no heartbeat before end of session"
	expect_eq "$name: send errors" "$(j "$j" .send_errors)" 0
	# The record: a header and one row per trade, exactly what went out.
	expect_eq "$name: record rows" "$(($(wc -l <"$T_TMP/$name.rec") - 1))" "$ticks"
	expect_eq "$name: record header" "$(head -1 "$T_TMP/$name.rec")" "seq,symbol,locate,price,shares,send_ns"
	if cmp -s "$T_TMP/$name.rec" "$T_TMP/$name.trades"; then
		ok "$name: record = trades as received (seq, symbol, locate, price, shares, send_ns)"
	else
		fail "$name: record differs from the received trades: $(diff "$T_TMP/$name.rec" "$T_TMP/$name.trades" | head -4 | tr '\n' ' ')"
	fi
	awk -F, 'NR > 2 && $1 <= prev { bad = 1 } NR > 1 { prev = $1 } END { exit bad }' "$T_TMP/$name.rec" &&
		ok "$name: record seqs strictly increasing" || fail "$name: record seqs not increasing"
}

# ---- low rate: one tick per packet, noise, three symbols ----
test_low_rate_feed_complete_and_in_order() {
	rig_up
	run_feed low 2000 --rate 1000 --noise 0.5 --symbols AAPL,MSFT,IBM --seed 7 || return 1
	check_against_sim low 2000
	[ "$(j "$T_TMP/low.json" '.messages_by_type.A + .messages_by_type.D')" -gt 0 ] &&
		ok "low: noise messages published and skipped" || fail "low: no noise messages"
}

# Symbol i (0-based) trades the GBM series of seed + i, tick k on symbol k mod 3.
test_low_rate_prices_are_the_gbm_series_of_seed_plus_i() {
	local i=0 n sym
	[ -s "$T_TMP/low.rec" ] || test_low_rate_feed_complete_and_in_order || return 1
	for sym in AAPL MSFT IBM; do
		n=$(awk -F, -v s="$sym" '$2 == s' "$T_TMP/low.rec" | wc -l)
		build/t2t-backtest --gen "$n" --seed $((7 + i)) -q >"$T_TMP/gbm.$sym" 2>/dev/null
		awk -F, -v s="$sym" -v l=$((i + 1)) '$2 == s { if ($3 != l) exit 1; print $4 }' \
			"$T_TMP/low.rec" >"$T_TMP/rec.$sym" || fail "low: $sym has a locate other than $((i + 1))"
		cmp -s "$T_TMP/gbm.$sym" "$T_TMP/rec.$sym" &&
			ok "low: $sym ($n ticks) = t2t-backtest --gen $n --seed $((7 + i))" ||
			fail "low: $sym prices are not the GBM series of seed $((7 + i))"
		i=$((i + 1))
	done
}

# ---- high rate: 200,000 ticks/s, packed ----
test_high_rate_feed_complete_packed_and_on_schedule() {
	local mpp
	rig_up
	run_feed high 200000 --rate 200000 --symbols AAPL || return 1
	check_against_sim high 200000
	mpp=$(j "$T_TMP/high.json" .max_ticks_per_packet)
	[ "$mpp" -gt 1 ] && ok "high: packed (up to $mpp ticks per packet, $(j "$T_TMP/high.json" .data_packets) packets)" ||
		fail "high: never more than one tick per packet"
	awk -v s="$(j "$T_TMP/high.json" .publish_s)" 'BEGIN { exit !(s > 0.9 && s < 1.5) }' &&
		ok "high: 200000 ticks published in $(j "$T_TMP/high.json" .publish_s) s (schedule: 1 s)" ||
		fail "high: publishing took $(j "$T_TMP/high.json" .publish_s) s for a 1 s schedule"
}

run_tests "$@"
