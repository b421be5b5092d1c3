#!/bin/bash
# A feed that is not ours: a capture played onto the rig with tcpreplay
# and no exchange process, traded by the gateway in paper mode with no
# re-request server, fills exactly as t2t-backtest --itch --paper on the
# day of the capture's messages.
#   - t2t-pcap writes a day as its feed's capture and reads the capture
#     back as the same day, byte for byte; a capture with a packet taken
#     out is refused as a hole, naming the numbers missing;
#   - that capture, played at its own pace and ten times faster, on the
#     AF_XDP and the kernel-UDP path: every message decoded, no gap, the
#     gateway stops by itself at the end of session, and its fills are
#     the backtest's on the day, order for order (once with 50 us of
#     latency: the backtest's at 50 us, which fills otherwise than at 0);
#   - a tcpdump capture of the simulator's --replay on the exchange's veth
#     (its own packing, duplicates, pings beside): t2t-pcap makes it the
#     day the simulator sent, each message once, and the same holds for
#     it at its own pace and at tcpreplay's top speed;
#   - a capture of a lossy feed has a hole, and with the answers to the
#     re-requests a gateway made (its --retrans-port) it is the whole day;
#   - a capture rewritten as another server's (tcprewrite: its address,
#     MAC, group and port) is traded when --feed and --feed-source name
#     them, and dropped as spoofed when --feed-source names ours;
#   - t2t-pcap refuses options that do not go together, and a file that
#     is not a pcap.
. "$(dirname "$0")/../lib.sh"
. scripts/paper_fills.sh
need root build/t2t-pcap build/t2t-genday build/t2t-gateway build/t2t-exsim build/t2t-backtest \
	tcpdump tcpreplay tcprewrite tshark editcap

SYMS=(--symbol AAPL:12 --symbol MSFT:20 --symbol NVDA:48)
# A foreign server: an address off the rig's subnet, its own group and port.
FOREIGN_IP=192.0.2.77
FOREIGN_MAC=02:00:5e:00:02:4d
FOREIGN_GROUP=233.54.12.9
FOREIGN_PORT=31337

# Two seconds of market, 40,000 messages, four symbols.
day() {
	[ -s "$T_TMP/day.gz" ] || build/t2t-genday --messages 40000 --symbols 4 --duration 2 \
		--seed 21 --gzip -q -o "$T_TMP/day.gz"
}

# bt DAY CSV [NS]: what the gateway must fill, t2t-backtest --paper NS's CSV.
bt() {
	build/t2t-backtest --itch "$1" "${SYMS[@]}" --track named --paper "${3:-0}" -o "$2" \
		2>"$2.err" || { fail "t2t-backtest --paper on $1: $(tail -1 "$2.err")"; return 1; }
}

# The rig's feed as t2t-pcap writes it: the exchange's address and MAC.
tool_capture() {
	[ -s "$T_TMP/tool.pcap" ] && return 0
	build/t2t-pcap --from-day "$T_TMP/day.gz" -o "$T_TMP/tool.pcap" --src-ip "$RIG_IP_EX" \
		--src-mac "$RIG_MAC_EX" --feed "$RIG_GROUP:$RIG_FEED_PORT" -q \
		--json "$T_TMP/tool.pcap.json"
}

# capture_ended PCAP [T2T-PCAP OPTIONS...]: tcpdump has written the end
# of session (and everything before it).
capture_ended() {
	local cap=$1
	shift
	build/t2t-pcap --from-pcap "$cap" -o /dev/null -q --json "$cap.probe.json" "$@" \
		2>/dev/null && [ "$(j "$cap.probe.json" .end_of_session)" = true ]
}

