#!/bin/bash
# The order session (SoupBinTCP 3.0 over TCP) against the kernel's own TCP
# on the exchange side, on both paths (the own TCP on AF_XDP, kernel TCP on
# the kernel path).  Each paper run checks parity, reconciliation, every
# reply the exchange sequenced applied once and every order taken once
# (scripts/paper-run.sh); the tests add what their case must show:
#   - the session dropped three times in the day, by FIN and by RST: each
#     reconnect logs in from the next reply it lacks; nothing is lost or
#     doubled;
#   - loss, duplication and reordering of segments in both directions,
#     the feed starting only once the Login Accepted is acknowledged;
#   - nothing traded (every login refused): the run still gives every
#     verdict;
#   - a server that reads slowly through a tiny receive buffer: the window
#     reaches zero, the own TCP stalls and probes, never overruns it;
#   - a SYN answered by a reset (nothing listening yet);
#   - a server gone silent: the 15 s rule (shortened) gives it up;
#   - a login refused: no order leaves, a clear message says why;
#   - a capture of the session read by tshark: every checksum good, its
#     SoupBinTCP and OUCH dissectors read every packet, nothing malformed,
#     nothing lost or out of order, and the gateway's retransmissions are
#     the probes the exchange showed early (D-SACK), few of them.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest tshark tcpdump

COMMON=(--paths af_xdp,udp_spin --count 4000 --rate 4000 --symbols AAPL:8,MSFT:10,NVDA:12)

gw() { j "$T_TMP/$1/$2.gw.json" "$3"; }
ex() { j "$T_TMP/$1/$2.ex.json" "$3"; }

test_three_drops_lose_and_double_nothing() {
	local how p
	for how in fin rst; do
		check "paper-run: the session dropped three times by $how" rig_run "d${how:0:1}" \
			scripts/paper-run.sh "${COMMON[@]}" --ex-extra "--drop-at 150,300,450:$how" \
			--out "$T_TMP/drop_$how" || continue
		for p in af_xdp udp_spin; do
			expect_eq "$p, $how: logins" "$(gw "drop_$how" $p .order_session.logins)" 4
			expect_eq "$p, $how: connections lost (reset fin silence retrans broken)" \
				"$(gw "drop_$how" $p '.order_session | "\(.lost_reset) \(.lost_fin) \(.lost_silence) \(.lost_retrans) \(.lost_broken)"')" \
				"$([ $how = fin ] && echo "0 3 0 0 0" || echo "3 0 0 0 0")"
			expect_eq "$p, $how: connections dropped by the exchange" \
				"$(ex "drop_$how" $p ".soup.faults.$how")" 3
			expect_eq "$p, $how: replies gone for good" "$(gw "drop_$how" $p .order_session.skipped)" 0
		done
	done
}

test_lossy_link_both_ways_reconciles() {
	local p
	check "paper-run: loss 3% duplicate 5% reorder 5% both ways" rig_run l \
		scripts/paper-run.sh "${COMMON[@]}" --netem "loss 3% duplicate 5% reorder 5% delay 200us" \
		--expect-gaps --out "$T_TMP/lossy" || return 1
	expect_ge "own TCP: segments sent again" "$(gw lossy af_xdp .tcp.retransmissions)" 1
	expect_ge "own TCP: out-of-order segments held" "$(gw lossy af_xdp .tcp.ooo_held)" 1
	expect_ge "own TCP: duplicate segments dropped" "$(gw lossy af_xdp .tcp.rejected_out_of_window)" 1
	for p in af_xdp udp_spin; do
		expect_eq "$p: the session never lost" "$(gw lossy $p .order_session.logins)" 1
		# The feed waits for the Login Accepted's ACK (--wait-login): a
		# lost Login Accepted delays the feed, not the session under it.
		expect_eq "$p: no order untraded for want of the session" \
			"$(gw lossy $p .orders.untraded_session)" 0
	done
}

