#!/bin/bash
# exsim's MoldUDP64 re-request server, asked from the gateway namespace
# while the simulator lingers after the end of session:
#  - by default a request is answered as real servers do: with one packet,
#    as many of the messages asked for as fit, from the first one asked;
#  - with --rerequest-answer all, the whole session, fetched in requests of
#    2000, is every published
#    message with exactly the bytes the feed carried (compared with what a
#    kernel receiver got) and, for the packets --drop-seqs kept off the
#    wire, the trades of the --record file;
#  - a wrong session, a sequence number not yet published, one beyond the
#    store, count 0, sequence number 0 and a 19-byte request get nothing and
#    are counted each under its reason; a request past the last message is
#    served up to it, one over the cap up to the cap;
#  - the token bucket: with a bucket of 3000 messages and no refill to
#    speak of, five requests of 1000 get three answers and two refusals.
#
# One rig for the file.  Bounded: three runs of a few seconds.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv build/tools/rerequest_client

test_answers_all_carry_the_feeds_bytes_and_refusals_are_counted() {
	local RQ next msgs dropped requests s n trades_checked trades_bad seq hex rec got j
	rig_up
	RQ="$RIG_IP_EX $RIG_REREQUEST_PORT"
	start_fault_recv feed --dump "$T_TMP/dump.csv" --timeout-ms 5000 || return 1
	bg ex ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --symbols AAPL,MSFT,NVDA --noise 1.5 \
		--count 3000 --rate 5000 --drop-seqs 3,40-45,1000 --linger 100 --grace 8000 \
		--rerequest-answer all \
		--record "$T_TMP/rec.csv" --json "$T_TMP/ex.json" --fault-log "$T_TMP/faults.csv"
	wait_recv feed
	next=$(kv "$T_TMP/feed.out" next_seq)
	msgs=$((next - 1))
	dropped=$(kv "$T_TMP/feed.out" missing_from_feed)
	[ "$(kv "$T_TMP/feed.out" result)" = ok ] && [ "$msgs" -gt 6000 ] &&
		ok "feed received to the end of session: $msgs messages, $dropped kept off the wire" ||
		fail "feed receiver: $(summary feed)"

	# The whole session, 2000 at a time.
	: >"$T_TMP/all.csv"
	requests=0
	for ((s = 1; s < next; s += 2000)); do
		n=$((next - s < 2000 ? next - s : 2000))
		rr --expect "$n" $RQ "$s" "$n" >>"$T_TMP/all.csv" 2>>"$T_TMP/rr.err" ||
			fail "request $s+$n: $(tail -1 "$T_TMP/rr.err")"
		requests=$((requests + 1))
	done
	expect_eq "messages answered for 1..$msgs" "$(wc -l <"$T_TMP/all.csv")" "$msgs"
	expect_eq "answered in sequence order 1..$msgs" \
		"$(cut -d, -f1 "$T_TMP/all.csv" | awk '$1 != NR { bad++ } END { print bad + 0 }')" 0
	awk -F, 'NR == FNR { k[$1]; next } $1 in k' "$T_TMP/dump.csv" "$T_TMP/all.csv" >"$T_TMP/all_recv.csv"
	if [ "$(wc -l <"$T_TMP/dump.csv")" -eq $((msgs - dropped)) ] && cmp -s "$T_TMP/all_recv.csv" "$T_TMP/dump.csv"; then
		ok "answers carry the same bytes as the feed for all $((msgs - dropped)) messages it carried"
	else
		fail "answers differ from the feed's bytes: $(cmp "$T_TMP/all_recv.csv" "$T_TMP/dump.csv" 2>&1)"
	fi

	# Nothing for these, each counted under its reason.
	rr --expect-none --session OTHER $RQ 1 10 2>/dev/null || fail "wrong session answered"
	rr --expect-none $RQ $((next + 5)) 10 2>/dev/null || fail "future sequence number answered"
	rr --expect-none $RQ 1099511627776 10 2>/dev/null || fail "sequence number beyond the store answered"
	rr --expect-none $RQ 1 0 2>/dev/null || fail "count 0 answered"
	rr --expect-none $RQ 0 10 2>/dev/null || fail "sequence number 0 answered"
	rr --expect-none --raw 455853494d303030303100000000000000010a $RQ 2>/dev/null ||
		fail "19-byte request answered"
	rr --expect 10 --raw 455853494d3030303031000000000000000b000a $RQ >/dev/null 2>&1 ||
		fail "the same request in 20 bytes (seq 11, count 10) got not 10 messages"
	# Served in part.
	rr --expect 3 $RQ $((next - 3)) 100 >/dev/null 2>&1 || fail "request past the end: not the 3 last messages"
	rr --expect 2000 $RQ 1 5000 >/dev/null 2>&1 || fail "request over the cap: not 2000 messages"
	kill -TERM "$ex_pid" 2>/dev/null
	wait "$ex_pid"

	# The messages that never left: the dropped packets' trades are the record's.
	trades_checked=0
	trades_bad=0
	while IFS=, read -r seq hex; do
		rec=$(awk -F, -v s="$seq" '$1 == s { print $4 "," $5 }' "$T_TMP/rec.csv")
		[ "${hex:0:2}" = 50 ] || { [ -z "$rec" ] || trades_bad=$((trades_bad + 1)); continue; }
		got="$((16#${hex:64:8})),$((16#${hex:40:8}))"
		[ "$got" = "$rec" ] || trades_bad=$((trades_bad + 1))
		trades_checked=$((trades_checked + 1))
	done < <(awk -F, 'NR == FNR { k[$1]; next } !($1 in k)' "$T_TMP/dump.csv" "$T_TMP/all.csv")
	[ "$trades_checked" -gt 0 ] && [ "$trades_bad" -eq 0 ] &&
		ok "the $trades_checked trades only the server had match the record (price, shares)" ||
		fail "dropped trades: $trades_bad of $trades_checked differ from the record"

	j=$T_TMP/ex.json
	expect_eq "refused: wrong session" "$(j "$j" .rerequest.refusals.wrong_session)" 1
	expect_eq "refused: future" "$(j "$j" .rerequest.refusals.future)" 1
	expect_eq "refused: beyond store" "$(j "$j" .rerequest.refusals.beyond_store)" 1
	expect_eq "refused: count 0" "$(j "$j" .rerequest.refusals.zero_count)" 1
	expect_eq "refused: seq 0" "$(j "$j" .rerequest.refusals.bad_seq)" 1
	expect_eq "refused: malformed (19 bytes)" "$(j "$j" .rerequest.refusals.malformed)" 1
	expect_eq "refused in all" "$(j "$j" .rerequest.refused)" 6
	expect_eq "served truncated at the last message" "$(j "$j" .rerequest.truncated)" 1
	expect_eq "served clipped at the cap" "$(j "$j" .rerequest.clipped)" 1
	expect_eq "served" "$(j "$j" .rerequest.served)" $((requests + 3))
	expect_eq "messages resent" "$(j "$j" .rerequest.messages)" $((msgs + 10 + 3 + 2000))
	expect_eq "dropped messages in the JSON" "$(j "$j" .faults.dropped_msgs)" "$dropped"
	expect_eq "dropped packets by --drop-seqs" "$(j "$j" .faults.seq_dropped_packets)" \
		"$(grep -c '^drop,' "$T_TMP/faults.csv")"
	expect_eq "store holds every message" "$(j "$j" .store.messages)" "$msgs"
}

