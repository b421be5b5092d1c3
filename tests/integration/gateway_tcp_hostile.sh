#!/bin/bash
# The order session against a hostile or broken network (issue 40), on the
# rig, with scripts/paper-run.sh's verdicts (parity, reconciliation, every
# reply applied once, every order taken once) for every run:
#   - forged segments with the exchange's addresses during a live session
#     (build/tools/tcp_spoof: old ACKs with window 0, stale ACKs, RSTs and
#     SYNs in the window, data beyond it, data with an ACK 2^30 old): both
#     stacks trade on without losing the session; the own TCP counts every
#     class by name, and its challenge ACKs stay within their budget;
#   - a server that shrinks its window (net.ipv4.tcp_shrink_window, a tiny
#     receive buffer read every 50 ms) with orders in flight: the own TCP
#     probes the closed window with the head of its queue and never gives
#     the session up;
#   - 3 % loss both ways (with duplicates and reordering) and replies held
#     out of order: a capture that tshark reads says every checksum is
#     good, no frame is over the MTU and no segment of the gateway's is
#     over the MSS the exchange announced (300 here, its route's advmss),
#     SACK blocks included;
#   - a lossless run against a server that answers 3 % of its orders 5 ms
#     late: the own TCP's spurious retransmissions (reported by the
#     exchange's D-SACKs) are at most 1 % of its orders;
#   - the connection's 4-tuple forged on line B's interface: dropped in the
#     XDP hook (xdp.tcp_wrong_if), every one of them.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest build/tools/tcp_spoof tshark \
	tcpdump

SYMS16=$(for s in AAPL MSFT NVDA AMZN GOOG META TSLA NFLX INTC AMD ORCL IBM CSCO ADBE CRM QCOM; do
	printf '%s:6,' "$s"; done)
SYMS16=${SYMS16%,}

gw() { j "$T_TMP/$1/$2.gw.json" "$3"; }
ex() { j "$T_TMP/$1/$2.ex.json" "$3"; }
spoofed() { sed -n "s/^sent_$3=//p" "$T_TMP/$1/$2.spoof"; }

