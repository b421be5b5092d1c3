#!/bin/bash
# exsim's order port and paper fills, driven by the small test client from
# the gateway namespace.  The feed is a price file of 20 trades all at
# 100.0000, so the last price is known; then, while the simulator lingers:
#   marketable buy 300 @ 100.0100      -> Accepted, Executed 300 @ 100.0000
#   non-marketable buy 100 @ 99.9900   -> Accepted, Canceled 100 reason I
#   marketable sell 100 @ 99.9900      -> Accepted, Executed 100 @ 100.0000
#   unknown symbol                     -> Rejected reason S (no Accepted)
#   8 bytes of junk                    -> no reply, counted unreadable
#   an Enter Order with a bad length   -> Rejected reason O with its token
# Replies are decoded by the client (fields checked here); then SIGTERM
# ends the run early, and the summary must still come, with end of session
# on the feed, positions and cash as booked, a wire-to-wire figure for each
# order, and an order log whose send times match the tick record.
#
# Own rig, named after this shell's PID, torn down on exit; about 3 s.
set -u
P=eo$$
SUBNET=10.213.$(($$ % 250)).0/24
. "$(dirname "$0")/exsim_lib.sh"

need "$EXSIM" "$RECV" "$CLIENT"
rig_up

for _ in $(seq 20); do echo 1000000; done >"$TMP/prices"
start_recv feed --trades "$TMP/trades" --flush --expect-trades 20 --timeout-ms 30000
ip netns exec "$RIG_NS_EX" timeout 60 "$EXSIM" -q --source gbm --feed "$RIG_GROUP" \
	--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
	--prices "$TMP/prices" --rate 200 --linger 30000 --heartbeat 200 \
	--orders-log "$TMP/orders.csv" --record "$TMP/rec.csv" --json "$TMP/sim.json" \
	>"$TMP/sim.out" 2>&1 &
sim_pid=$!
bg_pids+=("$sim_pid")

# All 20 trades are out (the receiver has them) before the first order.
for _ in $(seq 100); do
	[ "$(wc -l <"$TMP/trades")" -ge 21 ] && break
	sleep 0.1
done
[ "$(wc -l <"$TMP/trades")" -ge 21 ] || { echo "FAIL: the 20 trades did not arrive: $(cat "$TMP/sim.out")"; exit 1; }
last=$(tail -1 "$TMP/trades" | cut -d, -f1)
ok "20 trades published, the last one is seq $last"

# order NAME [client options]: send it from the gateway namespace.
order() {
	local name=$1
	shift
	ip netns exec "$RIG_NS_GW" "$CLIENT" "$RIG_IP_EX" "$RIG_ORDER_PORT" "$@" \
		>"$TMP/$name" 2>&1
}

# has NAME REGEX WHAT
has() {
	if grep -qE "$2" "$TMP/$1"; then
		ok "$1: $3"
	else
		fail "$1: $3: no line matching '$2' in: $(tr '\n' '|' <"$TMP/$1")"
	fi
}

token() {
	sed -n 's/^sent token=\([^ ]*\) .*/\1/p' "$TMP/$1"
}

order buy_fill --side B --price 1000100 --shares 300 --seq "$last" --num 1 ||
	fail "buy_fill: client exit $?"
t=$(token buy_fill)
has buy_fill "^A token=$t side=B shares=300 stock=AAPL price=1000100 tif=0 firm=TEST display=Y ref=1 capacity=A iso=N min_qty=0 cross=N state=L ts=[0-9]+$" "Accepted, fields echoed"
has buy_fill "^E token=$t shares=300 price=1000000 liquidity=R match=1 ts=[0-9]+$" "Executed 300 at the last price 100.0000"

order buy_cancel --side B --price 999900 --shares 100 --seq "$last" --num 2 ||
	fail "buy_cancel: client exit $?"
t=$(token buy_cancel)
has buy_cancel "^A token=$t side=B shares=100 stock=AAPL price=999900 .* ref=2 .*state=L" "Accepted"
has buy_cancel "^C token=$t decrement=100 reason=I ts=[0-9]+$" "Canceled 100, reason I (not marketable)"

order sell_fill --side S --price 999900 --shares 100 --seq "$last" --num 3 ||
	fail "sell_fill: client exit $?"
