#!/bin/bash
# tshark reads frames built by libproto: the MoldUDP64 dissector sees the
# right session, sequence and count; its SoupBinTCP and OUCH dissectors
# read the order segment as an Unsequenced Data packet with the Enter
# Order's token, side, shares, stock and price; and tshark's own IPv4,
# UDP and TCP checksum validation passes on good frames and flags the
# deliberately broken one (frame 3), so the check can fail.
. "$(dirname "$0")/../lib.sh"
need build/tools/proto-pcap tshark

test_tshark_decodes_framing_and_checks_checksums() {
	local feed_port=26400 order_port=26401 order
	build/tools/proto-pcap --out "$T_TMP/t.pcap" --feed-port "$feed_port" \
		--order-port "$order_port" || { fail "proto-pcap"; return 1; }
	tshark -r "$T_TMP/t.pcap" -o "moldudp64.udp.port:$feed_port" \
		-d "tcp.port==$order_port,soupbintcp" \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-T fields -E separator=' ' -E occurrence=f -E header=n \
		-e frame.number -e ip.checksum.status -e udp.checksum.status \
		-e tcp.checksum.status -e moldudp64.session -e moldudp64.sequence \
		-e moldudp64.count -e soupbintcp.packet_length -e soupbintcp.packet_type \
		-e ouch.order_token -e ouch.buy_sell_indicator -e ouch.shares -e ouch.stock \
		-e ouch.price >"$T_TMP/out" 2>"$T_TMP/err" ||
		{ fail "tshark: $(cat "$T_TMP/err")"; return 1; }
	# Empty fields squeezed out.
	sed -i 's/  */ /g; s/ $//' "$T_TMP/out"
	cat "$T_TMP/out"
	# Checksum status: 1 = Good, 0 = Bad.  The Enter Order: SoupBinTCP
	# length 50, type 'U', token 0000000ZB00007 (seq 1003, order 7), side
	# 'B', 100 AAPL at 1500000 (150.0000); with a bad checksum tshark
	# dissects nothing above TCP.
	expect_eq "frame 1" "$(sed -n 1p "$T_TMP/out")" "1 1 1 PCAPTEST01 1000 5"
	expect_eq "frame 2" "$(sed -n 2p "$T_TMP/out")" \
		"2 1 1 50 'U' 0000000ZB00007 'B' 100 AAPL 1500000"
	expect_eq "frame 3" "$(sed -n 3p "$T_TMP/out")" "3 1 0"
	expect_eq "frame 4" "$(sed -n 4p "$T_TMP/out")" "4 1 1 PCAPTEST01 1005 0"
}

run_tests "$@"
