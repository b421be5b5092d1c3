#!/bin/bash
# 'netns/rig.sh netem' hurts TCP for real, each way, with the kernel's TCP
# on both ends of the rig (a 2 MB bulk transfer: nc listening, bash's
# /dev/tcp sending):
#  - loss, --dir out (exchange -> gateway, the exchange veth's egress): the
#    exchange resends what was lost (TcpRetransSegs, in its namespace, at
#    least the frames the injector stole, less the two pure ACKs no one
#    resends), the gateway queued segments behind the holes (TCPOFOQueue),
#    and the injector saw every segment, not GSO bundles of them;
#  - loss, --dir in (gateway -> exchange, through the ifb): the same with
#    the roles swapped;
#  - duplication, both ways (the default): the receiver got exactly what
#    passed plus every duplicate (TcpInSegs) and answered them with D-SACKs
#    (TCPDSACKOldSent + TCPDSACKOfoSent);
#  - reordering, both ways: the receiver queued segments that overtook the
#    delayed ones (TCPOFOQueue);
#  - every transfer arrives intact; 'netem off' leaves no qdisc, filter or
#    ifb in the exchange namespace; status shows which way faults are on.
# Both ends run on one CPU: two CPUs' backlogs reorder a veth's frames by
# themselves (up to 99 retransmissions in a 2 MB transfer without faults
# here), one keeps the rig's own part at zero.
#
# One rig for the file.  Bounded: 2 MB per transfer, 30 s at most each.
. "$(dirname "$0")/../lib.sh"
need root nc nstat taskset build/tools/vethfault

PORT=26451
CPU=$(($(nproc) - 1))
DATA=$T_TMP/data
head -c 2000000 /dev/urandom >"$DATA"

# snap N: both namespaces' kernel counters, absolute (nstat keeps one
# history file for every namespace: its own deltas would mix them).
snap() {
	ip netns exec "$RIG_NS_EX" nstat -asz >"$T_TMP/ex.$1"
	ip netns exec "$RIG_NS_GW" nstat -asz >"$T_TMP/gw.$1"
}

# d ex|gw COUNTER...: their sum's rise over the last transfer.
d() {
	local side=$1
	shift
	awk -v keys=" $* " 'index(keys, " " $1 " ") { v[FILENAME] += $2 }
		END { print v[ARGV[2]] - v[ARGV[1]] }' "$T_TMP/$side.0" "$T_TMP/$side.1"
}

# vf out|in KEY: a counter of the injector of that way since netem set it
# up (out: the exchange veth's egress, in: its ifb's egress).
vf() {
	local dev=$RIG_IFB_OUT
	[ "$1" = in ] && dev=$RIG_IFB_EX
	ip netns exec "$RIG_NS_EX" build/tools/vethfault stats "$dev" 2>/dev/null |
		sed -n "s/^$2=//p"
}

listening() {
	ip netns exec "$1" ss -Hltn "sport = :$PORT" | grep -q .
}

# transfer out|in: DATA from the exchange to the gateway (out) or from the
# gateway to the exchange (in); the counters before it in *.0, after it in
# *.1.
transfer() {
	local from=$RIG_NS_EX to=$RIG_NS_GW ip=$RIG_IP_GW
	[ "$1" = in ] && { from=$RIG_NS_GW to=$RIG_NS_EX ip=$RIG_IP_EX; }
	snap 0
	bg rx ip netns exec "$to" taskset -c "$CPU" timeout 30 nc -d -l "$ip" "$PORT"
	wait_for 5 listening "$to" || { fail "$1: nc did not listen: $(cat "$T_TMP/rx.err")"; return 1; }
	ip netns exec "$from" taskset -c "$CPU" timeout 30 \
		bash -c 'cat "$1" >"/dev/tcp/$2/$3"' _ "$DATA" "$ip" "$PORT" ||
		fail "$1: the sender failed"
	# shellcheck disable=SC2154 # bg set it
	wait "$rx_pid" || fail "$1: the receiver failed: $(cat "$T_TMP/rx.err")"
	# The last ACK of the close on its way, then nothing moves.
	sleep 0.5
	snap 1
	if cmp -s "$DATA" "$T_TMP/rx.out"; then
		ok "$1: $(stat -c %s "$DATA") bytes arrived intact"
	else
		fail "$1: the data arrived damaged or short ($(stat -c %s "$T_TMP/rx.out") bytes)"
	fi
}

# netem SPEC [OPTIONS]: the faults, anew (the injector's counters from 0).
netem() {
	if "${RIG[@]}" netem "$@" >"$T_TMP/netem" 2>&1; then
		ok "netem $*: $(cat "$T_TMP/netem")"
	else
		fail "netem $*: $(cat "$T_TMP/netem")"
		return 1
	fi
}

# lost_and_resent out|in SENDER RECEIVER
lost_and_resent() {
	local way=$1 tx=$2 rx=$3 lost
	transfer "$way" || return 1
	lost=$(vf "$way" dropped)
	expect_ge "$way: frames lost by the injector" "$lost" 10
	expect_ge "$way: $tx retransmissions (TcpRetransSegs) >= frames lost - 2" \
		"$(d "$tx" TcpRetransSegs)" $((lost - 2))
	expect_ge "$way: $rx segments queued out of order behind the holes (TCPOFOQueue) >= lost / 2" \
		"$(d "$rx" TcpExtTCPOFOQueue)" $((lost / 2))
	expect_ge "$way: the injector saw every segment $tx sent (not GSO bundles)" \
		"$(vf "$way" seen)" "$(d "$tx" TcpOutSegs)"
}

