#!/bin/bash
# The rig comes up (twice: idempotent), carries unicast both ways and the
# feed group from the exchange to a plain receiver in the gateway namespace,
# has what the gateway needs (static neighbours, TX checksum offload, TSO
# and GRO off, one segment per skb on the exchange end, one queue), and
# goes down leaving nothing, also from a half-made state; a rig whose owner
# was killed before its trap ran is taken down by the next up, one whose
# owner runs is not.
#
# Uses only namespaces of its own (the rig's names, T_ID), taken down at exit
# whatever happens.
. "$(dirname "$0")/../lib.sh"
need root build/tools/mcast_recv

PORT=26499
t_rig ""
P=${T_RIG%% *}
SUBNET=${T_RIG#* }

rig() {
	./netns/rig.sh --prefix "$P" --subnet "$SUBNET" "$@"
}

# Nothing named after this rig left anywhere we can see.
assert_nothing_left() {
	local what=$1
	if ip netns list | grep -qE "^$P-(ex|gw)( |$)"; then
		fail "$what: namespace left: $(ip netns list | grep "^$P-")"
	elif ip -o link show | grep -q ": $P-v"; then
		fail "$what: veth left in the caller's namespace"
	else
		ok "$what: no namespace, no veth left"
	fi
}

# ---- bad arguments are refused before anything is created ----
test_bad_arguments_refused_before_anything_is_made() {
	if ./netns/rig.sh --prefix "much_too_long_prefix" up >/dev/null 2>&1; then
		fail "an over-long prefix was accepted"
	else
		ok "over-long prefix refused"
	fi
	if ./netns/rig.sh --prefix "$P" --subnet 10.1.2.3/16 up >/dev/null 2>&1; then
		fail "a non-/24 subnet was accepted"
	else
		ok "bad subnet refused"
	fi
	assert_nothing_left "after refused arguments"
}

test_up_twice_is_complete() {
	rig up >/dev/null || { fail "rig up"; return 1; }
	rig up >/dev/null || fail "second rig up"
	if rig status >"$T_TMP/status"; then
		ok "status reports complete after two ups"
	else
		fail "status after up: $(cat "$T_TMP/status")"
	fi

	eval "$(rig env)"
	[ "$RIG_NS_EX" = "$P-ex" ] && [ "$RIG_IF_GW" = "$P-vgw" ] ||
		fail "env names: $RIG_NS_EX $RIG_IF_GW"
	[ -n "$RIG_IFINDEX_EX" ] && [ -n "$RIG_IFINDEX_GW" ] ||
		fail "env has no ifindex while up"
	[ "$(ip netns exec "$RIG_NS_GW" cat "/sys/class/net/$RIG_IF_GW/ifindex")" = "$RIG_IFINDEX_GW" ] ||
		fail "env ifindex $RIG_IFINDEX_GW is not the gateway veth's"
}

test_the_rig_has_what_the_gateway_relies_on() {
	local side ns_var if_var mac_var ns dev mac peer_ip peer_mac
	rig up >/dev/null || { fail "rig up"; return 1; }
	eval "$(rig env)"
	for side in EX GW; do
		ns_var=RIG_NS_$side if_var=RIG_IF_$side mac_var=RIG_MAC_$side
		ns=${!ns_var} dev=${!if_var} mac=${!mac_var}
		if [ "$side" = EX ]; then peer_ip=$RIG_IP_GW peer_mac=$RIG_MAC_GW; else peer_ip=$RIG_IP_EX peer_mac=$RIG_MAC_EX; fi

		ip netns exec "$ns" ethtool -k "$dev" >"$T_TMP/offloads"
		grep -qx 'tx-checksumming: off' "$T_TMP/offloads" &&
			ok "$dev: tx checksum offload off" ||
			fail "$dev: tx checksum offload not off"
		grep -qx 'tcp-segmentation-offload: off' "$T_TMP/offloads" &&
			! grep -qE '^	tx-tcp.*segmentation: on' "$T_TMP/offloads" &&
			ok "$dev: TSO off, every kind of it" ||
			fail "$dev: TSO not off: $(grep -E 'tcp.*segmentation' "$T_TMP/offloads" | tr -d '\t' | tr '\n' ' ')"
		grep -qx 'generic-receive-offload: off' "$T_TMP/offloads" &&
			ok "$dev: GRO off" || fail "$dev: GRO not off"
		if [ "$side" = EX ]; then
			ip -n "$ns" -d link show dev "$dev" | grep -q 'gso_max_segs 1 ' &&
				ok "$dev: one segment per skb (gso_max_segs 1)" ||
				fail "$dev: gso_max_segs is not 1"
		fi
		[ "$(ip netns exec "$ns" cat "/sys/class/net/$dev/address")" = "$mac" ] &&
			ok "$dev: MAC $mac" || fail "$dev: MAC is not $mac"
		ip -n "$ns" neigh show "$peer_ip" dev "$dev" | grep -q "lladdr $peer_mac PERMANENT" &&
			ok "$dev: static neighbour $peer_ip -> $peer_mac" ||
			fail "$dev: no permanent neighbour for $peer_ip"
		[ "$(ip netns exec "$ns" ls "/sys/class/net/$dev/queues" | grep -c '^rx-')" = 1 ] &&
			ok "$dev: one rx queue" || fail "$dev: not one rx queue"
		ip -n "$ns" -o link show dev lo | grep -q 'UP' ||
			fail "$ns: loopback not up"
	done
}

test_unicast_both_ways_without_arp() {
	rig up >/dev/null || { fail "rig up"; return 1; }
	eval "$(rig env)"
	ip netns exec "$RIG_NS_EX" ping -c 2 -i 0.2 -W 1 "$RIG_IP_GW" >/dev/null &&
		ok "ping exchange -> gateway" || fail "ping exchange -> gateway"
	ip netns exec "$RIG_NS_GW" ping -c 2 -i 0.2 -W 1 "$RIG_IP_EX" >/dev/null &&
		ok "ping gateway -> exchange" || fail "ping gateway -> exchange"
	# Static entries mean the pings above needed no ARP: none stays incomplete
	# or gets replaced by a learned one.
	if ip -n "$RIG_NS_EX" neigh show dev "$RIG_IF_EX" | grep -v PERMANENT | grep -q .; then
		fail "a non-static neighbour appeared on $RIG_IF_EX"
	fi
}

test_the_feed_group_reaches_the_gateway_namespace() {
	local payload line
	rig up >/dev/null || { fail "rig up"; return 1; }
	eval "$(rig env)"
	bg recv ip netns exec "$RIG_NS_GW" build/tools/mcast_recv "$RIG_GROUP" "$PORT" "$RIG_IP_GW" 1 3000
	for _ in $(seq 50); do
		grep -q '^joined$' "$T_TMP/recv.out" && break
		kill -0 "$recv_pid" 2>/dev/null || break
		sleep 0.1
	done
	payload="tick-$$"
	# bash's /dev/udp: connect() + write(), i.e. an ordinary sender that relies
	# on the rig's route for the group (there is no default route).
	if ! ip netns exec "$RIG_NS_EX" bash -c "printf '%s' '$payload' >/dev/udp/$RIG_GROUP/$PORT"; then
		fail "send to $RIG_GROUP from the exchange namespace"
	fi
	if wait "$recv_pid"; then
		line=$(sed -n 2p "$T_TMP/recv.out")
		case "$line" in
		"${#payload} $RIG_IP_EX:"*" $payload")
			ok "multicast $RIG_GROUP:$PORT received in the gateway namespace: $line" ;;
		*)
			fail "multicast received but not as sent: '$line'" ;;
		esac
	else
		fail "multicast not received: $(cat "$T_TMP/recv.err")"
	fi
}

