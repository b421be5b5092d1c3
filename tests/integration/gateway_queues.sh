#!/bin/bash
# The gateway on a veth pair of several queues, as on a real NIC where RSS
# spreads the flows (netns/rig.sh --queues N: the exchange's transmit queue
# picks the gateway's receive queue, by its flow hash or, with --spread
# cpu, by XPS).  With every queue served (the default), the feed, the
# re-request answers and the order connection are taken wherever they
# land: every message decoded once, one login, orders at parity with the
# backtester and reconciled with the exchange, and the gateway namespace's
# kernel never sends a TCP reset (TcpOutRsts), on 4 and 8 queues, both
# order stacks, both XDP modes and two feed lines.  A queue left unserved
# drops what lands there in XDP, counts it per queue, says so on stderr
# with the rule that steers the flow, and still no reset goes out.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway build/t2t-exsim build/t2t-backtest

. "$(dirname "$0")/queues_lib.sh"

test_4_queues_every_flow_off_queue_0_own_tcp_generic() {
	rig_up q4 --queues 4 --spread cpu
	run q4g --xdp-mode generic || return 1
	as_on_one_queue q4g
	off_queue_0 q4g 4
	check "q4g: the order connection's segments landed off queue 0" \
		test "$(j "$T_TMP/q4g.gw.json" '[.queue_table[1:][].orders] | add')" -gt 0
}

test_4_queues_kernel_tcp_native() {
	rig_up q4 --queues 4 --spread cpu
	run q4k --xdp-mode drv --order-stack kernel || return 1
	as_on_one_queue q4k
	off_queue_0 q4k 4
}

# 1 % of the feed's packets lost at the exchange: the re-request answers, a
# third flow with a hash of its own, are needed and taken where they land.
test_8_queues_hash_lossy_own_tcp_native() {
	rig_up q8 --queues 8 --spread hash
	run q8n --xdp-mode drv -- --drop-rate 0.01 || return 1
	as_on_one_queue q8n
	check "q8n: gaps filled by re-request answers" \
		test "$(j "$T_TMP/q8n.gw.json" .gaps.retrans_pkts)" -gt 0 \
		-a "$(j "$T_TMP/q8n.gw.json" .gaps.opened)" -eq "$(j "$T_TMP/q8n.gw.json" .gaps.filled)"
}

test_8_queues_hash_lossy_kernel_tcp_generic() {
	rig_up q8 --queues 8 --spread hash
	run q8k --xdp-mode generic --order-stack kernel -- --drop-rate 0.01 || return 1
	as_on_one_queue q8k
	check "q8k: gaps filled by re-request answers" \
		test "$(j "$T_TMP/q8k.gw.json" .gaps.retrans_pkts)" -gt 0
}

test_two_lines_4_queues_native() {
	rig_up qb --queues 4 --spread cpu --line-b "$(t_subnet qB)"
	run qbn --xdp-mode drv --line-b "$RIG_IF_GW_B" --feed-b "$RIG_GROUP_B:$RIG_FEED_PORT" \
		--feed-source-b "$RIG_IP_EX_B" -- --line-b "$RIG_GROUP_B:$RIG_FEED_PORT" \
		--drop-rate 0.02 --b-drop-rate 0.02 --b-delay-us 30 || return 1
	as_on_one_queue qbn
	expect_eq "qbn: 8 queues served, 4 per line" \
		"$(j "$T_TMP/qbn.gw.json" '[.queue_table[] | select(.served) | .line] | group_by(.) | map(length) | join(",")')" "4,4"
	check "qbn: both lines delivered first copies" \
		test "$(j "$T_TMP/qbn.gw.json" .lines.a_taken)" -gt 0 \
		-a "$(j "$T_TMP/qbn.gw.json" .lines.b_taken)" -gt 0
}

# Queue 0 only, with every flow elsewhere: the feed and the SYN-ACKs land
# on queues with no socket; the hook drops and counts them, the gateway
# says where and what to do, and the kernel never sees the SYN-ACKs.
test_an_unserved_queue_is_dropped_counted_and_said() {
	local gw=$T_TMP/un.gw.json rsts
	rig_up q4 --queues 4 --spread cpu
	rsts=$(out_rsts)
	gw_start un --queues 0 --feed-source "$RIG_IP_EX" "${SYMS[@]}" --duration 4 || return 1
	ex_start un --source gbm --symbols AAPL,MSFT --count 2000 --rate 1000 --wait-login 1
	ex_wait un
	gw_wait un 10
	expect_eq "un: the kernel sent no TCP reset" $(($(out_rsts) - rsts)) 0
	check "un: the feed's packets were dropped and counted as unserved" \
		test "$(j "$gw" '[.queue_table[1:][].unserved_feed] | add')" -gt 0
	check "un: so were the order connection's (SYN-ACKs)" \
		test "$(j "$gw" '[.queue_table[1:][].unserved_orders] | add')" -gt 0
	expect_eq "un: nothing decoded, no login" \
		"$(j "$gw" '"\(.feed.messages) \(.order_session.logins)"')" "0 0"
	check "un: stderr names the queue, the flow and its rule" \
		grep -qE "UNSERVED QUEUE: [0-9]+ packets of the feed 239\.1\.1\.1:$RIG_FEED_PORT arrived on $RIG_IF_GW queue [1-3].*ethtool -N $RIG_IF_GW flow-type udp4 dst-ip 239\.1\.1\.1 dst-port $RIG_FEED_PORT action 0" \
		"$T_TMP/un.gw.err"
	check "un: and the order connection's, with its rule" \
		grep -qE "UNSERVED QUEUE: .*order connection $RIG_IP_EX:$RIG_ORDER_PORT.*ethtool -N $RIG_IF_GW flow-type tcp4 src-ip $RIG_IP_EX src-port $RIG_ORDER_PORT dst-ip $RIG_IP_GW action 0" \
		"$T_TMP/un.gw.err"
	check "un: the summary says it too" grep -q "UNSERVED: " "$T_TMP/un.gw.out"
}

test_a_queue_list_beyond_the_interface_is_refused() {
	rig_up q4 --queues 4 --spread cpu
	expect_exit 1 "has 4 receive queues (0-3); queue 7 is none of them" \
		nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" --queues 0,7 --duration 1 \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" --monitor off
	check "no XDP program left on $RIG_IF_GW" \
		bash -c "! nsenter --net='$RIG_NETNS_GW' ip link show '$RIG_IF_GW' | grep -q xdp"
}

run_tests "$@"
