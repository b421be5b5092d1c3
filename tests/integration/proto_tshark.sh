#!/bin/bash
# tshark reads frames built by libproto: the MoldUDP64 dissector sees the
# right session, sequence and count, and tshark's own IPv4/UDP checksum
# validation passes on good frames and flags the deliberately broken one
# (frame 3), so the check can fail.
. "$(dirname "$0")/../lib.sh"
need build/tools/proto-pcap tshark

test_tshark_decodes_framing_and_checks_checksums() {
	local feed_port=26400 order_port=26401 order
	build/tools/proto-pcap --out "$T_TMP/t.pcap" --feed-port "$feed_port" \
		--order-port "$order_port" || { fail "proto-pcap"; return 1; }
	tshark -r "$T_TMP/t.pcap" -o "moldudp64.udp.port:$feed_port" \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-T fields -E separator=' ' -E occurrence=f -E header=n \
		-e frame.number -e ip.checksum.status -e udp.checksum.status \
		-e moldudp64.session -e moldudp64.sequence -e moldudp64.count \
		-e udp.dstport -e data.data >"$T_TMP/out" 2>"$T_TMP/err" ||
		{ fail "tshark: $(cat "$T_TMP/err")"; return 1; }
	cat "$T_TMP/out"
	# Checksum status: 1 = Good, 0 = Bad.  Enter Order datagram: length
	# 0x0032, type 'U', message 'O', token 0000000ZB00007 (seq 1003, order
	# 7), side 'B'.
	order=0032554f303030303030305a42303030303742000000644141504c202020200016e360000000004757415959504e000000004e52
	expect_eq "frame 1" "$(sed -n 1p "$T_TMP/out")" "1 1 1 PCAPTEST01 1000 5 $feed_port "
	expect_eq "frame 2" "$(sed -n 2p "$T_TMP/out")" "2 1 1    $order_port $order"
	expect_eq "frame 3" "$(sed -n 3p "$T_TMP/out")" "3 1 0    $order_port $order"
	expect_eq "frame 4" "$(sed -n 4p "$T_TMP/out")" "4 1 1 PCAPTEST01 1005 0 $feed_port "
}

run_tests "$@"