# The token bucket: 3000 messages, refilled at 1 a second.
test_the_token_bucket_refuses_past_its_burst() {
	local RQ
	rig_up
	RQ="$RIG_IP_EX $RIG_REREQUEST_PORT"
	start_fault_recv rl --timeout-ms 5000 || return 1
	bg ex ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --count 3000 --rate 0 --linger 0 \
		--grace 4000 --rerequest-rate 1 --rerequest-burst 3000 --rerequest-max 1000 \
		--rerequest-answer all \
		--json "$T_TMP/rl.json"
	wait_recv rl
	rr --repeat 5 --expect 3000 $RQ 1 1000 >/dev/null 2>"$T_TMP/rl.err" ||
		fail "rate limit: $(cat "$T_TMP/rl.err")"
	kill -TERM "$ex_pid" 2>/dev/null
	wait "$ex_pid"
	expect_eq "rate limit: served" "$(j "$T_TMP/rl.json" .rerequest.served)" 3
	expect_eq "rate limit: refused" "$(j "$T_TMP/rl.json" .rerequest.refusals.rate_limited)" 2
}

# The default: one packet per request, as many messages as fit, then the rest.
test_a_request_is_answered_with_one_packet() {
	local RQ got
	rig_up
	RQ="$RIG_IP_EX $RIG_REREQUEST_PORT"
	start_fault_recv one --timeout-ms 5000 || return 1
	bg ex ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --count 500 --rate 0 --linger 0 \
		--grace 4000 --json "$T_TMP/one.json"
	wait_recv one
	rr $RQ 10 200 >"$T_TMP/one.csv" 2>"$T_TMP/one.err"
	got=$(wc -l <"$T_TMP/one.csv")
	grep -q "packets=1 " "$T_TMP/one.err" && [ "$got" -gt 20 ] && [ "$got" -lt 200 ] &&
		[ "$(head -1 "$T_TMP/one.csv" | cut -d, -f1)" = 10 ] &&
		ok "one packet answers a request of 200: $got messages from the first asked" ||
		fail "one-packet answer: $(tail -1 "$T_TMP/one.err")"
	# Trades all: the next packet holds as many again.
	rr --expect "$got" $RQ $((10 + got)) $((200 - got)) >/dev/null 2>&1 &&
		ok "the rest, asked for again, comes as the next packet" ||
		fail "the rest of the request, asked for again, did not come"
	kill -TERM "$ex_pid" 2>/dev/null
	wait "$ex_pid"
	expect_eq "one packet per request" "$(j "$T_TMP/one.json" .rerequest.packets)" \
		"$(j "$T_TMP/one.json" .rerequest.served)"
}

run_tests "$@"
