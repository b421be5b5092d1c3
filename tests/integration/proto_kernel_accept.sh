#!/bin/bash
# Real kernel UDP sockets accept frames built by libproto's template and
# checksum code, and drop the ones whose checksums were deliberately broken.
# Two namespaces joined by a veth pair, both made (and removed) by this run:
# proto-frame-check sends raw frames through AF_PACKET in one, a UDP socket
# receives in the other; the kernel's UDP InCsumErrors and IP InHdrErrors
# must each count exactly one drop.
. "$(dirname "$0")/../lib.sh"
need root build/tools/proto-frame-check

NS_TX=${T_ID}tx
NS_RX=${T_ID}rx

# snmp SECTION FIELD: one value of /proc/net/snmp in the receiving namespace.
snmp() {
	ip netns exec "$NS_RX" awk -v sec="$1:" -v key="$2" '
		$1 == sec && !hdr { for (i = 2; i <= NF; i++) col[$i] = i; hdr = 1; next }
		$1 == sec && hdr { print $col[key]; exit }' /proc/net/snmp
}

test_kernel_accepts_good_frames_and_drops_bad_checksums() {
	local if_tx=${T_ID}t if_rx=${T_ID}r net port=26500 rx_mac csum0 hdr0 rc
	net=$(t_subnet k)
	net=${net%.0/24}
	at_exit ip netns del "$NS_TX"
	at_exit ip netns del "$NS_RX"
	ip netns add "$NS_TX" && ip netns add "$NS_RX" &&
		ip link add "$if_tx" netns "$NS_TX" type veth peer name "$if_rx" netns "$NS_RX" &&
		ip -n "$NS_TX" addr add "$net.1/24" dev "$if_tx" &&
		ip -n "$NS_RX" addr add "$net.2/24" dev "$if_rx" &&
		ip -n "$NS_TX" link set "$if_tx" up && ip -n "$NS_RX" link set "$if_rx" up &&
		ip -n "$NS_TX" link set lo up && ip -n "$NS_RX" link set lo up ||
		{ fail "the namespaces and the veth pair"; return 1; }
	rx_mac=$(ip netns exec "$NS_RX" cat "/sys/class/net/$if_rx/address")
	csum0=$(snmp Udp InCsumErrors)
	hdr0=$(snmp Ip InHdrErrors)

	bg rx ip netns exec "$NS_RX" build/tools/proto-frame-check --recv --port "$port" \
		--timeout-ms 1500
	wait_for 3 grep -q listening "$T_TMP/rx.out" ||
		{ fail "the receiver did not start: $(cat "$T_TMP/rx.out" "$T_TMP/rx.err")"; return 1; }
	check "frames sent" ip netns exec "$NS_TX" build/tools/proto-frame-check --send \
		--ifname "$if_tx" --dst-mac "$rx_mac" --src-ip "$net.1" --dst-ip "$net.2" --port "$port"
	wait "$rx_pid"
	rc=$?
	cat "$T_TMP/rx.out" "$T_TMP/rx.err"
	expect_eq "the receiver got the good frames" "$rc" 0
	expect_eq "bad UDP checksums dropped by the kernel" $(($(snmp Udp InCsumErrors) - csum0)) 1
	expect_eq "bad IPv4 headers dropped by the kernel" $(($(snmp Ip InHdrErrors) - hdr0)) 1
}

run_tests "$@"
