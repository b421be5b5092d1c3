#!/bin/bash
# While the AF_XDP gateway runs, traffic that is not a configured flow still
# reaches the gateway namespace's kernel (ping, UDP to another port, the feed
# port on another address); a feed packet from a spoofed source is dropped
# and counted in XDP.  Then the lifecycle: SIGTERM and SIGINT detach the
# program; after SIGKILL the next start finds it, says so and replaces it.
# One rig for the file.
. "$(dirname "$0")/../lib.sh"
. scripts/gw_ready.sh
need root build/t2t-gateway

in_gw() { nsenter --net="$RIG_NETNS_GW" "$@"; }
in_ex() { ip netns exec "$RIG_NS_EX" "$@"; }
# The link line is captured before it is searched (no grep -q on a pipe
# under pipefail).
xdp_attached() { [[ $(in_gw ip link show "$RIG_IF_GW") == *prog/xdp* ]]; }
detached() { ! xdp_attached; }

# start_gw NAME: the gateway, stdout and stderr in $T_TMP/NAME.out and .err.
start_gw() {
	rig_up
	# nsenter execs the gateway: the PID is the gateway itself, for the signals.
	bg "$1" nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --feed-source "$RIG_IP_EX" \
		--exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		--cpu 1 --duration 60 --json "$T_TMP/gw.json" -q
	gw_pid=$(t_pid "$1")
	gw_wait_ready "$T_TMP/$1.err" "$gw_pid" && return 0
	cat "$T_TMP/$1.err" >&2
	fail "the gateway ($1) did not start"
	return 1
}
stop_gw() {	# stop_gw SIGNAL
	kill -"$1" "$gw_pid"
	wait "$gw_pid" 2>/dev/null
}
pings() { in_ex ping -c 2 -i 0.2 -W 1 "$RIG_IP_GW" >/dev/null; }

# udp_to_kernel PORT WORD OUT: a kernel UDP socket in the gateway namespace
# listens on PORT; WORD is sent to it from the exchange side every 0.2 s
# until it arrives (nc may bind late on a busy VM), for up to 5 s.
udp_to_kernel() {
	local ncpid
	in_gw timeout 5 nc -u -l -W 1 "$RIG_IP_GW" "$1" >"$3" &
	ncpid=$!
	for _ in $(seq 25); do
		in_ex bash -c "echo $2 >/dev/udp/$RIG_IP_GW/$1" 2>/dev/null
		sleep 0.2
		grep -qs "$2" "$3" && break
	done
	wait "$ncpid" || true
}

test_other_traffic_reaches_the_kernel_and_spoofed_feed_is_dropped() {
	start_gw gw1 || return 1
	check "gateway attached its XDP program" xdp_attached
	check "ping across the veth still works" pings

	# UDP to another port reaches a kernel socket in the gateway namespace.
	udp_to_kernel 7777 hello-kernel "$T_TMP/nc.out"
	check "UDP to another port reaches the kernel" grep -q hello-kernel "$T_TMP/nc.out"

	# The feed port on a unicast address is not a configured flow either.
	udp_to_kernel "$RIG_FEED_PORT" feed-port-unicast "$T_TMP/nc2.out"
	check "the feed port on another address reaches the kernel" grep -q feed-port-unicast "$T_TMP/nc2.out"

	# A genuine feed packet is steered; one from a spoofed source is dropped
	# in XDP and counted.
	in_ex bash -c "echo genuine >/dev/udp/$RIG_GROUP/$RIG_FEED_PORT"
	in_ex ip addr replace "${RIG_IP_EX%.*}.99/32" dev "$RIG_IF_EX"
	in_ex nc -u -w 1 -s "${RIG_IP_EX%.*}.99" "$RIG_GROUP" "$RIG_FEED_PORT" <<<"spoofed" || true
	sleep 0.3
	stop_gw TERM
	check "SIGTERM: XDP program detached" detached
	check "spoofed feed packet dropped and counted" [ "$(jq '.xdp.spoofed' "$T_TMP/gw.json")" -ge 1 ]
	check "the genuine feed packet was steered, not dropped" [ "$(jq '.xdp.steered' "$T_TMP/gw.json")" -ge 1 ]
	check "summary printed on SIGTERM" grep -q "gateway summary" "$T_TMP/gw1.out"
}

test_sigint_detaches_the_program() {
	start_gw gw2 || return 1
	stop_gw INT
	check "SIGINT: XDP program detached" detached
}

# After SIGKILL nothing can run; the next start finds the program.
test_the_next_start_replaces_a_program_left_by_sigkill() {
	start_gw gw3 || return 1
	stop_gw KILL
	check "SIGKILL leaves the program attached (nothing can run)" xdp_attached
	start_gw gw4 || return 1
	check "next start reports and replaces the leftover program" grep -q "replacing XDP program 'steer'" "$T_TMP/gw4.err"
	stop_gw TERM
	check "after the restart's exit nothing is attached" detached
}

run_tests "$@"
