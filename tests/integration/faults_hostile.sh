#!/bin/bash
# t2t-exsim --hostile mixes malformed and stray packets into a valid feed; a
# kernel receiver in the gateway namespace keeps every valid message and
# the kernel drops the rest, each class accounted for:
#  - the seven malformed MoldUDP64 classes reach the receiver, which finds
#    in each packet exactly the defect the simulator says it sent (count per
#    class equal), and 'random' packets each land in one of those classes;
#  - truncated frames and bad UDP checksums are dropped by the kernel
#    (IpInTruncatedPkts + IpInHdrErrors, UdpInCsumErrors), frames to other
#    ports go to no socket (UdpIgnoredMulti), to other addresses are not
#    for this host (IpInAddrErrors for the unicast ones);
#  - the gateway veth received exactly the feed plus every hostile packet;
#  - no "poison" payload got through: the receiver's trades == the record;
#  - the poison is the next sequence number: in a capture (tcpdump, read by
#    tshark) every frame with a bad UDP checksum carries the number of the
#    next good data packet, above the one before it.
# Plus the refusals: frame classes outside a named namespace, unknown class.
#
# One rig for the file.  Bounded: two runs of about 1.5 s.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-exsim build/tools/fault_recv tcpdump tshark nstat

MOLD="short_packet block_overrun count_too_high count_too_low zero_length_block bad_length unknown_type"
FRAMES="truncated_frame bad_checksum other_port other_address"

# counters NAME: the gateway namespace's kernel counters and veth rx count.
counters() {
	ip netns exec "$RIG_NS_GW" nstat -asz >"$T_TMP/$1.nstat"
	ip netns exec "$RIG_NS_GW" cat "/sys/class/net/$RIG_IF_GW/statistics/rx_packets" >"$T_TMP/$1.rx"
}
# delta COUNTER: after - before
delta() {
	echo $(($(awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/after.nstat") - \
		$(awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/before.nstat")))
}

# run NAME CLASSES
run() {
	local name=$1 classes=$2
	start_fault_recv "$name" --trades "$T_TMP/$name.trades" --timeout-ms 5000 || return 1
	counters before
	ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --stamp mono --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --symbols AAPL,MSFT \
		--count 4000 --rate 4000 --max-per-packet 1 --linger 100 --grace 100 \
		--hostile 250 --hostile-classes "$classes" --fault-seed 11 \
		--record "$T_TMP/$name.rec" --json "$T_TMP/$name.json" >"$T_TMP/$name.sim" 2>&1 ||
		fail "$name: exsim failed: $(tail -3 "$T_TMP/$name.sim")"
	wait_recv "$name"
	sleep 0.2
	counters after
}

test_frame_classes_outside_a_namespace_and_bad_options_refused() {
	local rc
	unshare -n build/t2t-exsim -q --source gbm --feed 127.0.0.1 --count 10 --hostile 10 >"$T_TMP/r1" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "hostile frames" "$T_TMP/r1" &&
		ok "frame classes refused outside a named namespace" || fail "frames outside the rig: rc $rc: $(cat "$T_TMP/r1")"
	build/t2t-exsim --hostile-classes short_packet,bogus >"$T_TMP/r2" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "unknown class 'bogus'" "$T_TMP/r2" &&
		ok "unknown hostile class refused" || fail "bad class: rc $rc: $(cat "$T_TMP/r2")"
	build/t2t-exsim --source gbm --hostile 10 --drop-seqs 2 >"$T_TMP/r3" 2>&1
	[ $? -eq 2 ] && ok "--hostile with --drop-seqs in the opening refused" || fail "$(cat "$T_TMP/r3")"
}

test_every_hostile_class_is_accounted_for() {
	local all o j mold_sent sent c
	rig_up
	all=$(echo $MOLD $FRAMES | tr ' ' ,)
	run a "$all"
	o=$T_TMP/a.out
	j=$T_TMP/a.json
	[ "$(kv "$o" result)" = ok ] && [ "$(kv "$o" mismatch)" = 0 ] && [ "$(kv "$o" foreign)" = 0 ] &&
		ok "receiver read to the end of session" || fail "receiver: $(summary a)"
	cmp -s "$T_TMP/a.rec" "$T_TMP/a.trades" && ok "trades == record: every valid tick kept, no poison taken" ||
		fail "trades differ from the record: $(cmp "$T_TMP/a.rec" "$T_TMP/a.trades" 2>&1)"
	mold_sent=0
	for c in $MOLD; do
		sent=$(j "$j" ".hostile.by_class.$c")
		expect_ge "$c sent" "$sent" 5
		expect_eq "$c: receiver found that defect" "$(kv "$o" "$c")" "$sent"
		mold_sent=$((mold_sent + sent))
	done
	for c in $FRAMES; do
		expect_ge "$c sent" "$(j "$j" ".hostile.by_class.$c")" 5
	done
	expect_eq "malformed at the receiver" "$(kv "$o" malformed)" "$mold_sent"
	expect_eq "datagrams at the receiver == feed + malformed" \
		$(($(kv "$o" datagrams) - $(kv "$o" end_of_session))) \
		$(($(j "$j" .packets) - $(j "$j" .end_of_session) + mold_sent))
	expect_eq "frames on the gateway veth == feed + every hostile packet" \
		$(($(cat "$T_TMP/after.rx") - $(cat "$T_TMP/before.rx"))) \
		$(($(j "$j" .packets) + $(j "$j" .hostile.sent)))
	expect_eq "bad checksums dropped by the kernel (UdpInCsumErrors)" \
		"$(delta UdpInCsumErrors)" "$(j "$j" .hostile.by_class.bad_checksum)"
	expect_eq "truncated frames dropped by the kernel (IpExtInTruncatedPkts + IpInHdrErrors)" \
		$(($(delta IpExtInTruncatedPkts) + $(delta IpInHdrErrors))) \
		"$(j "$j" .hostile.by_class.truncated_frame)"
	expect_eq "other ports: no socket (UdpIgnoredMulti)" \
		"$(delta UdpIgnoredMulti)" "$(j "$j" .hostile.by_class.other_port)"
	expect_eq "other unicast addresses: not ours (IpInAddrErrors)" \
		"$(delta IpInAddrErrors)" "$(j "$j" .hostile.unicast_other)"
	# The receiver leaves at the first end of session: the copies after it
	# reach a group nobody in the namespace has joined any more.
	expect_eq "other groups: received, not delivered" \
		$(($(delta IpInReceives) - $(delta IpInDelivers) - $(delta IpExtInTruncatedPkts) - \
		   $(delta IpInHdrErrors) - $(delta IpInAddrErrors) - \
		   ($(j "$j" .end_of_session) - $(kv "$o" end_of_session)))) \
		$(($(j "$j" .hostile.by_class.other_address) - $(j "$j" .hostile.unicast_other)))
	expect_eq "hostile send errors" "$(j "$j" .hostile.send_errors)" 0
}

