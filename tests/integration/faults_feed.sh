#!/bin/bash
# exsim's own feed faults do what they say, seen by a kernel receiver in
# the gateway namespace that fills gaps through the re-request server:
#  - --drop-rate and --drop-seqs: exactly the dropped messages never arrive
#    on the feed (the directory's among them), and every one of them comes
#    back by re-request: the receiver ends with every message, its trades
#    equal to the --record file (which has the dropped ticks too);
#  - --dup-rate: that many packets arrive twice (nothing new in them);
#  - --reorder-rate: that many packets arrive after a later one;
#  - the receiver's gap count equals dropped + held-back messages, its
#    datagram count the simulator's packets, and the --fault-log agrees
#    with the JSON counters;
#  - the same --fault-seed gives the same faults (one tick per packet, so
#    that the packets are the same); another one others.
#
# One rig for the file.  Bounded: three runs of about 2 s.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv

# run NAME SEED: receiver with gap fill + faulty simulator.
run() {
	local name=$1 seed=$2
	start_fault_recv "$name" --rerequest "$RIG_IP_EX:$RIG_REREQUEST_PORT" \
		--expect-complete --trades "$T_TMP/$name.trades" --timeout-ms 5000 || return 1
	ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --stamp mono --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --symbols AAPL,MSFT --noise 0.5 \
		--count 6000 --rate 3000 --drop-rate 0.03 --dup-rate 0.02 \
		--reorder-rate 0.03 --fault-seed "$seed" --drop-seqs 2,3,5000-5001 \
		--max-per-packet 1 --grace 1000 --record "$T_TMP/$name.rec" --json "$T_TMP/$name.json" \
		--fault-log "$T_TMP/$name.faults" >"$T_TMP/$name.sim" 2>&1 ||
		fail "$name: exsim failed: $(tail -3 "$T_TMP/$name.sim")"
	wait_recv "$name"
}

test_faults_happen_and_every_gap_is_filled() {
	local o j dropped served
	rig_up
	run a 7
	o=$T_TMP/a.out
	j=$T_TMP/a.json
	[ "$(kv "$o" result)" = ok ] && ok "receiver complete after gap fill: $(kv "$o" next_seq) messages" ||
		fail "receiver: $(summary a)"
	dropped=$(j "$j" .faults.dropped_msgs)
	expect_ge "packets dropped" "$(j "$j" .faults.dropped_packets)" 10
	expect_eq "dropped by --drop-seqs (2,3 share the opening packet; 5000-5001)" \
		"$(j "$j" .faults.seq_dropped_packets)" \
		"$(awk -F, '$1 == "drop" && (($2 <= 3 && $2 + $3 > 2) || ($2 <= 5001 && $2 + $3 > 5000))' "$T_TMP/a.faults" | wc -l)"
	expect_eq "messages that never came on the feed == dropped" "$(kv "$o" missing_from_feed)" "$dropped"
	expect_eq "messages filled by re-request == dropped" "$(kv "$o" fill_msgs)" "$dropped"
	# The server serves at least the dropped messages; more only when a held-back
	# (reordered) packet was still missing when the receiver asked, as it can be
	# when the VM stalls the simulator or the receiver for the 20 ms it waits.
	served=$(j "$j" .rerequest.messages)
	expect_ge "re-requested messages served >= dropped" "$served" "$dropped"
	[ "$((served - dropped))" -le "$(j "$j" .faults.reordered_msgs)" ] &&
		ok "re-requested beyond the dropped: $((served - dropped)), all held back (<= $(j "$j" .faults.reordered_msgs))" ||
		fail "served $served, dropped $dropped: more than the held-back messages"
	expect_eq "duplicated packets seen twice" "$(kv "$o" dup_packets)" "$(j "$j" .faults.dup_packets)"
	expect_ge "duplicated packets" "$(j "$j" .faults.dup_packets)" 10
	expect_eq "reordered packets arriving late" "$(kv "$o" late_packets)" "$(j "$j" .faults.reordered_packets)"
	expect_ge "reordered packets" "$(j "$j" .faults.reordered_packets)" 10
	expect_eq "gap messages == dropped + held back" "$(kv "$o" gap_msgs)" \
		$((dropped + $(j "$j" .faults.reordered_msgs)))
	# (the receiver stops at the first of the three end-of-session packets)
	expect_eq "datagrams received == sent (duplicates in, drops out)" \
		$(($(kv "$o" datagrams) - $(kv "$o" end_of_session))) \
		$(($(j "$j" .packets) - $(j "$j" .end_of_session)))
	expect_eq "record has every published tick, dropped or not" $(($(wc -l <"$T_TMP/a.rec") - 1)) 6000
	cmp -s "$T_TMP/a.rec" "$T_TMP/a.trades" && ok "trades after fill == record" ||
		fail "trades after fill differ from the record: $(cmp "$T_TMP/a.rec" "$T_TMP/a.trades" 2>&1)"
	expect_eq "fault log drops" "$(grep -c '^drop,' "$T_TMP/a.faults")" "$(j "$j" .faults.dropped_packets)"
	expect_eq "fault log dups" "$(grep -c '^dup,' "$T_TMP/a.faults")" "$(j "$j" .faults.dup_packets)"
	expect_eq "fault log reorders" "$(grep -c '^reorder,' "$T_TMP/a.faults")" "$(j "$j" .faults.reordered_packets)"
}

test_the_fault_seed_decides_the_faults() {
	rig_up
	[ -s "$T_TMP/a.faults" ] || run a 7
	run b 7
	run c 8
	if cmp -s <(cut -d, -f1-3 "$T_TMP/a.faults" | sort) <(cut -d, -f1-3 "$T_TMP/b.faults" | sort); then
		ok "same seed, same drops, duplicates and reorders"
	else
		fail "same seed gave other faults"
	fi
	if cmp -s <(grep '^drop,' "$T_TMP/a.faults") <(grep '^drop,' "$T_TMP/c.faults"); then
		fail "another seed gave the same drops"
	else
		ok "another seed, other drops"
	fi
}

test_another_seed_also_ends_complete() {
	rig_up
	[ -s "$T_TMP/c.faults" ] || run c 8
	[ "$(kv "$T_TMP/c.out" result)" = ok ] && cmp -s "$T_TMP/c.rec" "$T_TMP/c.trades" &&
		ok "seed 8: complete after gap fill, trades == record" || fail "seed 8: $(summary c)"
}

run_tests "$@"
