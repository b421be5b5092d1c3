#!/bin/bash
# exsim's default live feed, the generated day, and the paper fills against
# the book of what it published:
#  - the session a kernel receiver gets is the generator's day (exsim
#    --gen-day with the same count, symbols and seed) message for message,
#    but for the timestamps, which are the send times; every sequence
#    number from 1, no gap; --record holds the P messages received (the
#    simulator stamps its monotonic clock, which the receiver recovers);
#  - orders sent while the simulator lingers after the day's body (so the
#    book is the final one, which t2t-backtest --itch --book gives from the
#    generated file) fill level by level at each level's price: a buy
#    across two levels (two Executed), the same shares asked again (what
#    the first took is not offered twice: Executed for the rest of the
#    level, Canceled for the shares taken), a sell through three bid
#    levels with more shares than they hold (three Executed, Canceled for
#    the rest), a buy below the best ask (Canceled), an unknown symbol
#    (Rejected 'S'); positions and cash exactly the sums of the Executed
#    replies.
#
# One rig and one simulator run for the file, started before the tests.
# Bounded: a day of 20,000 messages at 10,000/s, then 8 s of linger.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv build/tools/order_client build/t2t-backtest

COUNT=20000
SYMS=AAPL,MSFT,IBM
LAST_BODY=$((COUNT - 3))	# then S M, S E, S C

build/t2t-exsim --gen-day "$T_TMP/ref.bin" --messages $COUNT --symbols $SYMS --seed 3 >/dev/null ||
	{ echo "FAIL: gen-day"; exit 1; }
build/t2t-backtest --itch "$T_TMP/ref.bin" --dump="$T_TMP/ref.dump" --book AAPL --book-out "$T_TMP/aapl.csv" ||
	{ echo "FAIL: backtest on the day"; exit 1; }
build/t2t-backtest --itch "$T_TMP/ref.bin" --book MSFT >"$T_TMP/msft.csv"

rig_up
start_fault_recv feed --dump "$T_TMP/feed.dump" --trades "$T_TMP/feed.trades" --timeout-ms 5000 || exit 1
bg ex ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --stamp mono --feed "$RIG_GROUP" \
	--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
	--symbols $SYMS --seed 3 --count $COUNT --rate 10000 --linger 8000 \
	--record "$T_TMP/rec.csv" --orders-log "$T_TMP/orders.csv" --json "$T_TMP/ex.json"
sleep 4		# the body takes 2 s; orders go in the 8 s of linger

# ex_done: the simulator's end (waited for once; its status after).
ex_done() {
	[ -e "$T_TMP/ex.rc" ] || { wait "$ex_pid"; echo $? >"$T_TMP/ex.rc"; }
	return "$(cat "$T_TMP/ex.rc")"
}

order() {	# order NAME [client options]
	local name=$1
	shift
	ip netns exec "$RIG_NS_GW" build/tools/order_client --seq $LAST_BODY "$@" "$RIG_IP_EX" "$RIG_ORDER_PORT" \
		>"$T_TMP/$name" 2>&1 || fail "$name: client exit $?: $(tr '\n' '|' <"$T_TMP/$name")"
}

# level FILE SIDE K FIELD: field 2 (price) or 3 (shares) of the K-th level.
level() {
	awk -F, -v s="$2" -v k="$3" -v f="$4" '$1 == s && ++n == k { print $f }' "$1"
}

# replies NAME: its E and C lines as "E shares price" / "C decrement reason".
replies() {
	sed -n 's/^E token=[^ ]* shares=\([0-9]*\) price=\([0-9]*\) .*/E \1 \2/p;
		s/^C token=[^ ]* decrement=\([0-9]*\) reason=\(.\) .*/C \1 \2/p' "$T_TMP/$1"
}