# play NAME MODE CAPTURE MESSAGES BT_CSV PACE [GATEWAY OPTIONS...]: the
# gateway (--mode MODE, paper, no re-request server) on the rig, CAPTURE
# played onto the exchange's veth by tcpreplay (PACE: "own" for the
# capture's timestamps, else tcpreplay's options), then the checks: the
# gateway stopped by itself at the end of session, decoded MESSAGES with
# no gap, and filled as BT_CSV says, order for order.
play() {
	local name=$1 mode=$2 cap=$3 msgs=$4 csv=$5 pace=$6 g rc t0 dt n filled
	local speed=()
	shift 6
	[ "$pace" = own ] || read -ra speed <<<"$pace"
	g=$T_TMP/$name.gw.json
	gw_start "$name" --mode "$mode" --paper --rerequest off "${SYMS[@]}" --exit-on-end \
		--duration 30 --orders-out "$T_TMP/$name.csv" "$@" || return 1
	t0=$(date +%s%N)
	# no exchange process: only tcpreplay sends on the exchange's side
	ip netns exec "$RIG_NS_EX" timeout 30 tcpreplay -i "$RIG_IF_EX" "${speed[@]}" "$cap" \
		>"$T_TMP/$name.replay" 2>&1 || {
		rc=$?
		fail "$name: tcpreplay: exit $rc after $((($(date +%s%N) - t0) / 1000000)) ms (124: timed out): $(tail -3 "$T_TMP/$name.replay" | tr '\n' ' ')"
		return 1
	}
	gw_wait "$name" 10
	rc=$?
	dt=$((($(date +%s%N) - t0) / 100000000))
	check "$name: the gateway stopped by itself at the end of session (status $rc, $((dt / 10)).$((dt % 10)) s after the replay began)" \
		[ "$rc" = 0 -a "$(j "$g" .feed.end_of_session)" = true ]
	expect_eq "$name: messages decoded, gaps" \
		"$(j "$g" '"\(.feed.messages) \(.gaps.opened) \(.gaps.given_up)"')" "$msgs 0 0"
	n=$(($(wc -l <"$csv") - 1))
	filled=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$csv")
	check "$name: fills == t2t-backtest --paper's: $n orders, $filled shares, order for order" \
		cmp -s <(tail -n +2 "$csv") <(gw_paper_orders "$T_TMP/$name.csv")
	expect_eq "$name: orders decided, waiting" "$(j "$g" '"\(.paper.orders) \(.paper.waiting)"')" \
		"$n 0"
}

test_a_day_as_a_capture_reads_back_as_the_day() {
	local n
	day || { fail "t2t-genday"; return 1; }
	rig_up
	check "t2t-pcap --from-day" tool_capture || return 1
	n=$(j "$T_TMP/tool.pcap.json" .messages)
	check "the capture back as a day: $n messages" build/t2t-pcap --from-pcap "$T_TMP/tool.pcap" \
		-o "$T_TMP/tool.day" -q
	check "the same bytes as the day" cmp -s "$T_TMP/tool.day" <(zcat "$T_TMP/day.gz")
	check "tshark: every UDP checksum good" bash -c "[ \"\$(tshark -r '$T_TMP/tool.pcap' \
		-o udp.check_checksum:TRUE -T fields -e udp.checksum.status 2>/dev/null | sort -u)\" = 1 ]"
	editcap -F pcap "$T_TMP/tool.pcap" "$T_TMP/holed.pcap" 300 >/dev/null
	expect_exit 1 "are in no packet of the capture; it goes on at" \
		build/t2t-pcap --from-pcap "$T_TMP/holed.pcap" -o "$T_TMP/holed.day"
	check "no day file left after the hole" [ ! -e "$T_TMP/holed.day" ]
}