test_down_twice_leaves_nothing() {
	rig up >/dev/null || { fail "rig up"; return 1; }
	rig down >/dev/null || fail "rig down"
	rig down >/dev/null || fail "second rig down"
	assert_nothing_left "after down"
	rig status >/dev/null
	[ $? -eq 2 ] && ok "status reports absent" || fail "status after down is not 'absent'"
}

test_down_after_half_made_ups_leaves_nothing() {
	# Only the exchange namespace was made.
	ip netns add "$P-ex"
	rig status >/dev/null
	[ $? -eq 1 ] && ok "status reports incomplete" || fail "status of a half rig is not 'incomplete'"
	rig down >/dev/null || fail "down of a lone namespace"
	assert_nothing_left "after down of a lone namespace"
	# Both ends of the pair stuck in the exchange namespace, no gateway one.
	ip netns add "$P-ex"
	ip -n "$P-ex" link add "$P-vex" type veth peer name "$P-vgw"
	rig down >/dev/null || fail "down of a misplaced pair"
	assert_nothing_left "after down of a misplaced pair"
	# The same state repaired by up instead.
	ip netns add "$P-ex"
	ip -n "$P-ex" link add "$P-vex" type veth peer name "$P-vgw"
	rig up >/dev/null && rig status >/dev/null && ok "up completes a misplaced pair" ||
		fail "up did not complete a misplaced pair"
	rig down >/dev/null
	assert_nothing_left "after the final down"
}

# A rig owned by a process killed with SIGKILL (no trap runs) is taken down
# by the next rig's up; a rig whose owner still runs is left alone.
test_a_rig_left_by_a_killed_owner_is_taken_down_by_the_next_up() {
	local dead alive p_dead p_alive
	t_rig k
	p_dead=${T_RIG%% *}
	t_rig a
	p_alive=${T_RIG%% *}
	sleep 60 &
	dead=$!
	sleep 60 &
	alive=$!
	./netns/rig.sh --prefix "$p_dead" --subnet "$(t_subnet k)" --owner "$dead" up >/dev/null &&
		./netns/rig.sh --prefix "$p_alive" --subnet "$(t_subnet a)" --owner "$alive" up \
			>/dev/null || { fail "the two owned rigs did not come up"; return 1; }
	expect_eq "the owner is recorded" "$(cut -d' ' -f1 "/run/t2t-rigs/$p_dead")" "$dead"
	kill -9 "$dead"
	wait "$dead" 2>/dev/null
	rig up >/dev/null 2>"$T_TMP/reap.err" || fail "rig up"
	check "the killed owner's rig is gone, and up said so ($(head -1 "$T_TMP/reap.err"))" \
		bash -c "! ip netns list | grep -q '^$p_dead-' && [ ! -e /run/t2t-rigs/$p_dead ] &&
			 grep -q 'rig $p_dead was left behind by process $dead' '$T_TMP/reap.err'"
	check "the rig whose owner runs is still up" \
		bash -c "./netns/rig.sh --prefix '$p_alive' --subnet '$(t_subnet a)' status >/dev/null"
	kill "$alive"
	wait "$alive" 2>/dev/null
	./netns/rig.sh --prefix "$p_alive" down >/dev/null
	check "down removes the owner's record" test ! -e "/run/t2t-rigs/$p_alive"
	rig down >/dev/null
}

run_tests "$@"
