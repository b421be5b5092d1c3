#!/bin/sh
# Real kernel UDP sockets accept frames built by libproto's template and
# checksum code, and drop the ones whose checksums were deliberately broken.
# Two namespaces joined by a veth pair, both made (and removed) by this run:
# proto-frame-check sends raw frames through AF_PACKET in one, a UDP socket
# receives in the other; the kernel's UDP InCsumErrors and IP InHdrErrors
# must each count exactly one drop.
set -eu
cd "$(dirname "$0")/../.."

id=$$
ns_tx=proto_ka_tx_$id
ns_rx=proto_ka_rx_$id
if_tx=pka${id}t
if_rx=pka${id}r
net=10.77.$((id % 250))
port=26500
work=$(mktemp -d /tmp/proto_ka.XXXXXX)

cleanup() {
	ip netns del "$ns_tx" 2>/dev/null || true
	ip netns del "$ns_rx" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "$ns_tx"
ip netns add "$ns_rx"
ip link add "$if_tx" netns "$ns_tx" type veth peer name "$if_rx" netns "$ns_rx"
ip -n "$ns_tx" addr add "$net.1/24" dev "$if_tx"
ip -n "$ns_rx" addr add "$net.2/24" dev "$if_rx"
ip -n "$ns_tx" link set "$if_tx" up
ip -n "$ns_rx" link set "$if_rx" up
ip -n "$ns_tx" link set lo up
ip -n "$ns_rx" link set lo up
rx_mac=$(ip netns exec "$ns_rx" cat "/sys/class/net/$if_rx/address")

# /proc/net/snmp "Name: fields" / "Name: values" -> value of one field.
snmp() {
	ip netns exec "$ns_rx" awk -v sec="$1:" -v key="$2" '
		$1 == sec && !hdr { for (i = 2; i <= NF; i++) col[$i] = i; hdr = 1; next }
		$1 == sec && hdr { print $col[key]; exit }' /proc/net/snmp
}
csum0=$(snmp Udp InCsumErrors)
hdr0=$(snmp Ip InHdrErrors)

ip netns exec "$ns_rx" ./build/proto-frame-check recv "$port" 1500 >"$work/rx" 2>&1 &
rx_pid=$!
# Wait (at most 3 s) for the receiver to be bound.
i=0
until grep -q listening "$work/rx" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -le 30 ] || { cat "$work/rx"; echo "proto_kernel_accept: receiver did not start"; exit 1; }
	sleep 0.1
done

ip netns exec "$ns_tx" ./build/proto-frame-check send "$if_tx" "$rx_mac" \
	"$net.1" "$net.2" "$port"
rc=0
wait "$rx_pid" || rc=$?
cat "$work/rx"

csum=$(( $(snmp Udp InCsumErrors) - csum0 ))
hdr=$(( $(snmp Ip InHdrErrors) - hdr0 ))
echo "proto_kernel_accept: kernel dropped $csum bad UDP checksum(s), $hdr bad IPv4 header(s)"
[ "$rc" -eq 0 ] && [ "$csum" -eq 1 ] && [ "$hdr" -eq 1 ]