test_forged_segments_counted_and_the_session_trades_on() {
	local p t
	check "paper-run: forged segments for 1.5 s into a live session, both stacks" \
		rig_run s scripts/paper-run.sh --paths af_xdp,udp_spin --count 9000 --rate 3000 \
		--symbols AAPL:8,MSFT:10,NVDA:12 --out "$T_TMP/s" \
		--midrun 'ip netns exec "$RIG_NS_EX" build/tools/tcp_spoof --sniff "$RIG_IF_EX" \
			--port "$RIG_ORDER_PORT" --duration-ms 1500 --interval-ms 2 >"$out/$p.spoof" 2>&1' ||
		return 1
	for p in af_xdp udp_spin; do
		expect_ge "$p: forged frames sent" \
			"$(awk -F= '/^sent_/ { s += $2 } END { print s + 0 }' "$T_TMP/s/$p.spoof")" 600
		expect_eq "$p: one login, never lost" \
			"$(gw s $p '.order_session | "\(.logins) \(.lost_reset + .lost_fin + .lost_retrans + .lost_silence + .lost_broken)"')" "1 0"
	done
	for t in rst_in_window:rst syn:syn; do
		expect_eq "own TCP: rejected_${t%%:*} == forged ${t#*:}" \
			"$(gw s af_xdp ".tcp.rejected_${t%%:*}")" "$(spoofed s af_xdp "${t#*:}")"
	done
	expect_ge "own TCP: ACKs 2^30 old rejected (ack_too_old)" \
		"$(gw s af_xdp .tcp.rejected_ack_too_old)" "$(spoofed s af_xdp old_ack)"
	expect_ge "own TCP: ... ack_too_old + out_of_window >= old_ack + data_bad_ack + data_out" \
		"$(gw s af_xdp '.tcp.rejected_ack_too_old + .tcp.rejected_out_of_window')" \
		$(($(spoofed s af_xdp old_ack) + $(spoofed s af_xdp data_bad_ack) + $(spoofed s af_xdp data_out)))
	expect_ge "own TCP: stale ACKs taken without their window (old_acks)" \
		"$(gw s af_xdp .tcp.old_acks)" "$(spoofed s af_xdp stale_ack)"
	# 100 a second: a 1.5 s flood of ~750 unacceptable frames gets at most 200 answers.
	check "own TCP: challenge ACKs within the budget ($(gw s af_xdp .tcp.challenge_acks) sent, $(gw s af_xdp .tcp.acks_limited) held back)" \
		test "$(gw s af_xdp .tcp.challenge_acks)" -le 300 -a "$(gw s af_xdp .tcp.acks_limited)" -ge 300
	expect_eq "own TCP: no ACK of bytes never sent" "$(gw s af_xdp .tcp.rejected_ack_unsent)" 0
}

test_window_shrinks_with_orders_in_flight() {
	check "paper-run: a server that shrinks its window (16 symbols, rcvbuf 1 KB, reads every 50 ms)" \
		rig_run w scripts/paper-run.sh --paths af_xdp --count 8000 --rate 4000 \
		--symbols "$SYMS16" --ex-extra "--rcvbuf 1024 --read-pause 50" --out "$T_TMP/w" \
		--midrun 'ip netns exec "$RIG_NS_EX" sysctl -qw net.ipv4.tcp_shrink_window=1' ||
		return 1
	expect_ge "the exchange paused its reads" "$(ex w af_xdp .soup.faults.read_pauses)" 10
	expect_ge "own TCP: the window stopped queued orders" "$(gw w af_xdp .tcp.window_stalls)" 1
	expect_ge "own TCP: RTOs sent the head into the closed window" \
		"$(gw w af_xdp .tcp.window_probes)" 1
	expect_eq "own TCP: one login, never lost" \
		"$(gw w af_xdp '.order_session | "\(.logins) \(.lost_retrans)"')" "1 0"
}

test_loss_both_ways_no_frame_over_the_mtu() {
	local pcap=$T_TMP/lossy.pcap csv=$T_TMP/lossy.csv mss
	rig_up l
	# The exchange announces an MSS of 300: orders fill a segment, SACK blocks must fit in it.
	ip -n "$RIG_NS_EX" route add "$RIG_IP_GW/32" dev "$RIG_IF_EX" advmss 300 ||
		{ fail "route advmss"; return 1; }
	bg tcpdump ip netns exec "$RIG_NS_EX" tcpdump -i "$RIG_IF_EX" --immediate-mode -B 32768 \
		-s 2048 -w "$pcap" "tcp port $RIG_ORDER_PORT"
	sleep 0.5
	check "paper-run: loss 3% duplicate 1% reorder 5% both ways, a slow reader, both stacks" \
		rig_run l scripts/paper-run.sh --keep-rig --paths af_xdp,udp_spin --count 6000 \
		--rate 3000 --symbols "$SYMS16" --netem "loss 3% duplicate 1% reorder 5% delay 200us" \
		--expect-gaps --ex-extra "--rcvbuf 4096 --read-pause 5" --out "$T_TMP/l" || return 1
	sleep 0.3
	kill "$tcpdump_pid"
	wait "$tcpdump_pid" 2>/dev/null
	check "tcpdump dropped nothing" grep -q "^0 packets dropped by kernel" "$T_TMP/tcpdump.err"
	tshark -r "$pcap" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -T fields \
		-E separator=, -E occurrence=f -e frame.len -e ip.src -e tcp.len -e tcp.hdr_len \
		-e tcp.checksum.status -e ip.checksum.status -e tcp.options.sack_le \
		-e tcp.options.mss_val >"$csv" 2>"$T_TMP/tshark.err" ||
		{ fail "tshark: $(cat "$T_TMP/tshark.err")"; return 1; }
	mss=$(awk -F, -v gw="$RIG_IP_GW" '$2 != gw && $8 != "" { print $8; exit }' "$csv")
	expect_eq "the exchange announced an MSS of" "$mss" 300
	expect_ge "frames captured" "$(wc -l <"$csv")" 1000
	expect_eq "frames over the MTU (1514 bytes)" "$(awk -F, '$1 > 1514' "$csv" | wc -l)" 0
	expect_eq "frames with a bad IPv4 or TCP checksum" \
		"$(awk -F, '$5 != 1 || $6 != 1' "$csv" | wc -l)" 0
	expect_eq "the gateway's segments over the MSS, options included" \
		"$(awk -F, -v gw="$RIG_IP_GW" -v m="$mss" '$2 == gw && $3 + $4 - 20 > m' "$csv" | wc -l)" 0
	expect_ge "the gateway's largest segment, options included (near the MSS)" \
		"$(awk -F, -v gw="$RIG_IP_GW" '$2 == gw && $3 > 0 && $3 + $4 - 20 > m { m = $3 + $4 - 20 }
			END { print m + 0 }' "$csv")" 250
	expect_ge "the gateway's segments that carried SACK blocks" \
		"$(awk -F, -v gw="$RIG_IP_GW" '$2 == gw && $7 != ""' "$csv" | wc -l)" 1
	expect_ge "own TCP: segments sent again" "$(gw l af_xdp .tcp.retransmissions)" 1
	expect_ge "own TCP: out-of-order replies held" "$(gw l af_xdp .tcp.ooo_held)" 1
}

test_late_server_spurious_at_most_one_percent() {
	local sent spurious
	check "paper-run: a lossless link, 3% of the orders answered 5 ms late" \
		rig_run t scripts/paper-run.sh --paths af_xdp --count 9000 --rate 3000 \
		--symbols AAPL:8,MSFT:10,NVDA:12 --ex-extra "--late-replies 3:5" --out "$T_TMP/t" ||
		return 1
	sent=$(gw t af_xdp .orders.sent)
	spurious=$(gw t af_xdp .tcp.dsacks_in)
	expect_ge "late answers made" "$(ex t af_xdp .soup.faults.late_replies)" 20
	expect_eq "every retransmission on a lossless link reported spurious (D-SACK)" \
		"$(gw t af_xdp .tcp.retransmissions)" "$spurious"
	check "spurious retransmissions: $spurious of $sent orders, at most 1 %" \
		test $((spurious * 100)) -le "$sent"
	expect_ge "late replies learnt" "$(gw t af_xdp .tcp.late_replies)" 1
}

test_line_b_forged_segments_dropped_in_the_hook() {
	local sent
	rig_up b --line-b "$(t_subnet bb)"
	gw_start b --line-b "$RIG_IF_GW_B" --feed-b "$RIG_GROUP_B:$RIG_FEED_PORT" \
		--symbol AAPL:8 --symbol MSFT:12 --feed-clock mono --exit-on-end --grace 1 \
		--duration 60 || return 1
	ex_start b --source gbm --stamp mono --symbols AAPL,MSFT --count 9000 --rate 3000 \
		--line-b "$RIG_GROUP_B:$RIG_FEED_PORT"
	ip netns exec "$RIG_NS_EX" build/tools/tcp_spoof --sniff "$RIG_IF_EX" --iface "$RIG_IF_EX_B" \
		--dst-mac "$RIG_MAC_GW_B" --port "$RIG_ORDER_PORT" --duration-ms 1000 \
		--interval-ms 5 >"$T_TMP/b.spoof" 2>&1 || fail "tcp_spoof: $(cat "$T_TMP/b.spoof")"
	ex_wait b || fail "exsim: $(tail -2 "$T_TMP/b.ex.err")"
	gw_wait b 20 || fail "gateway: $(tail -2 "$T_TMP/b.gw.err")"
	sent=$(awk -F= '/^sent_/ { s += $2 } END { print s + 0 }' "$T_TMP/b.spoof")
	expect_ge "forged frames sent on line B" "$sent" 100
	expect_eq "dropped in the hook (xdp.tcp_wrong_if)" "$(j "$T_TMP/b.gw.json" .xdp.tcp_wrong_if)" \
		"$sent"
	expect_eq "none reached the TCP" \
		"$(j "$T_TMP/b.gw.json" '.tcp.rejected_rst_in_window + .tcp.rejected_syn + .tcp.rejected_ack_too_old')" 0
	expect_eq "one login, never lost" "$(j "$T_TMP/b.gw.json" .order_session.logins)" 1
}

run_tests "$@"
