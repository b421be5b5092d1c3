#!/bin/bash
# Network faults on the rig's veth (exchange side egress) with
# 'netns/rig.sh netem': tc netem where the kernel has it, else the rig's
# emulation (tc BPF for loss and duplication, a slow HTB class for
# reordering).  With "loss 2% duplicate 1% reorder 20% delay 1ms":
#  - a kernel receiver in the gateway namespace sees lost, duplicated and
#    late packets, fills every gap through the re-request server (whose
#    answers cross the same faulty veth) and ends with trades == record;
#  - the emulation's own counters saw drops, duplicates and delays;
#  - 'netem off' leaves the veth with no qdisc or filter of ours, and a
#    rig taken down with faults on leaves nothing behind.
# A netem spec with correlation and jitter values is accepted too.
#
# Own rig, torn down on exit.  Bounded: about 4 s of feed.
set -u
P=fn$$
SUBNET=10.217.$(($$ % 250)).0/24
. "$(dirname "$0")/exsim_lib.sh"
. "$(dirname "$0")/faults_lib.sh"

need "$EXSIM" "$FRECV" ./build/netns/vethfault
rig_up
X=(ip netns exec "$RIG_NS_EX")

if rig netem "loss 2% duplicate 1% reorder 20% delay 1ms" >"$TMP/netem" 2>&1; then
	ok "netem on: $(cat "$TMP/netem")"
else
	fail "netem: $(cat "$TMP/netem")"
fi
emulated=0
grep -q emulated "$TMP/netem" && emulated=1

start_fault_recv n --rerequest "$RIG_IP_EX:$RIG_REREQUEST_PORT" --expect-complete \
	--trades "$TMP/n.trades" --timeout-ms 5000 --linger-ms 5000
"${X[@]}" timeout 60 "$EXSIM" -q --source gbm --stamp mono --feed "$RIG_GROUP" --feed-port "$RIG_FEED_PORT" \
	--order-port "$RIG_ORDER_PORT" --rerequest-port "$RIG_REREQUEST_PORT" \
	--symbols AAPL,MSFT --count 6000 --rate 2000 --grace 3000 \
	--record "$TMP/n.rec" --json "$TMP/n.json" >"$TMP/n.sim" 2>&1 ||
	fail "exsim failed: $(tail -3 "$TMP/n.sim")"
wait_recv n
o=$TMP/n.out
[ "$(kv "$o" result)" = ok ] && ok "receiver complete after gap fill ($(kv "$o" next_seq) messages)" ||
	fail "receiver: $(summary n)"
cmp -s "$TMP/n.rec" "$TMP/n.trades" && ok "trades == record" ||
	fail "trades differ from the record: $(cmp "$TMP/n.rec" "$TMP/n.trades" 2>&1)"
expect_ge "messages lost on the veth" "$(kv "$o" missing_from_feed)" 20
expect_ge "duplicated packets" "$(kv "$o" dup_packets)" 10
expect_ge "packets overtaken (late)" "$(kv "$o" late_packets)" 10
expect_ge "re-requests" "$(kv "$o" requests)" 10
expect_eq "the simulator itself dropped nothing" "$(jv "$TMP/n.json" .faults.dropped_packets)" 0
if [ "$emulated" = 1 ]; then
	"${X[@]}" ./build/netns/vethfault stats "$RIG_IF_EX" >"$TMP/vf" 2>&1
	expect_eq "emulation: frames seen == feed + re-request answers" "$(kv "$TMP/vf" seen)" \
		$(($(jv "$TMP/n.json" .packets) + $(jv "$TMP/n.json" .rerequest.packets)))
	expect_ge "emulation: dropped" "$(kv "$TMP/vf" dropped)" 20
	expect_ge "emulation: duplicated" "$(kv "$TMP/vf" duplicated)" 10
	expect_ge "emulation: delayed" "$(kv "$TMP/vf" delayed)" 200
fi

rig netem off >/dev/null 2>&1 || fail "netem off"
q=$("${X[@]}" tc qdisc show dev "$RIG_IF_EX")
f=$("${X[@]}" tc filter show dev "$RIG_IF_EX" egress 2>/dev/null)
if ! grep -qE 'netem|htb|clsact' <<<"$q" && [ -z "$f" ]; then
	ok "netem off: no qdisc or filter left ($q)"
else
	fail "netem off left: $q $f"
fi

rig netem "loss 1% duplicate 1% delay 200us reorder 5% 50%" >"$TMP/netem2" 2>&1 &&
	ok "netem spec with correlation values accepted: $(cat "$TMP/netem2")" ||
	fail "netem with correlation: $(cat "$TMP/netem2")"
rig netem "corrupt 1%" >"$TMP/netem3" 2>&1
rc=$?
if [ "$emulated" = 1 ]; then
	[ "$rc" -ne 0 ] && grep -q "not emulated" "$TMP/netem3" &&
		ok "a netem option the emulation lacks is refused" || fail "corrupt: $(cat "$TMP/netem3")"
fi
rig down >/dev/null 2>&1
if ip netns list | grep -qE "^$P-(ex|gw)( |$)" || ip -o link show | grep -q ": $P-v"; then
	fail "rig down with faults on left something: $(ip netns list | grep "^$P-")"
else
	ok "rig down with faults on leaves nothing"
fi

finish "netem"