test_the_tools_capture_fills_as_the_backtest() {
	local n
	day || { fail "t2t-genday"; return 1; }
	rig_up
	tool_capture || { fail "t2t-pcap --from-day"; return 1; }
	bt "$T_TMP/day.gz" "$T_TMP/day.bt.csv" || return 1
	n=$(j "$T_TMP/tool.pcap.json" .messages)
	expect_ge "orders the backtest fills, whole or in part" \
		"$(awk -F, 'NR > 1 && $5 > 0' "$T_TMP/day.bt.csv" | wc -l)" 10
	play tool_xdp_own xdp "$T_TMP/tool.pcap" "$n" "$T_TMP/day.bt.csv" own
	play tool_udp_own udp "$T_TMP/tool.pcap" "$n" "$T_TMP/day.bt.csv" own
	play tool_xdp_x10 xdp "$T_TMP/tool.pcap" "$n" "$T_TMP/day.bt.csv" "--multiplier 10"
	# with a latency the fills are others, and still the backtest's
	bt "$T_TMP/day.gz" "$T_TMP/day.bt50.csv" 50000 || return 1
	check "50 us of latency fills otherwise than none" \
		bash -c "! cmp -s '$T_TMP/day.bt.csv' '$T_TMP/day.bt50.csv'"
	play tool_udp_x10_50us udp "$T_TMP/tool.pcap" "$n" "$T_TMP/day.bt50.csv" "--multiplier 10" \
		--paper-latency 50000
}

test_a_tcpdump_capture_of_the_simulator_fills_as_its_day() {
	local n c=$T_TMP/ex.day.json
	day || { fail "t2t-genday"; return 1; }
	rig_up
	# a buffer for the simulator's one message per packet at 20,000 a
	# second (the default's drops some); -U: each packet written when it is
	# handed over, so the capture can be read while tcpdump runs
	bg tcpdump ip netns exec "$RIG_NS_EX" tcpdump -i "$RIG_IF_EX" -B 32768 -U \
		-w "$T_TMP/ex.pcap"
	wait_for 5 grep -qs "listening on" "$T_TMP/tcpdump.err" ||
		{ fail "tcpdump did not start: $(cat "$T_TMP/tcpdump.err")"; return 1; }
	# the day at twice its pace, 2 % of its packets sent twice, pings beside
	ex_start cap --replay "$T_TMP/day.gz" --speed 2 --dup-rate 0.02
	ip netns exec "$RIG_NS_GW" ping -q -c 4 -i 0.2 "$RIG_IP_EX" >/dev/null
	ex_wait cap || { fail "t2t-exsim --replay: $(tail -2 "$T_TMP/cap.ex.err")"; return 1; }
	# the kernel hands packets to tcpdump in blocks, the last one after its
	# timeout: a SIGINT before that loses it
	wait_for 5 capture_ended "$T_TMP/ex.pcap" ||
		fail "the capture lacks the end of session 5 s after the simulator exited"
	kill -INT "$tcpdump_pid"
	wait "$tcpdump_pid"
	check "the capture as the day the simulator sent" build/t2t-pcap --from-pcap "$T_TMP/ex.pcap" \
		-o "$T_TMP/ex.day" --feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" -q \
		--json "$c" || return 1
	n=$(j "$c" .messages)
	expect_eq "messages in the capture's day ($(j "$c" .data) packets of them: the simulator's packing), its end of session" \
		"$n $(j "$c" .end_of_session)" "$(j "$T_TMP/cap.ex.json" .messages) true"
	check "each once: $(j "$c" .dup_packets) packets again ($(j "$c" .dup_msgs) messages), $(j "$c" .other) frames of other traffic" \
		[ "$(j "$c" .dup_packets)" -gt 0 -a "$(j "$c" .other)" -gt 0 ]
	check "the simulator's --replay sent the day's messages as they are" \
		cmp -s "$T_TMP/ex.day" <(zcat "$T_TMP/day.gz")
	bt "$T_TMP/ex.day" "$T_TMP/ex.bt.csv" || return 1
	play cap_xdp_own xdp "$T_TMP/ex.pcap" "$n" "$T_TMP/ex.bt.csv" own
	play cap_udp_own udp "$T_TMP/ex.pcap" "$n" "$T_TMP/ex.bt.csv" own
	play cap_xdp_top xdp "$T_TMP/ex.pcap" "$n" "$T_TMP/ex.bt.csv" --topspeed
	play cap_udp_top udp "$T_TMP/ex.pcap" "$n" "$T_TMP/ex.bt.csv" --topspeed
}

