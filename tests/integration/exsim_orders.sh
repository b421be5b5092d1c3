#!/bin/bash
# exsim's order port (a SoupBinTCP session over TCP) and paper fills, driven
# by the small test client from the gateway namespace, one connection and
# login per order.  The feed is a price file of 20 trades all at 100.0000,
# so the last price is known; then, while the simulator lingers:
#   marketable buy 300 @ 100.0100      -> Accepted, Executed 300 @ 100.0000
#   non-marketable buy 100 @ 99.9900   -> Accepted, Canceled 100 reason I
#   marketable sell 100 @ 99.9900      -> Accepted, Executed 100 @ 100.0000
#   unknown symbol                     -> Rejected reason S (no Accepted)
#   a 'U' packet of 5 bytes            -> no reply, counted unreadable
#   an Enter Order with a bad length   -> Rejected reason O with its token
# Replies are decoded by the client (fields checked here), numbered 1, 2,
# 3 ... across the connections of the session; then SIGTERM
# ends the run early, and the summary must still come, with end of session
# on the feed, positions and cash as booked, a wire-to-wire figure for each
# order, and an order log whose send times match the tick record.
#
# One rig and one simulator run for the file, started before the tests;
# about 3 s.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/feed_recv build/tools/order_client

# The simulator lingers 30 s after its 20 trades, for the orders; the tests
# share it.
rig_up
for _ in $(seq 20); do echo 1000000; done >"$T_TMP/prices"
start_recv feed --trades "$T_TMP/trades" --flush --expect-trades 20 --timeout-ms 30000 || exit 1
bg sim ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
	--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
	--prices "$T_TMP/prices" --rate 200 --linger 30000 --heartbeat 200 \
	--orders-log "$T_TMP/orders.csv" --record "$T_TMP/rec.csv" --json "$T_TMP/sim.json"
# All 20 trades are out (the receiver has them) before the first order.
wait_for 10 eval '[ "$(wc -l <"$T_TMP/trades")" -ge 21 ]' ||
	{ echo "FAIL: the 20 trades did not arrive: $(cat "$T_TMP/sim.err")"; exit 1; }
last=$(tail -1 "$T_TMP/trades" | cut -d, -f1)
ok "20 trades published, the last one is seq $last"

# order NAME [client options]: send it from the gateway namespace.
order() {
	local name=$1
	shift
	ip netns exec "$RIG_NS_GW" build/tools/order_client "$RIG_IP_EX" "$RIG_ORDER_PORT" "$@" \
		>"$T_TMP/$name" 2>&1
}

# has NAME REGEX WHAT
has() {
	if grep -qE "$2" "$T_TMP/$1"; then
		ok "$1: $3"
	else
		fail "$1: $3: no line matching '$2' in: $(tr '\n' '|' <"$T_TMP/$1")"
	fi
}

token() {
	sed -n 's/^sent token=\([^ ]*\) .*/\1/p' "$T_TMP/$1"
}

test_orders_get_the_replies_of_paper_fills() {
	local t hex
	order buy_fill --side B --price 1000100 --shares 300 --seq "$last" --num 1 ||
		fail "buy_fill: client exit $?"
	t=$(token buy_fill)
	has buy_fill "^login accepted session=EXSIM00001 seq=1$" "logged in, the session's first message next"
	has buy_fill "^A token=$t side=B shares=300 stock=AAPL price=1000100 tif=0 firm=TEST display=Y ref=1 capacity=A iso=N min_qty=0 cross=N state=L ts=[0-9]+ seq=1$" "Accepted, fields echoed, message 1"
	has buy_fill "^E token=$t shares=300 price=1000000 liquidity=R match=1 ts=[0-9]+ seq=2$" "Executed 300 at the last price 100.0000, message 2"

	order buy_cancel --side B --price 999900 --shares 100 --seq "$last" --num 2 ||
		fail "buy_cancel: client exit $?"
	t=$(token buy_cancel)
	has buy_cancel "^A token=$t side=B shares=100 stock=AAPL price=999900 .* ref=2 .*state=L" "Accepted"
	has buy_cancel "^C token=$t decrement=100 reason=I ts=[0-9]+ seq=4$" "Canceled 100, reason I (not marketable)"

	order sell_fill --side S --price 999900 --shares 100 --seq "$last" --num 3 ||
		fail "sell_fill: client exit $?"
	t=$(token sell_fill)
	has sell_fill "^A token=$t side=S shares=100 stock=AAPL price=999900 .* ref=3 " "Accepted"
	has sell_fill "^E token=$t shares=100 price=1000000 liquidity=R match=2 ts=[0-9]+ seq=6$" "Executed 100 at 100.0000"

	order unknown --symbol ZZZZ --side B --price 1000000 --seq "$last" --num 4 ||
		fail "unknown: client exit $?"
	t=$(token unknown)
	has unknown "^J token=$t reason=S ts=[0-9]+ seq=7$" "Rejected, reason S (unknown symbol)"
	grep -q '^A ' "$T_TMP/unknown" && fail "unknown: an Accepted came before the reject"

	# 'U' with 4 bytes: 'O' and no token.
	order junk --raw 0005554f414243 --expect-none --timeout-ms 500 ||
		fail "junk: answered: $(cat "$T_TMP/junk")"
	has junk "^result=ok$" "no reply to an unreadable 'U' packet"

	# 'U' 'O' and a readable token, but 17 bytes: not an Enter Order's 49.
	hex=0012554f$(printf 'MALFORMED00001' | od -An -tx1 | tr -d ' \n')0000
	order badlen --raw "$hex" --timeout-ms 2000 || fail "badlen: client exit $?"
	has badlen "^J token=MALFORMED00001 reason=O ts=[0-9]+ seq=8$" "Rejected, reason O, with its token"
}