# Every login refused, so nothing trades: the run still reaches all its
# verdicts, among them the reconciliation of two empty books.
test_nothing_traded_still_reconciles() {
	local log=$T_TMP/none.log
	rig_run n scripts/paper-run.sh --paths udp_spin --count 1000 --rate 4000 --symbols AAPL:8 \
		--ex-extra "--refuse-login --wait-login 1" --out "$T_TMP/none" >"$log" 2>&1
	sed 's/^/    /' "$log"
	expect_eq "no order sent" "$(gw none udp_spin .orders.sent)" 0
	check "the books reconciled, both empty" grep -q "ok   udp_spin: reconciled" "$log"
	check "and the run's last line given" grep -q "^paper-run: 0 check(s) failed" "$log"
	check "nothing stopped it" bash -c "! grep -q 'stopped at line' '$log'"
}

# 2 KB of receive buffer, read every 20 ms: the window closes under a burst
# of orders; the own TCP waits (and probes), the kernel's too.
test_slow_reader_window_never_overrun() {
	check "paper-run: a slow reader with a tiny window" rig_run w scripts/paper-run.sh \
		"${COMMON[@]}" --symbols AAPL:6,MSFT:6,NVDA:6,AMZN:6,GOOG:6,META:6 \
		--ex-extra "--rcvbuf 2048 --read-pause 20" --out "$T_TMP/slow" || return 1
	expect_ge "own TCP: window stalls" "$(gw slow af_xdp .tcp.window_stalls)" 1
	expect_eq "own TCP: the session never lost" "$(gw slow af_xdp .order_session.logins)" 1
	expect_ge "the exchange paused its reads" "$(ex slow af_xdp .soup.faults.read_pauses)" 1
}

# Nothing listens for a second: every SYN is answered by a reset; the
# gateway keeps trying, then logs in once the exchange is up, and trades.
test_syn_refused_then_logs_in() {
	rig_up r
	gw_start refused --exit-on-end --reconnect 20:200 || return 1
	sleep 1
	ex_start refused --source gbm --symbols AAPL --count 3000 --rate 3000 --stamp mono
	ex_wait refused
	gw_wait refused 20
	expect_ge "SYNs refused" "$(j "$T_TMP/refused.gw.json" .order_session.lost_refused)" 3
	expect_eq "then one login" "$(j "$T_TMP/refused.gw.json" .order_session.accepted)" 1
	expect_ge "and orders" "$(j "$T_TMP/refused.gw.json" .orders.sent)" 1
	check "the refusal said once" [ "$(grep -c 'refused the connection' "$T_TMP/refused.gw.err")" = 1 ]
}

# The exchange stops sending (heartbeats too) after 100 replies; with the
# rule at 500 ms the gateway gives the connection up and logs in again.
test_silent_server_given_up() {
	check "paper-run: the exchange falls silent" rig_run s scripts/paper-run.sh "${COMMON[@]}" \
		--ex-extra "--silent-after 100" --gw-extra "--soup-timeout 500" \
		--out "$T_TMP/silent" || return 1
	expect_ge "own TCP: given up after the silence" "$(gw silent af_xdp .order_session.lost_silence)" 1
	expect_ge "kernel TCP: given up after the silence" "$(gw silent udp_spin .order_session.lost_silence)" 1
}

test_login_rejected_stops_trading() {
	rig_up j
	gw_start rejected --exit-on-end || return 1
	ex_start rejected --source gbm --symbols AAPL --count 2000 --rate 4000 --stamp mono \
		--refuse-login
	ex_wait rejected
	gw_wait rejected 20
	expect_eq "no order sent" "$(j "$T_TMP/rejected.gw.json" .orders.sent)" 0
	expect_ge "changes listed untraded (session)" \
		"$(j "$T_TMP/rejected.gw.json" .orders.untraded_session)" 1
	expect_eq "one login, rejected" "$(j "$T_TMP/rejected.gw.json" .order_session.rejects)" 1
	check "the rejection said" grep -q "login REJECTED by the exchange (not authorized: check --login" \
		"$T_TMP/rejected.gw.err"
}