# The holes a gateway had filled by re-request: whole with its answers.
test_a_capture_with_the_answers_to_re_requests_is_whole_with_them() {
	local c=$T_TMP/rr.day.json
	day || { fail "t2t-genday"; return 1; }
	rig_up
	bg tcpdump_rr ip netns exec "$RIG_NS_EX" tcpdump -i "$RIG_IF_EX" -B 32768 -U \
		-w "$T_TMP/rr.pcap"
	wait_for 5 grep -qs "listening on" "$T_TMP/tcpdump_rr.err" ||
		{ fail "tcpdump did not start: $(cat "$T_TMP/tcpdump_rr.err")"; return 1; }
	# a gateway asks for what the simulator did not send
	gw_start rr --mode udp --paper "${SYMS[@]}" --exit-on-end --retrans-port 26404 || return 1
	ex_start rr --replay "$T_TMP/day.gz" --speed 4 --drop-rate 0.01
	ex_wait rr || { fail "t2t-exsim --replay: $(tail -2 "$T_TMP/rr.ex.err")"; return 1; }
	gw_wait rr 10
	wait_for 5 capture_ended "$T_TMP/rr.pcap" --retrans-port 26404 ||
		fail "the capture lacks the end of session 5 s after the simulator exited"
	kill -INT "$tcpdump_rr_pid"
	wait "$tcpdump_rr_pid"
	expect_exit 1 "are in no packet of the capture" build/t2t-pcap --from-pcap "$T_TMP/rr.pcap" \
		-o "$T_TMP/rr.day" --feed "$RIG_GROUP:$RIG_FEED_PORT"
	check "with the answers to the gateway's port the day is whole" \
		build/t2t-pcap --from-pcap "$T_TMP/rr.pcap" -o "$T_TMP/rr.day" -q \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --retrans-port 26404 --json "$c"
	check "the day the simulator had: $(j "$c" .answers) answers taken, $(j "$T_TMP/rr.gw.json" .gaps.requests) re-requests the gateway made" \
		bash -c "[ $(j "$c" .answers) -gt 0 ] && cmp -s '$T_TMP/rr.day' <(zcat '$T_TMP/day.gz')"
}