test_orders_fill_level_by_level_at_each_levels_price() {
	local a1 a1s a2 a2s b1 b1s b2 b2s b3 b3s half
	a1=$(level "$T_TMP/aapl.csv" S 1 2); a1s=$(level "$T_TMP/aapl.csv" S 1 3)
	a2=$(level "$T_TMP/aapl.csv" S 2 2); a2s=$(level "$T_TMP/aapl.csv" S 2 3)
	b1=$(level "$T_TMP/msft.csv" B 1 2); b1s=$(level "$T_TMP/msft.csv" B 1 3)
	b2=$(level "$T_TMP/msft.csv" B 2 2); b2s=$(level "$T_TMP/msft.csv" B 2 3)
	b3=$(level "$T_TMP/msft.csv" B 3 2); b3s=$(level "$T_TMP/msft.csv" B 3 3)
	half=$(((a2s + 1) / 2))

	order two_levels --symbol AAPL --side B --shares $((a1s + half)) --price "$a2" --num 1
	expect_eq "buy across two ask levels: one Executed per level, at its price" \
		"$(replies two_levels | tr '\n' '|')" "E $a1s $a1|E $half $a2|"
	order again --symbol AAPL --side B --shares "$a2s" --price "$a2" --num 2
	expect_eq "the same level again: the rest of it, Canceled for what was taken" \
		"$(replies again | tr '\n' '|')" "E $((a2s - half)) $a2|C $half I|"
	order sweep --symbol MSFT --side S --shares $((b1s + b2s + b3s + 77)) --price "$b3" --num 3
	expect_eq "sell through three bid levels, more than they hold" \
		"$(replies sweep | tr '\n' '|')" "E $b1s $b1|E $b2s $b2|E $b3s $b3|C 77 I|"
	order below --symbol AAPL --side B --shares 100 --price $((a1 - 100)) --num 4
	expect_eq "a buy below the best ask: Canceled" "$(replies below | tr '\n' '|')" "C 100 I|"
	order unknown --symbol ZZZZ --side B --shares 100 --price 1000000 --num 5
	grep -q "^J token=.* reason=S" "$T_TMP/unknown" && ok "unknown symbol: Rejected 'S'" ||
		fail "unknown symbol: $(tr '\n' '|' <"$T_TMP/unknown")"
}

# mask DUMP: the timestamps (bytes 5-10) are send times; everything else
# is the day's.
mask() {
	awk -F, '{ print $1 "," substr($2, 1, 10) "000000000000" substr($2, 23) }' "$1"
}

test_the_feed_is_the_generated_day() {
	ex_done || fail "exsim exit $(cat "$T_TMP/ex.rc"): $(tail -3 "$T_TMP/ex.err")"
	[ -e "$T_TMP/feed.rc" ] || { wait_recv feed; echo $? >"$T_TMP/feed.rc"; }
	expect_eq "receiver: clean session of $COUNT messages" \
		"$(kv "$T_TMP/feed.out" result) $(kv "$T_TMP/feed.out" next_seq) $(kv "$T_TMP/feed.out" missing) $(kv "$T_TMP/feed.out" gap_events)" \
		"ok $((COUNT + 1)) 0 0"
	cmp -s <(mask "$T_TMP/feed.dump") <(mask "$T_TMP/ref.dump") &&
		ok "the feed is the generated day, message for message (timestamps: send times)" ||
		fail "the feed differs from t2t-exsim --gen-day's day: $(diff <(mask "$T_TMP/feed.dump") <(mask "$T_TMP/ref.dump") | head -2 | tr '\n' ' ')"
	cmp -s "$T_TMP/rec.csv" "$T_TMP/feed.trades" &&
		ok "--record: the $(($(wc -l <"$T_TMP/rec.csv") - 1)) P messages as received" ||
		fail "--record differs from the P messages received"
}

# Positions are the sums of the Executed replies.
test_positions_and_cash_are_the_executed_replies() {
	local s want got
	[ -e "$T_TMP/unknown" ] || test_orders_fill_level_by_level_at_each_levels_price
	ex_done || fail "exsim exit $(cat "$T_TMP/ex.rc"): $(tail -3 "$T_TMP/ex.err")"
	expect_eq "orders named the day's last body message, sent before they came" \
		"$(awk -F, 'NR > 1 { print $2 }' "$T_TMP/orders.csv" | sort -u | tr '\n' ' ')" "$LAST_BODY "

	for s in AAPL MSFT; do
		want=$(cat "$T_TMP"/two_levels "$T_TMP"/again "$T_TMP"/sweep "$T_TMP"/below |
			awk -v s=$s '/^A token/ { side = $3; sym = $5 }
			/^E token/ { split($3, a, "="); split($4, b, "=");
				if (sym == "stock=" s) { q = side == "side=B" ? a[2] : -a[2]; pos += q; cash -= q * b[2] } }
			END { printf "%.0f %.0f\n", pos, cash }')
		got=$(jq -r ".positions[] | select(.symbol == \"$s\") | \"\(.position) \(.cash)\"" "$T_TMP/ex.json")
		expect_eq "$s: position and cash = the Executed replies" "$got" "$want"
	done
	expect_eq "JSON: orders, partly filled, executions, canceled, rejected" \
		"$(jq -r '.orders | "\(.received) \(.partial) \(.executions) \(.filled) \(.canceled) \(.rejected)"' "$T_TMP/ex.json")" \
		"5 2 6 3 1 1"
	jq -e '.source == "day" and .book.impossible == 0 and .book.taken > 0' "$T_TMP/ex.json" >/dev/null &&
		ok "JSON: the day's book, nothing impossible, shares taken" ||
		fail "JSON: $(jq -c '{source, book}' "$T_TMP/ex.json")"
}

run_tests "$@"