test_sigterm_ends_with_the_summary_and_the_order_log() {
	local J L send_ns bad
	[ -e "$T_TMP/badlen" ] || test_orders_get_the_replies_of_paper_fills
	# During the linger: summary, end of session, files.
	kill -TERM "$sim_pid"
	wait "$sim_pid"
	expect_eq "exsim exit status after SIGTERM" "$?" 0
	grep -q INTERRUPTED "$T_TMP/sim.out" "$T_TMP/sim.err" && ok "summary printed, marked interrupted" ||
		fail "no interrupted summary: $(head -3 "$T_TMP/sim.err")"
	wait "$feed_pid"
	expect_eq "feed receiver (in order, end of session after SIGTERM)" "$(kv "$T_TMP/feed.out" result)" ok

	J=$T_TMP/sim.json
	expect_eq "json interrupted" "$(j "$J" .interrupted)" true
	expect_eq "'U' packets" "$(j "$J" .orders.packets)" 6
	expect_eq "orders received" "$(j "$J" .orders.received)" 4
	expect_eq "filled" "$(j "$J" .orders.filled)" 2
	expect_eq "canceled" "$(j "$J" .orders.canceled)" 1
	expect_eq "rejected" "$(j "$J" .orders.rejected)" 1
	expect_eq "rejected as unknown symbol" "$(j "$J" .orders.rejects.unknown_symbol)" 1
	expect_eq "malformed, rejected" "$(j "$J" .orders.malformed)" 1
	expect_eq "unreadable, dropped" "$(j "$J" .orders.unreadable)" 1
	expect_eq "replies (A E, A C, A E, J, J)" "$(j "$J" .orders.replies)" 8
	expect_eq "the session: one account, 8 messages" "$(j "$J" '.soup.sessions[0] | "\(.user) \(.messages)"')" "T2TG 8"
	expect_eq "logins accepted, logged out (the no-reply client just closed)" \
		"$(j "$J" '"\(.soup.logins.accepted) \(.soup.closed.logout) \(.soup.closed.peer)"')" "6 5 1"
	expect_eq "duplicate tokens" "$(j "$J" .orders.dup_tokens)" 0
	expect_eq "AAPL position" "$(j "$J" '.positions[0].position')" 200
	expect_eq "AAPL cash (Price(4) x shares)" "$(j "$J" '.positions[0].cash')" -200000000
	expect_eq "AAPL pnl at 100.0000" "$(j "$J" '.positions[0].pnl')" 0
	expect_eq "AAPL bought/sold" "$(j "$J" '"\(.positions[0].bought)/\(.positions[0].sold)"')" 300/100
	expect_eq "wire-to-wire samples (one per decoded order)" "$(j "$J" .wire_to_wire_ns.count)" 4
	expect_eq "unmatched tokens" "$(j "$J" .orders.unmatched_seq)" 0

	# The order log: the four orders and the malformed one, in arrival order,
	# each matched to the send time that the tick record has for its seq.
	L=$T_TMP/orders.csv
	expect_eq "order log rows" "$(($(wc -l <"$L") - 1))" 5
	expect_eq "order log outcomes" "$(awk -F, 'NR > 1 { printf "%s%s", sep, $9; sep = " " }' "$L")" \
		"filled canceled filled rejected malformed"
	send_ns=$(awk -F, -v s="$last" '$1 == s { print $6 }' "$T_TMP/rec.csv")
	bad=$(awk -F, -v s="$last" -v t="$send_ns" \
		'NR > 1 && NR < 6 && ($2 != s || $7 != t || $14 != $12 - $7 || $15 < 1 || $15 > $7)' "$L")
	[ -z "$bad" ] && ok "order log: md_seq $last, t_send = the record's send_ns, w2w = t_arrive - t_send, intended <= sent" ||
		fail "order log rows disagree with the record: $bad"
}

run_tests "$@"