test_a_foreign_servers_capture_is_taken_when_source_and_group_match() {
	local n gmac p g
	day || { fail "t2t-genday"; return 1; }
	rig_up
	[ -s "$T_TMP/day.bt.csv" ] || bt "$T_TMP/day.gz" "$T_TMP/day.bt.csv" || return 1
	# a session of its own name on the default rig's addresses (the tool's
	# defaults), then another server's as a capture's rewrite
	build/t2t-pcap --from-day "$T_TMP/day.gz" -o "$T_TMP/theirs.pcap" --session NQTV000042 \
		-q --json "$T_TMP/theirs.json" || { fail "t2t-pcap --from-day"; return 1; }
	n=$(j "$T_TMP/theirs.json" .messages)
	gmac=$(echo "$FOREIGN_GROUP" | awk -F. '{ printf "01:00:5e:%02x:%02x:%02x", $2 % 128, $3, $4 }')
	check "tcprewrite: another server's address, MAC, group and port" \
		tcprewrite -i "$T_TMP/theirs.pcap" -o "$T_TMP/foreign.pcap" \
		--srcipmap="10.201.0.1/32:$FOREIGN_IP/32" --dstipmap="239.1.1.1/32:$FOREIGN_GROUP/32" \
		--portmap="26400:$FOREIGN_PORT" --enet-smac="$FOREIGN_MAC" --enet-dmac="$gmac" \
		--fixcsum
	check "t2t-pcap reads it as the day, with its group and source" \
		bash -c "build/t2t-pcap --from-pcap '$T_TMP/foreign.pcap' -o '$T_TMP/foreign.day' -q \
			--feed '$FOREIGN_GROUP:$FOREIGN_PORT' --feed-source '$FOREIGN_IP' &&
			cmp -s '$T_TMP/foreign.day' <(zcat '$T_TMP/day.gz')"
	# the kernel path's reverse-path filter (1 or 2, where the host's
	# namespaces inherit it) drops a source it has no route back to: the
	# route a network carrying another server's feed has
	ip netns exec "$RIG_NS_GW" ip route replace "$FOREIGN_IP/32" dev "$RIG_IF_GW"
	play foreign_xdp xdp "$T_TMP/foreign.pcap" "$n" "$T_TMP/day.bt.csv" "--multiplier 10" \
		--feed "$FOREIGN_GROUP:$FOREIGN_PORT" --feed-source "$FOREIGN_IP"
	play foreign_udp udp "$T_TMP/foreign.pcap" "$n" "$T_TMP/day.bt.csv" "--multiplier 10" \
		--feed "$FOREIGN_GROUP:$FOREIGN_PORT" --feed-source "$FOREIGN_IP"
	expect_eq "the session adopted" "$(j "$T_TMP/foreign_xdp.gw.json" .session)" NQTV000042
	# the group right, the source ours: every packet refused
	for p in xdp udp; do
		g=$T_TMP/spoofed_$p.gw.json
		gw_start "spoofed_$p" --mode "$p" --paper --rerequest off "${SYMS[@]}" --duration 40 \
			--feed "$FOREIGN_GROUP:$FOREIGN_PORT" --feed-source "$RIG_IP_EX" || return 1
		ip netns exec "$RIG_NS_EX" timeout 30 tcpreplay -q -i "$RIG_IF_EX" --multiplier 10 \
			"$T_TMP/foreign.pcap" >/dev/null 2>&1 || fail "spoofed_$p: tcpreplay"
		# Nothing it takes ends its session: stopped once the capture is
		# played (and what is in flight taken), however slow the host.
		sleep 0.3
		kill -INT "$(t_pid "spoofed_$p.gw")"
		gw_wait "spoofed_$p" 10
		# (in the XDP hook on the AF_XDP path, in user space on the other)
		expect_eq "$p: --feed-source $RIG_IP_EX: messages decoded, packets dropped as spoofed" \
			"$(j "$g" '"\(.feed.messages) \(.feed.spoofed + (.xdp.spoofed // 0))"')" \
			"0 $(($(j "$T_TMP/theirs.json" '.packets + .ends')))"
	done
}

test_t2t_pcap_refuses_what_does_not_go_together() {
	local P=build/t2t-pcap
	check "--help" bash -c "$P --help | grep -q -- --from-pcap"
	expect_exit 2 "give one of --from-day DAY and --from-pcap CAP" $P -o x
	expect_exit 2 "give one of --from-day DAY and --from-pcap CAP" $P --from-day a --from-pcap b -o x
	expect_exit 2 "-o FILE is needed" $P --from-day a
	expect_exit 2 "--per-packet, --mtu and --pack-ns go with --from-day" \
		$P --from-pcap a -o x --per-packet 5
	expect_exit 2 "--feed-source, --retrans-port and --hold-mb go with --from-pcap" \
		$P --from-day a -o x --feed-source 10.0.0.1
	expect_exit 2 "--speed paces by the ITCH timestamps: not with --rate" \
		$P --from-day a -o x --rate 1000 --speed 2
	expect_exit 2 "is not a multicast group" $P --from-day a -o x --feed 10.1.2.3:26400
	expect_exit 2 "--session" $P --from-day a -o x --session ELEVENCHARS
	expect_exit 2 "--src-mac" $P --from-day a -o x --src-mac 02:00:00
	expect_exit 1 "not a pcap file" $P --from-pcap "$0" -o "$T_TMP/x.day"
}

run_tests "$@"
