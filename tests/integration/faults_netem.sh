#!/bin/bash
# Network faults on the rig's veth with 'netns/rig.sh netem' (both ways,
# its default): tc netem where the kernel has it, else the rig's emulation
# (tc BPF for loss and duplication, a slow HTB class for reordering).  With
# "loss 2% duplicate 1% reorder 20% delay 1ms":
#  - a kernel receiver in the gateway namespace sees lost, duplicated and
#    late packets, fills every gap through the re-request server (whose
#    requests and answers cross the same faulty veth) and ends with
#    trades == record;
#  - the emulation's own counters (exchange -> gateway) saw drops,
#    duplicates and delays;
#  - 'netem off' leaves the veth with no qdisc or filter of ours and no
#    ifb, and a rig taken down with faults on leaves nothing behind.
# A netem spec with correlation and jitter values is accepted too.
#
# One rig for the file (its faults stay on from test to test, as they
# would in one run), taken down by the last test.  Bounded: about 4 s of
# feed.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv build/tools/vethfault

# emulated: 1 when the rig emulates netem (no sch_netem here).
emulated() {
	grep -q emulated "$T_TMP/netem"
}

test_gaps_from_netem_are_filled_by_rerequest() {
	local X o emulated
	rig_up
	X=(ip netns exec "$RIG_NS_EX")

	if "${RIG[@]}" netem "loss 2% duplicate 1% reorder 20% delay 1ms" >"$T_TMP/netem" 2>&1; then
		ok "netem on: $(cat "$T_TMP/netem")"
	else
		fail "netem: $(cat "$T_TMP/netem")"
	fi
	emulated=0
	emulated && emulated=1

	start_fault_recv n --rerequest "$RIG_IP_EX:$RIG_REREQUEST_PORT" --expect-complete \
		--trades "$T_TMP/n.trades" --timeout-ms 5000 --linger-ms 5000 || return 1
	"${X[@]}" timeout 60 build/t2t-exsim -q --source gbm --stamp mono --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
		--order-port "$RIG_ORDER_PORT" --rerequest-port "$RIG_REREQUEST_PORT" \
		--symbols AAPL,MSFT --count 6000 --rate 2000 --grace 3000 \
		--record "$T_TMP/n.rec" --json "$T_TMP/n.json" >"$T_TMP/n.sim" 2>&1 ||
		fail "exsim failed: $(tail -3 "$T_TMP/n.sim")"
	wait_recv n
	o=$T_TMP/n.out
	[ "$(kv "$o" result)" = ok ] && ok "receiver complete after gap fill ($(kv "$o" next_seq) messages)" ||
		fail "receiver: $(summary n)"
	cmp -s "$T_TMP/n.rec" "$T_TMP/n.trades" && ok "trades == record" ||
		fail "trades differ from the record: $(cmp "$T_TMP/n.rec" "$T_TMP/n.trades" 2>&1)"
	expect_ge "messages lost on the veth" "$(kv "$o" missing_from_feed)" 20
	expect_ge "duplicated packets" "$(kv "$o" dup_packets)" 10
	expect_ge "packets overtaken (late)" "$(kv "$o" late_packets)" 10
	expect_ge "re-requests" "$(kv "$o" requests)" 10
	expect_eq "the simulator itself dropped nothing" "$(j "$T_TMP/n.json" .faults.dropped_packets)" 0
	if [ "$emulated" = 1 ]; then
		"${X[@]}" ./build/tools/vethfault stats "$RIG_IFB_OUT" >"$T_TMP/vf" 2>&1
		expect_eq "emulation: frames seen == feed + re-request answers" "$(kv "$T_TMP/vf" seen)" \
			$(($(j "$T_TMP/n.json" .packets) + $(j "$T_TMP/n.json" .rerequest.packets)))
		expect_ge "emulation: dropped" "$(kv "$T_TMP/vf" dropped)" 20
		expect_ge "emulation: duplicated" "$(kv "$T_TMP/vf" duplicated)" 10
		expect_ge "emulation: delayed" "$(kv "$T_TMP/vf" delayed)" 200
	fi
}

test_netem_off_leaves_nothing() {
	local X q f
	rig_up
	X=(ip netns exec "$RIG_NS_EX")
	"${RIG[@]}" netem off >/dev/null 2>&1 || fail "netem off"
	q=$("${X[@]}" tc qdisc show dev "$RIG_IF_EX")
	f=$("${X[@]}" tc filter show dev "$RIG_IF_EX" egress 2>/dev/null
	    "${X[@]}" tc filter show dev "$RIG_IF_EX" ingress 2>/dev/null)
	if ! grep -qE 'netem|htb|clsact' <<<"$q" && [ -z "$f" ] &&
	   ! ip -n "$RIG_NS_EX" link show dev "$RIG_IFB_EX" >/dev/null 2>&1 &&
	   ! ip -n "$RIG_NS_EX" link show dev "$RIG_IFB_OUT" >/dev/null 2>&1; then
		ok "netem off: no qdisc, filter or ifb left ($q)"
	else
		fail "netem off left: $q $f $(ip -n "$RIG_NS_EX" -o link show dev "$RIG_IFB_EX" 2>&1)"
	fi
}

test_netem_specs_accepted_or_refused_as_the_emulation_can() {
	local rc emulated=0
	rig_up
	[ -e "$T_TMP/netem" ] || "${RIG[@]}" netem "loss 2% duplicate 1% reorder 20% delay 1ms" >"$T_TMP/netem" 2>&1
	emulated && emulated=1
	"${RIG[@]}" netem "loss 1% duplicate 1% delay 200us reorder 5% 50%" >"$T_TMP/netem2" 2>&1 &&
		ok "netem spec with correlation values accepted: $(cat "$T_TMP/netem2")" ||
		fail "netem with correlation: $(cat "$T_TMP/netem2")"
	"${RIG[@]}" netem "corrupt 1%" >"$T_TMP/netem3" 2>&1
	rc=$?
	if [ "$emulated" = 1 ]; then
		[ "$rc" -ne 0 ] && grep -q "not emulated" "$T_TMP/netem3" &&
			ok "a netem option the emulation lacks is refused" || fail "corrupt: $(cat "$T_TMP/netem3")"
	fi
}

test_rig_down_with_faults_on_leaves_nothing() {
	rig_up
	"${RIG[@]}" netem "loss 1% duplicate 1% delay 200us reorder 5% 50%" >/dev/null 2>&1 ||
		fail "netem on before the rig goes down"
	"${RIG[@]}" down >/dev/null 2>&1
	if ip netns list | grep -qE "^$RIG_PREFIX-(ex|gw)( |$)" || ip -o link show | grep -q ": $RIG_PREFIX-v"; then
		fail "rig down with faults on left something: $(ip netns list | grep "^$RIG_PREFIX-")"
	else
		ok "rig down with faults on leaves nothing"
	fi
}

run_tests "$@"
