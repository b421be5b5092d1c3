#!/bin/sh
# tshark reads frames built by libproto: the MoldUDP64 dissector must see the
# right session, sequence and count, and tshark's own IPv4/UDP checksum
# validation must pass on good frames and flag the deliberately broken one
# (frame 3), so the check can fail.
set -eu
cd "$(dirname "$0")/../.."

feed_port=26400
order_port=26401
work=$(mktemp -d /tmp/proto_tshark.XXXXXX)
trap 'rm -rf "$work"' EXIT

./build/proto-pcap "$work/t.pcap" "$feed_port" "$order_port"
tshark -r "$work/t.pcap" -o "moldudp64.udp.port:$feed_port" \
	-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
	-T fields -E separator=' ' -E occurrence=f -E header=n \
	-e frame.number -e ip.checksum.status -e udp.checksum.status \
	-e moldudp64.session -e moldudp64.sequence -e moldudp64.count \
	-e udp.dstport -e data.data >"$work/out" 2>"$work/err" || {
	cat "$work/err"; exit 1; }
cat "$work/out"

fail=0
expect() {	# frame-number expected-line
	got=$(sed -n "${1}p" "$work/out")
	if [ "$got" != "$2" ]; then
		echo "proto_tshark: frame $1: got '$got', want '$2'"
		fail=1
	fi
}
# Checksum status: 1 = Good, 0 = Bad.  Enter Order datagram: length 0x0032,
# type 'U', message 'O', token 0000000ZB00007 (seq 1003, order 7), side 'B'.
order=0032554f303030303030305a42303030303742000000644141504c202020200016e360000000004757415959504e000000004e52
expect 1 "1 1 1 PCAPTEST01 1000 5 $feed_port "
expect 2 "2 1 1    $order_port $order"
expect 3 "3 1 0    $order_port $order"
expect 4 "4 1 1 PCAPTEST01 1005 0 $feed_port "
[ "$fail" -eq 0 ] && echo "proto_tshark: MoldUDP64 framing and IPv4/UDP checksums validated by tshark"
exit "$fail"