# tcpdump on the exchange side of the veth while the own TCP trades; tshark
# (checksum validation on) on the capture.
test_capture_read_by_tshark() {
	local pcap=$T_TMP/session.pcap n bad malformed types spurious sent
	rig_up c
	bg tcpdump ip netns exec "$RIG_NS_EX" tcpdump -i "$RIG_IF_EX" --immediate-mode -B 32768 \
		-s 2048 -w "$pcap" "tcp port $RIG_ORDER_PORT"
	sleep 0.5
	gw_start cap --exit-on-end || return 1
	ex_start cap --source gbm --symbols AAPL,MSFT --count 3000 --rate 3000 --stamp mono
	ex_wait cap
	gw_wait cap 20
	sleep 0.3
	kill "$tcpdump_pid"
	wait "$tcpdump_pid" 2>/dev/null
	check "tcpdump dropped nothing" grep -q "^0 packets dropped by kernel" "$T_TMP/tcpdump.err"
	tshark -r "$pcap" -d "tcp.port==$RIG_ORDER_PORT,soupbintcp" -o tcp.check_checksum:TRUE \
		-o ip.check_checksum:TRUE -T fields -E separator=, -E "aggregator= " \
		-e tcp.checksum.status \
		-e ip.checksum.status -e soupbintcp.packet_type -e _ws.malformed \
		-e tcp.analysis.flags -e tcp.analysis.retransmission -e tcp.options.sack.dsack_le \
		>"$T_TMP/tshark.csv" \
		2>"$T_TMP/tshark.err" ||
		{ fail "tshark: $(cat "$T_TMP/tshark.err")"; return 1; }
	n=$(wc -l <"$T_TMP/tshark.csv")
	bad=$(awk -F, '$1 != 1 || $2 != 1' "$T_TMP/tshark.csv" | wc -l)
	malformed=$(awk -F, '$4 != ""' "$T_TMP/tshark.csv" | wc -l)
	types=$(cut -d, -f3 "$T_TMP/tshark.csv" | tr " " "\n" | tr -d "'" | sort -u | tr "\n" " ")
	expect_ge "segments captured" "$n" 100
	expect_eq "segments with a bad IPv4 or TCP checksum" "$bad" 0
	expect_eq "malformed packets" "$malformed" 0
	check "SoupBinTCP packets L A U S O read ($types)" \
		bash -c "for t in L A U S O; do grep -qw \$t <<<'$types' || exit 1; done"
	# A clean link, but a busy machine: a reply can be late by milliseconds
	# (a CPU taken away), and the gateway's probe of that order is then
	# spurious, as may be the exchange's own retransmission of a reply
	# whose ACK was late.  What must hold: nothing tshark calls lost, out
	# of order or a full or zero window; every retransmission of the
	# gateway's is one it counted and one the exchange reported received
	# twice (D-SACK); few of them (the probe follows the replies' 99th
	# percentile: about 1 % of orders, more while it learns).
	spurious=$(j "$T_TMP/cap.gw.json" .tcp.dsacks_in)
	tshark -r "$pcap" -T fields -E separator=, -E occurrence=f -e ip.src \
		-e tcp.analysis.retransmission -e tcp.analysis.lost_segment \
		-e tcp.analysis.out_of_order -e tcp.analysis.zero_window \
		-e tcp.analysis.window_full -e tcp.analysis.ack_lost_segment \
		>"$T_TMP/analysis.csv" 2>/dev/null
	expect_eq "segments lost, out of order, or a full or zero window, on a clean link" \
		"$(awk -F, '$3 $4 $5 $6 $7 != ""' "$T_TMP/analysis.csv" | wc -l)" 0
	expect_eq "the gateway's retransmissions on the wire == its count" \
		"$(awk -F, -v gw="$RIG_IP_GW" '$1 == gw && $2 != ""' "$T_TMP/analysis.csv" | wc -l)" \
		"$(j "$T_TMP/cap.gw.json" .tcp.retransmissions)"
	expect_eq "every one reported spurious by the exchange (D-SACK)" \
		"$(j "$T_TMP/cap.gw.json" .tcp.retransmissions)" "$spurious"
	sent=$(j "$T_TMP/cap.gw.json" .orders.sent)
	check "spurious retransmissions: $spurious of $sent orders (at most 2 %, or 6)" \
		[ "$spurious" -le $((sent / 50 > 6 ? sent / 50 : 6)) ]
}

run_tests "$@"