test_loss_out_is_resent_by_the_exchange() {
	rig_up
	netem "loss 3%" --dir out || return 1
	"${RIG[@]}" status >"$T_TMP/status"
	grep -qE 'netem out (tc bpf|netem qdisc).* \| in off$' "$T_TMP/status" &&
		ok "status: $(grep -m1 'netem out' "$T_TMP/status" | sed 's/^ *//')" ||
		fail "status does not show netem out only: $(grep netem "$T_TMP/status")"
	lost_and_resent out ex gw
}

test_loss_in_is_resent_by_the_gateway() {
	rig_up
	netem "loss 3%" --dir in || return 1
	"${RIG[@]}" status >"$T_TMP/status"
	grep -qE "netem out off \| in .*via $RIG_IFB_EX" "$T_TMP/status" &&
		ok "status: $(grep -m1 'netem out' "$T_TMP/status" | sed 's/^ *//')" ||
		fail "status does not show netem in only: $(grep netem "$T_TMP/status")"
	lost_and_resent in gw ex
}

test_duplicates_reach_the_receiver_both_ways() {
	local way tx rx dup
	rig_up
	for way in out in; do
		tx="ex" rx=gw
		[ "$way" = in ] && { tx=gw rx="ex"; }
		netem "duplicate 3%" || return 1
		transfer "$way" || return 1
		dup=$(vf "$way" duplicated)
		expect_ge "$way: frames duplicated by the injector" "$dup" 10
		expect_eq "$way: $rx received (TcpInSegs) what passed the injector plus its duplicates" \
			"$(d "$rx" TcpInSegs)" $(($(vf "$way" seen) + dup))
		expect_ge "$way: $rx D-SACKs for duplicates (TCPDSACKOldSent + TCPDSACKOfoSent) >= duplicated / 2" \
			"$(d "$rx" TcpExtTCPDSACKOldSent TcpExtTCPDSACKOfoSent)" $((dup / 2))
	done
}

test_reordering_is_seen_by_the_receiver_both_ways() {
	local way rx delayed
	rig_up
	for way in out in; do
		rx=gw
		[ "$way" = in ] && rx="ex"
		netem "reorder 5% delay 200us" || return 1
		transfer "$way" || return 1
		delayed=$(vf "$way" delayed)
		expect_ge "$way: frames delayed by the injector" "$delayed" 10
		expect_ge "$way: $rx segments queued out of order (TCPOFOQueue) >= delayed / 2" \
			"$(d "$rx" TcpExtTCPOFOQueue)" $((delayed / 2))
	done
}

test_netem_off_leaves_nothing() {
	local X q f l
	rig_up
	X=(ip netns exec "$RIG_NS_EX")
	netem "loss 1% duplicate 1% reorder 5% delay 200us" || return 1
	"${X[@]}" tc filter show dev "$RIG_IF_EX" ingress | grep -q "to device $RIG_IFB_EX)" &&
		ok "netem on: $RIG_IF_EX's ingress redirected to $RIG_IFB_EX" ||
		fail "netem on: no redirect to $RIG_IFB_EX on $RIG_IF_EX's ingress"
	"${X[@]}" tc filter show dev "$RIG_IF_EX" egress | grep -q "to device $RIG_IFB_OUT)" &&
		ok "netem on: $RIG_IF_EX's egress redirected to $RIG_IFB_OUT" ||
		fail "netem on: no redirect to $RIG_IFB_OUT on $RIG_IF_EX's egress"
	"${RIG[@]}" netem off >"$T_TMP/netem" 2>&1 || fail "netem off: $(cat "$T_TMP/netem")"
	q=$("${X[@]}" tc qdisc show)
	f=$("${X[@]}" tc filter show dev "$RIG_IF_EX" ingress; "${X[@]}" tc filter show dev "$RIG_IF_EX" egress)
	l=$(ip -n "$RIG_NS_EX" -o link show type ifb)
	if ! grep -qE 'netem|htb|clsact' <<<"$q" && [ -z "$f" ] && [ -z "$l" ]; then
		ok "netem off: no qdisc, filter or ifb left ($(tr '\n' ' ' <<<"$q"))"
	else
		fail "netem off left: $q $f $l"
	fi
	"${RIG[@]}" status >"$T_TMP/status"
	grep -q 'netem out off | in off$' "$T_TMP/status" && ok "status: netem off both ways" ||
		fail "status after netem off: $(grep netem "$T_TMP/status")"
	transfer out
	transfer in
}

# A bad spec is refused with what to do, and leaves the line as it was.
test_netem_refuses_what_tc_cannot_do() {
	rig_up
	expect_exit 1 "netem: reorder needs a delay" "${RIG[@]}" netem "loss 3% reorder 5%"
	"${RIG[@]}" status >"$T_TMP/status"
	grep -q 'netem out off | in off$' "$T_TMP/status" && ok "status: netem still off both ways" ||
		fail "status after the refusals: $(grep netem "$T_TMP/status")"
}

run_tests "$@"