t=$(token sell_fill)
has sell_fill "^A token=$t side=S shares=100 stock=AAPL price=999900 .* ref=3 " "Accepted"
has sell_fill "^E token=$t shares=100 price=1000000 liquidity=R match=2 ts=[0-9]+$" "Executed 100 at 100.0000"

order unknown --symbol ZZZZ --side B --price 1000000 --seq "$last" --num 4 ||
	fail "unknown: client exit $?"
t=$(token unknown)
has unknown "^J token=$t reason=S ts=[0-9]+$" "Rejected, reason S (unknown symbol)"
grep -q '^A ' "$TMP/unknown" && fail "unknown: an Accepted came before the reject"

order junk --raw 0005554f41424344 --expect-none --timeout-ms 500 ||
	fail "junk: answered: $(cat "$TMP/junk")"
has junk "^no reply$" "no reply to 8 bytes of junk"

# 'U' 'O' and a readable token, but the packet length says 16 for 20 bytes.
hex=0010554f$(printf 'MALFORMED00001' | od -An -tx1 | tr -d ' \n')0000
order badlen --raw "$hex" --timeout-ms 2000 || fail "badlen: client exit $?"
has badlen "^J token=MALFORMED00001 reason=O ts=[0-9]+$" "Rejected, reason O, with its token"

# ---- SIGTERM during the linger: summary, end of session, files ----
kill -TERM "$sim_pid"
wait "$sim_pid"
expect_eq "exsim exit status after SIGTERM" "$?" 0
grep -q INTERRUPTED "$TMP/sim.out" && ok "summary printed, marked interrupted" ||
	fail "no interrupted summary: $(head -3 "$TMP/sim.out")"
wait "$feed_pid"
expect_eq "feed receiver (in order, end of session after SIGTERM)" "$(kv "$TMP/feed.out" result)" ok

J=$TMP/sim.json
expect_eq "json interrupted" "$(jv "$J" .interrupted)" true
expect_eq "datagrams" "$(jv "$J" .orders.datagrams)" 6
expect_eq "orders received" "$(jv "$J" .orders.received)" 4
expect_eq "filled" "$(jv "$J" .orders.filled)" 2
expect_eq "canceled" "$(jv "$J" .orders.canceled)" 1
expect_eq "rejected" "$(jv "$J" .orders.rejected)" 1
expect_eq "rejected as unknown symbol" "$(jv "$J" .orders.rejects.unknown_symbol)" 1
expect_eq "malformed, rejected" "$(jv "$J" .orders.malformed)" 1
expect_eq "unreadable, dropped" "$(jv "$J" .orders.unreadable)" 1
expect_eq "replies (A E, A C, A E, J, J)" "$(jv "$J" .orders.replies)" 8
expect_eq "AAPL position" "$(jv "$J" '.positions[0].position')" 200
expect_eq "AAPL cash (Price(4) x shares)" "$(jv "$J" '.positions[0].cash')" -200000000
expect_eq "AAPL pnl at 100.0000" "$(jv "$J" '.positions[0].pnl')" 0
expect_eq "AAPL bought/sold" "$(jv "$J" '"\(.positions[0].bought)/\(.positions[0].sold)"')" 300/100
expect_eq "wire-to-wire samples (one per decoded order)" "$(jv "$J" .wire_to_wire_ns.count)" 4
expect_eq "unmatched tokens" "$(jv "$J" .orders.unmatched_seq)" 0

# The order log: the four orders and the malformed one, in arrival order,
# each matched to the send time that the tick record has for its seq.
L=$TMP/orders.csv
expect_eq "order log rows" "$(($(wc -l <"$L") - 1))" 5
expect_eq "order log outcomes" "$(awk -F, 'NR > 1 { printf "%s%s", sep, $9; sep = " " }' "$L")" \
	"filled canceled filled rejected malformed"
send_ns=$(awk -F, -v s="$last" '$1 == s { print $6 }' "$TMP/rec.csv")
bad=$(awk -F, -v s="$last" -v t="$send_ns" \
	'NR > 1 && NR < 6 && ($2 != s || $7 != t || $14 != $12 - $7 || $15 < 1 || $15 > $7)' "$L")
[ -z "$bad" ] && ok "order log: md_seq $last, t_send = the record's send_ns, w2w = t_arrive - t_send, intended <= sent" ||
	fail "order log rows disagree with the record: $bad"

finish "exsim orders"