test_random_packets_are_each_malformed_in_one_class() {
	local o j
	rig_up
	run b random
	o=$T_TMP/b.out
	j=$T_TMP/b.json
	expect_ge "random sent" "$(j "$j" .hostile.by_class.random)" 50
	expect_eq "each random packet malformed in one class" "$(kv "$o" malformed)" \
		"$(j "$j" .hostile.sent)"
	cmp -s "$T_TMP/b.rec" "$T_TMP/b.trades" && ok "random: trades == record" ||
		fail "random: trades differ from the record"
}

# The poison frames take the next sequence number (one tick per packet).
test_poison_frames_carry_the_next_sequence_number() {
	local td bad good_next
	rig_up
	bg tcpdump ip netns exec "$RIG_NS_GW" timeout 60 tcpdump -i "$RIG_IF_GW" --immediate-mode -B 8192 -Z root -U -n \
		-w "$T_TMP/p.pcap" "udp port $RIG_FEED_PORT"
	td=$tcpdump_pid
	for _ in $(seq 50); do
		grep -qs "listening on" "$T_TMP/tcpdump.err" && break
		sleep 0.1
	done
	ip netns exec "$RIG_NS_EX" timeout 60 build/t2t-exsim -q --source gbm --stamp mono --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" --count 1000 \
		--rate 2000 --max-per-packet 1 --linger 50 --grace 50 --hostile 100 \
		--hostile-classes bad_checksum --json "$T_TMP/p.json" >"$T_TMP/p.sim" 2>&1 ||
		fail "poison run: exsim failed"
	# tcpdump writes each packet as it reads it (-U), but on a busy VM it can be
	# kept from reading for a while, and SIGINT drops what it has not read yet.
	# So stop it only once the capture holds the end of session (MoldUDP64
	# count 0xFFFF, UDP payload offset 18), and say so if it never does.
	for _ in $(seq 100); do
		[ -n "$(tcpdump -r "$T_TMP/p.pcap" -c 1 'udp[26:2] = 0xffff' 2>/dev/null)" ] && break
		sleep 0.1
	done
	kill -INT "$td" 2>/dev/null
	wait "$td" 2>/dev/null
	[ -n "$(tcpdump -r "$T_TMP/p.pcap" -c 1 'udp[26:2] = 0xffff' 2>/dev/null)" ] ||
		fail "capture incomplete (no end of session after 10 s): $(tail -3 "$T_TMP/tcpdump.err" | tr '\n' ' ')"
	tshark -r "$T_TMP/p.pcap" -o "moldudp64.udp.port:$RIG_FEED_PORT" -o udp.check_checksum:TRUE \
		-T fields -E separator=' ' -E occurrence=f -e udp.checksum.status \
		-e moldudp64.sequence -e moldudp64.count >"$T_TMP/p.fields" 2>"$T_TMP/tshark.err" ||
		fail "tshark: $(head -3 "$T_TMP/tshark.err")"
	read -r bad good_next < <(awk '
		$1 == 0 { pend[++np] = $2; next }		# checksum status 0: Bad
		$3 >= 1 && $3 < 65535 {
			for (i = 1; i <= np; i++) { n++; if (pend[i] == $2 && pend[i] > last) ok++ }
			np = 0; last = $2 }
		END { print n + np, ok + 0 }' "$T_TMP/p.fields")	# unflushed ones: captured, not verified
	# What the capture itself lost, and tshark's checksum verdicts (0 bad, 1
	# good, 2 not checked), say in a failure whether the frames or the
	# capture went missing.
	expect_eq "poison frames captured (tcpdump: $(grep -o '[0-9]* packets* dropped by kernel' \
		"$T_TMP/tcpdump.err"); checksum status counts: $(cut -d' ' -f1 "$T_TMP/p.fields" |
		sort | uniq -c | tr -s ' \n' ' '))" "$bad" "$(j "$T_TMP/p.json" .hostile.by_class.bad_checksum)"
	expect_eq "poison frames carrying the next sequence number" "$good_next" "$bad"
}

run_tests "$@"
